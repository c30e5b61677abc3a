import Benchmark
import InputDevices
import PunchKit
import PunchSimulator

// MARK: - Live path

/// Raw `input_event` bytes to punches, as `hitthat listen` runs them: decoding, frame assembly
/// and the detector, over a simulated recording held in memory (one million samples at 400 Hz,
/// five events a sample). A DualShock over Bluetooth sends 1,000+ events a second; the rate here
/// says how far above that the live path runs.
func livePathBenchmarks() {
    let metrics: [BenchmarkMetric] =
        [.wallClock, PunchMetric.eventsPerSecond, PunchMetric.samplesPerSecond, PunchMetric.punches]
    Benchmark(
        "Live-path-input-events",
        configuration: configuration(metrics, maxIterations: 5, allocations: Tolerance.fewAllocations)
    ) {
        benchmark, recording in
        let calibration = MotionCalibration(unitsPerG: 2048)
        var reader = EvdevMotionReader(
            source: MemoryByteSource(recording.bytes, chunkSize: 24 * 256), sourceName: "memory",
            assembler: EvdevFrameAssembler(calibration: calibration))
        var detector = PunchDetector()
        var punches = 0
        var frames = 0
        benchmark.startMeasurement()
        let stopwatch = Stopwatch()
        do {
            while let frame = try reader.nextFrame() {
                frames += 1
                let sample = MotionSample(
                    time: frame.time,
                    acceleration: Vector3(frame.acceleration.x, frame.acceleration.y, frame.acceleration.z))
                if detector.process(sample) != nil { punches += 1 }
            }
        } catch {
            benchmark.error("the recording no longer decodes: \(error)")
        }
        let elapsed = stopwatch.reading()
        benchmark.stopMeasurement()
        benchmark.measurement(PunchMetric.eventsPerSecond, rate(recording.eventCount, per: elapsed.wall))
        benchmark.measurement(PunchMetric.samplesPerSecond, rate(frames, per: elapsed.wall))
        benchmark.measurement(PunchMetric.punches, punches)
    } setup: {
        EncodedRecording(samples: simulatedRecording(sampleCount: 1_000_000, rate: 400))
    }
}

/// A recording as the bytes an evdev node would return for it.
struct EncodedRecording {
    var bytes: [UInt8] = []
    var eventCount = 0

    init(samples: [MotionSample]) {
        var encoder = InputEventEncoder(unitsPerG: 2048)
        for sample in samples {
            for event in encoder.events(for: sample) {
                event.append(to: &bytes, layout: .sixtyFourBit)
                eventCount += 1
            }
        }
    }
}
