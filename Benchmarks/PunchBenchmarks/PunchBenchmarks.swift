import Benchmark
import PunchKit

// The suite behind `swift package benchmark`. Names have no spaces: package-benchmark 1.38.1
// writes a threshold file's name with `_` for a space but looks it up with the space.
// Every input is simulated in a benchmark's `setup`,
// outside the measured region; each benchmark runs in a process of its own, so one benchmark's
// large trace does not weigh on the next. Read the ratios to the naive references in the same
// run; absolute numbers depend on the machine and on what else it is doing.

let benchmarks: @Sendable () -> Void = {
    detectorBenchmarks()
    decisionLatencyBenchmarks()
    ingestionBenchmarks()
    livePathBenchmarks()
}

// MARK: - Metrics

/// The package's metrics the ingestion benchmarks record. Not `peakMemoryResident`: its sampling
/// thread allocates while the loop runs, and those allocations would be counted as the loop's.
/// `instructions` needs `perf_event_open`, which some containers forbid; it is then absent.
let standardMetrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .instructions, .mallocCountTotal]

/// What the suite measures beyond the package's metrics, recorded by the benchmarks themselves:
/// rates over the measured loop, and one value per punch for the latency percentiles.
enum PunchMetric {
    static let samplesPerSecond = BenchmarkMetric.custom("samples/s", polarity: .prefersLarger, useScalingFactor: false)
    /// Samples per second of the thread's CPU time: the rate on a core that nothing else wants.
    static let samplesPerCPUSecond = BenchmarkMetric.custom(
        "samples/CPU-s", polarity: .prefersLarger, useScalingFactor: false)
    static let megabytesPerSecond = BenchmarkMetric.custom("MB/s", polarity: .prefersLarger, useScalingFactor: false)
    static let megabytesPerCPUSecond = BenchmarkMetric.custom(
        "MB/CPU-s", polarity: .prefersLarger, useScalingFactor: false)
    static let punches = BenchmarkMetric.custom("punches", polarity: .prefersLarger, useScalingFactor: false)
    static let eventsPerSecond = BenchmarkMetric.custom("events/s", polarity: .prefersLarger, useScalingFactor: false)
    static let decisionLatency = BenchmarkMetric.custom("decision latency (ns)", useScalingFactor: false)
    /// Two clock reads back to back: what the latency's own measurement adds.
    static let clockReadPair = BenchmarkMetric.custom("clock read pair (ns)", useScalingFactor: false)
    static let delayAfterPeak = BenchmarkMetric.custom("delay after peak (samples)", useScalingFactor: false)
}

// MARK: - Tolerance

/// How far a run may fall behind the p90 values stored in `Benchmarks/Thresholds/` before
/// `swift package benchmark thresholds check` fails. Times are wide because the machine has two
/// cores shared with other work; allocations and what the detector finds are exact.
enum Tolerance {
    // Computed: `BenchmarkThresholds` is not `Sendable`, so it cannot be a stored static.
    static var noisy: BenchmarkThresholds { BenchmarkThresholds(relative: [.p90: 35]) }
    static var exact: BenchmarkThresholds { BenchmarkThresholds(absolute: [.p90: 0]) }
    /// Instructions barely vary from run to run, unlike time.
    static var instructions: BenchmarkThresholds { BenchmarkThresholds(relative: [.p90: 5]) }
    /// A reader's few allocations for its header and look-ahead.
    static var fewAllocations: BenchmarkThresholds { BenchmarkThresholds(absolute: [.p90: 20]) }

    /// A tolerance for each metric: allocations as given, what the detector finds exact,
    /// instructions tight, the rest noisy.
    static func thresholds(
        for metrics: [BenchmarkMetric], allocations: BenchmarkThresholds
    ) -> [BenchmarkMetric: BenchmarkThresholds] {
        var thresholds: [BenchmarkMetric: BenchmarkThresholds] = [:]
        for metric in metrics {
            switch metric {
            case .mallocCountTotal: thresholds[metric] = allocations
            case .instructions: thresholds[metric] = instructions
            case PunchMetric.punches, PunchMetric.delayAfterPeak: thresholds[metric] = exact
            default: thresholds[metric] = noisy
            }
        }
        return thresholds
    }
}

/// A configuration with a tolerance for each of its metrics.
func configuration(
    _ metrics: [BenchmarkMetric], maxIterations: Int, allocations: BenchmarkThresholds = Tolerance.exact
) -> Benchmark.Configuration {
    .init(
        metrics: metrics, maxDuration: .seconds(10), maxIterations: maxIterations,
        thresholds: Tolerance.thresholds(for: metrics, allocations: allocations))
}

// MARK: - Detector core

/// Samples per second through gravity tracking, detection and classification, with no parsing,
/// over ten million samples (28 hours at 100 Hz, some 58,000 punches), handed over at once as a
/// trace is and one sample at a time as live input is; the same over ten million
/// samples of a device at rest; and the original app's bare 2 g threshold over the boxing
/// samples, as the floor.
func detectorBenchmarks() {
    let recordingLength = 10_000_000
    let rates = [PunchMetric.samplesPerSecond, PunchMetric.samplesPerCPUSecond, PunchMetric.punches]
    // `cpuTotal` and `instructions` are read by code that allocates 16 times inside the measured
    // region, so the detector's own allocations are counted in a run without them.
    let allocationMetrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal] + rates
    let counterMetrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .instructions] + rates

    let recordings:
        [(
            name: String, metrics: [BenchmarkMetric], bySample: Bool, profiled: Bool,
            make: @Sendable (Int) -> [MotionSample]
        )] = [
            ("Detector-core", allocationMetrics, false, false, { simulatedRecording(sampleCount: $0) }),
            ("Detector-core-counters", counterMetrics, false, false, { simulatedRecording(sampleCount: $0) }),
            // As live input feeds it, one `process(_:)` call a sample.
            ("Detector-core-per-sample", allocationMetrics, true, false, { simulatedRecording(sampleCount: $0) }),
            // Not a target: the share of the core's time that every sample pays, whatever it holds.
            ("Detector-core-calm", allocationMetrics, false, false, { calmRecording(sampleCount: $0) }),
            // The same recording with a gyroscope: the orientation filter follows up at every
            // sample, and each punch's turn is added up. The ratio to Detector-core, in the same
            // run, is what the fusion costs.
            (
                "Detector-core-gyroscope", allocationMetrics, false, false,
                { withRotation(simulatedRecording(sampleCount: $0)) }
            ),
            // And each punch typed by a player's profile as well: the ratio to the one before is
            // what the profile costs.
            (
                "Detector-core-gyroscope-profile", allocationMetrics, false, true,
                { withRotation(simulatedRecording(sampleCount: $0)) }
            ),
        ]
    for (name, metrics, bySample, profiled, make) in recordings {
        Benchmark(name, configuration: configuration(metrics, maxIterations: 10)) { benchmark, recording in
            // Made before the measured region: the detector's one allocation is its ring of
            // recent samples (and, with a profile, its kinds' means).
            var settings = DetectorConfiguration()
            if profiled { settings.profile = profile(learnedFrom: recording) }
            var detector = PunchDetector(configuration: settings)
            var punches = 0
            benchmark.startMeasurement()
            let stopwatch = Stopwatch()
            if bySample {
                for sample in recording {
                    if detector.process(sample) != nil { punches += 1 }
                }
            } else {
                recording.withUnsafeBufferPointer { detector.process($0) { _ in punches += 1 } }
            }
            if detector.finish() != nil { punches += 1 }
            let elapsed = stopwatch.reading()
            benchmark.stopMeasurement()
            recordRates(benchmark, samples: recording.count, elapsed)
            benchmark.measurement(PunchMetric.punches, punches)
        } setup: {
            make(recordingLength)
        }
    }

    Benchmark("Detector-naive-2g-reference", configuration: configuration(allocationMetrics, maxIterations: 10)) {
        benchmark, recording in
        var detector = ThresholdDetector()
        var punches = 0
        benchmark.startMeasurement()
        let stopwatch = Stopwatch()
        for sample in recording {
            if detector.process(sample) { punches += 1 }
        }
        let elapsed = stopwatch.reading()
        benchmark.stopMeasurement()
        recordRates(benchmark, samples: recording.count, elapsed)
        benchmark.measurement(PunchMetric.punches, punches)
    } setup: {
        simulatedRecording(sampleCount: recordingLength)
    }
}

// MARK: - Decision latency

/// Per punch: the time `process(_:)` takes on the sample that decides it (p50, p99, max over
/// thousands of punches), and how many samples after the punch's time (its stop) that sample comes.
func decisionLatencyBenchmarks() {
    let metrics = [PunchMetric.decisionLatency, PunchMetric.clockReadPair, PunchMetric.delayAfterPeak]
    for rate in [100.0, 400.0] {
        Benchmark("Decision-latency-\(Int(rate))Hz", configuration: configuration(metrics, maxIterations: 5)) {
            benchmark, trace in
            var detector = PunchDetector()
            var next = 0
            for decision in trace.decisions {
                while next < decision.sampleIndex {
                    _ = detector.process(trace.samples[next])
                    next += 1
                }
                let before = ContinuousClock.now
                let punch = detector.process(trace.samples[next])
                let after = ContinuousClock.now
                next += 1
                guard punch != nil else {
                    benchmark.error("sample \(decision.sampleIndex) no longer decides a punch")
                    return
                }
                let clockBefore = ContinuousClock.now
                let clockAfter = ContinuousClock.now
                benchmark.measurement(PunchMetric.decisionLatency, nanoseconds(after - before))
                benchmark.measurement(PunchMetric.clockReadPair, nanoseconds(clockAfter - clockBefore))
                benchmark.measurement(PunchMetric.delayAfterPeak, decision.samplesAfterPeak)
            }
        } setup: {
            DecisionTrace(samples: simulatedRecording(sampleCount: 1_000_000, rate: rate))
        }
    }
}

/// A recording and the samples in it that decide punches, found by a first pass.
struct DecisionTrace {
    struct Decision {
        /// The sample whose `process(_:)` returns the punch.
        var sampleIndex: Int
        /// How many samples after the punch's time it comes.
        var samplesAfterPeak: Int
    }

    var samples: [MotionSample]
    var decisions: [Decision] = []

    init(samples: [MotionSample]) {
        self.samples = samples
        var detector = PunchDetector()
        for (index, sample) in samples.enumerated() {
            guard let punch = detector.process(sample) else { continue }
            var peak = index
            while peak > 0 && samples[peak].time > punch.time { peak -= 1 }
            decisions.append(Decision(sampleIndex: index, samplesAfterPeak: index - peak))
        }
    }
}

// MARK: - Ingestion

/// MB/s and samples/s of `TraceReader` for each format, from bytes in memory and from a file
/// (in the page cache), fed in 64 KiB chunks as `hitthat detect` reads; and a naive parse with
/// `Double(String)` per field as the reference.
func ingestionBenchmarks() {
    let metrics =
        standardMetrics + [
            PunchMetric.megabytesPerSecond, PunchMetric.megabytesPerCPUSecond, PunchMetric.samplesPerSecond,
            PunchMetric.samplesPerCPUSecond,
        ]
    let configuration = configuration(metrics, maxIterations: 20, allocations: Tolerance.fewAllocations)

    func benchmark(_ name: String, _ style: TraceStyle, _ read: @escaping @Sendable (TraceFile) throws -> Int) {
        Benchmark(name, configuration: configuration) { benchmark, trace in
            benchmark.startMeasurement()
            let stopwatch = Stopwatch()
            let count = try read(trace)
            let elapsed = stopwatch.reading()
            benchmark.stopMeasurement()
            guard count == trace.sampleCount else {
                throw BenchmarkInputError.sampleCount(read: count, written: trace.sampleCount)
            }
            recordRates(benchmark, samples: count, bytes: trace.bytes.count, elapsed)
        } setup: {
            try TraceFile(style)
        } teardown: {
            TraceFile.remove(style)
        }
    }

    for style in TraceStyle.all {
        benchmark("Ingest-memory-\(style.name)", style) { try readTrace($0.bytes, source: style.sourceName) }
        benchmark("Ingest-file-\(style.name)", style) { try readTrace(atPath: $0.path, source: style.sourceName) }
    }
    benchmark("Ingest-memory-generic-naive-reference", TraceStyle.generic) { try naiveGenericParse($0.bytes) }
}

// MARK: - Recording

/// Records the rates of one pass over `samples` samples (and `bytes` bytes, for a trace).
private func recordRates(_ benchmark: Benchmark, samples: Int, bytes: Int? = nil, _ elapsed: Stopwatch.Reading) {
    benchmark.measurement(PunchMetric.samplesPerSecond, rate(samples, per: elapsed.wall))
    benchmark.measurement(PunchMetric.samplesPerCPUSecond, rate(samples, per: elapsed.threadCPU))
    if let bytes {
        benchmark.measurement(PunchMetric.megabytesPerSecond, rate(bytes, per: elapsed.wall) / 1_000_000)
        benchmark.measurement(PunchMetric.megabytesPerCPUSecond, rate(bytes, per: elapsed.threadCPU) / 1_000_000)
    }
}

/// `count` per second of `elapsed`.
func rate(_ count: Int, per elapsed: Duration) -> Int {
    let (seconds, attoseconds) = elapsed.components
    return Int(Double(count) / (Double(seconds) + Double(attoseconds) / 1e18))
}

func nanoseconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
}

/// `samples` with a rotation rate that follows the motion (2 rad/s a g of each pair of axes'
/// difference): turning all the time, as a hand does, with no trigonometry to set up.
func withRotation(_ samples: [MotionSample]) -> [MotionSample] {
    samples.map { sample in
        let a = sample.acceleration
        var turning = sample
        turning.rotationRate = Vector3(a.y - a.z, a.z - a.x, a.x - a.y) * 2
        return turning
    }
}
