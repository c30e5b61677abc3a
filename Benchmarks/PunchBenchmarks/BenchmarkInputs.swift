import Benchmark
import PunchKit
import PunchSimulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Simulated recordings

/// A long simulated boxing recording: sessions of 200 punches (jabs, uppercuts, hooks, with the
/// reaches and bumps between them) back to back, each in its own grip, cut at `sampleCount`.
///
/// One session per 200 punches, because a session's cost per sample grows with its length.
func simulatedRecording(sampleCount: Int, rate: Double = 100) -> [MotionSample] {
    var sensor = SensorSettings()
    sensor.rate = rate
    var samples: [MotionSample] = []
    samples.reserveCapacity(sampleCount)
    var seed: UInt64 = 1
    var offset = 0.0
    while samples.count < sampleCount {
        let plan = SessionPlan(seed: seed, punchCount: 200, kinds: PunchKind.allCases, sensor: sensor)
        for sample in plan.samples.prefix(sampleCount - samples.count) {
            samples.append(MotionSample(time: offset + sample.time, acceleration: sample.acceleration))
        }
        offset = (samples.last?.time ?? 0) + 1 / rate
        seed += 1
    }
    return samples
}

/// A long simulated recording of a device at rest: gravity in a new grip every ten minutes, with
/// the sensor's noise, and no motion at all. What every sample costs the detector, without the
/// motion and the decisions that a boxing recording adds.
func calmRecording(sampleCount: Int, rate: Double = 100) -> [MotionSample] {
    var random = SeededGenerator(seed: 1)
    var samples: [MotionSample] = []
    samples.reserveCapacity(sampleCount)
    var gravity = Vector3(0, 1, 0)
    let samplesPerGrip = Int(600 * rate)
    for index in 0..<sampleCount {
        if index % samplesPerGrip == 0 {
            gravity = Rotation.random(using: &random).deviceFrame(of: Vector3(0, 1, 0))
        }
        let noise = Vector3(
            random.gaussian(deviation: 0.01), random.gaussian(deviation: 0.01), random.gaussian(deviation: 0.01))
        samples.append(MotionSample(time: Double(index) / rate, acceleration: gravity + noise))
    }
    return samples
}

// MARK: - Trace files

/// A trace format as the benchmarks write it, and the file name its reader is told.
struct TraceStyle: Sendable {
    var name: String
    var writer: TraceWriter
    /// Sensor Logger tells gravity from the file name; the others ignore it.
    var sourceName: String

    static let generic = TraceStyle(name: "generic", writer: TraceWriter(.generic), sourceName: "trace.csv")

    static let all = [
        generic,
        TraceStyle(name: "phyphox", writer: TraceWriter(.phyphox(.comma)), sourceName: "Raw Data.csv"),
        TraceStyle(
            name: "phyphox-semicolon-decimal-comma", writer: TraceWriter(.phyphox(.semicolonWithDecimalComma)),
            sourceName: "Raw Data.csv"),
        TraceStyle(name: "sensor-logger", writer: TraceWriter(.sensorLogger()), sourceName: "TotalAcceleration.csv"),
        TraceStyle(name: "physics-toolbox", writer: TraceWriter(.physicsToolbox), sourceName: "g-force.csv"),
    ]
}

/// A million simulated samples (about three hours at 100 Hz) written in one format, in memory
/// and in a temporary file.
struct TraceFile: Sendable {
    static let sampleCount = 1_000_000

    let bytes: [UInt8]
    let path: String
    var sampleCount: Int { Self.sampleCount }

    init(_ style: TraceStyle) throws {
        bytes = style.writer.bytes(simulatedRecording(sampleCount: Self.sampleCount))
        path = Self.path(style)
        try writeFile(bytes, to: path)
    }

    /// Where this process keeps the style's file: each benchmark runs in a process of its own.
    static func path(_ style: TraceStyle) -> String {
        "/tmp/punch-benchmarks-\(getpid())-\(style.name).csv"
    }

    static func remove(_ style: TraceStyle) {
        unlink(path(style))
    }
}

// MARK: - Reading

/// The chunk size `hitthat detect` reads with.
let chunkSize = 1 << 16

/// Counts the samples a reader delivers and keeps a checksum, so no read can be optimised away.
struct SampleSink {
    private(set) var count = 0
    private(set) var checksum = 0.0

    mutating func take(_ sample: MotionSample) {
        count += 1
        checksum += sample.acceleration.x
    }
}

/// Reads a trace held in memory in 64 KiB chunks; returns the number of samples.
func readTrace(_ bytes: [UInt8], source: String) throws -> Int {
    var reader = TraceReader(source: source)
    var sink = SampleSink()
    try bytes.withUnsafeBytes { all in
        var offset = 0
        while offset < all.count {
            let end = min(offset + chunkSize, all.count)
            try reader.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { sink.take($0) }
            offset = end
        }
    }
    try reader.finish { sink.take($0) }
    blackHole(sink.checksum)
    return sink.count
}

/// Reads a trace file with `read(2)` in 64 KiB chunks, as `hitthat detect` does; returns the
/// number of samples.
func readTrace(atPath path: String, source: String) throws -> Int {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw BenchmarkInputError.system("open \(path)", errno) }
    defer { close(descriptor) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
    defer { buffer.deallocate() }
    var reader = TraceReader(source: source)
    var sink = SampleSink()
    while true {
        let count = read(descriptor, buffer.baseAddress, buffer.count)
        if count < 0 {
            if errno == EINTR { continue }
            throw BenchmarkInputError.system("read \(path)", errno)
        }
        if count == 0 { break }
        try reader.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { sink.take($0) }
    }
    try reader.finish { sink.take($0) }
    blackHole(sink.checksum)
    return sink.count
}

/// Writes a whole file.
func writeFile(_ bytes: [UInt8], to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else { throw BenchmarkInputError.system("create \(path)", errno) }
    defer { close(descriptor) }
    try bytes.withUnsafeBytes { all in
        var offset = 0
        while offset < all.count {
            let written = write(descriptor, all.baseAddress! + offset, all.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw BenchmarkInputError.system("write \(path)", errno)
            }
            offset += written
        }
    }
}

// MARK: - Stopwatch

/// Wall-clock time and the calling thread's CPU time since it was started.
struct Stopwatch {
    struct Reading {
        var wall: Duration
        var threadCPU: Duration
    }

    private let wallStart = ContinuousClock.now
    private let cpuStart = Stopwatch.threadCPUTime()

    func reading() -> Reading {
        let cpu = Self.threadCPUTime()
        return Reading(wall: ContinuousClock.now - wallStart, threadCPU: cpu - cpuStart)
    }

    private static func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}

// MARK: - Errors

/// Why a benchmark's input could not be made or read back.
enum BenchmarkInputError: Error, CustomStringConvertible {
    case system(String, Int32)
    case sampleCount(read: Int, written: Int)
    case naiveParse(line: String)

    var description: String {
        switch self {
        case .system(let operation, let code): "cannot \(operation): \(String(cString: strerror(code)))"
        case .sampleCount(let read, let written): "read \(read) samples back of the \(written) written"
        case .naiveParse(let line): "the naive parser cannot read \"\(line)\""
        }
    }
}

/// A profile taught by the first three punches of each kind the default rule finds in a
/// recording: a player whose own punches the rule reads right.
func profile(learnedFrom recording: [MotionSample]) -> PunchProfile {
    var detector = PunchDetector()
    var taught: [(kind: PunchKind, punch: Punch)] = []
    for sample in recording {
        guard let punch = detector.process(sample) else { continue }
        if taught.count { $0.kind == punch.kind } < PunchProfile.punchesPerKind { taught.append((punch.kind, punch)) }
        if taught.count == PunchProfile.punchesPerKind * PunchKind.allCases.count { break }
    }
    // The simulator throws every kind within its first few hundred punches.
    guard let profile = try? PunchProfile.learn(from: taught, hand: .right) else {
        preconditionFailure("the recording taught no profile")
    }
    return profile
}
