@testable import PunchKit

// MARK: - Reading in tests

/// What reading a trace gave: its samples and the reader's summary.
struct TraceReading {
    var samples: [MotionSample]
    var summary: TraceSummary
}

/// Reads `bytes` through the streaming reader, fed `chunkSize` bytes at a time.
func readTrace(
    _ bytes: [UInt8], source: String = "test.csv", format: TraceFormat? = nil, units: AccelerationUnit? = nil,
    lenient: Bool = false, chunkSize: Int = Int.max
) throws -> TraceReading {
    var reader = TraceReader(source: source, format: format, units: units, lenient: lenient)
    var samples: [MotionSample] = []
    var start = 0
    while start < bytes.count {
        let end = start + min(chunkSize, bytes.count - start)
        try bytes[start..<end].withUnsafeBytes { try reader.feed($0) { samples.append($0) } }
        start = end
    }
    try reader.finish { samples.append($0) }
    return TraceReading(samples: samples, summary: reader.summary)
}

/// Reads `text` through the streaming reader, fed `chunkSize` bytes at a time.
func readTrace(
    _ text: String, source: String = "test.csv", format: TraceFormat? = nil, units: AccelerationUnit? = nil,
    lenient: Bool = false, chunkSize: Int = Int.max
) throws -> TraceReading {
    try readTrace(
        Array(text.utf8), source: source, format: format, units: units, lenient: lenient, chunkSize: chunkSize)
}

/// The error reading `text` throws, or nil when it reads cleanly.
func traceError(
    _ text: String, source: String = "test.csv", format: TraceFormat? = nil, chunkSize: Int = Int.max
) -> TraceError? {
    do {
        _ = try readTrace(text, source: source, format: format, chunkSize: chunkSize)
        return nil
    } catch let error as TraceError {
        return error
    } catch {
        return nil
    }
}

// MARK: - Made-up samples

/// A small deterministic generator (SplitMix64), so a failing case can be run again.
struct TraceTestGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `count` samples at about `rate` Hz with uneven spacing, in g: a device resting in a tilted
/// grip (about 1 g) with noise, or, without gravity, noise around zero; a few jolts up to 8 g.
func madeUpSamples(count: Int, rate: Double = 100, gravity: Bool = true, seed: UInt64 = 1) -> [MotionSample] {
    var random = TraceTestGenerator(seed: seed)
    let rest = gravity ? Vector3(0.2, -0.95, 0.24) : .zero
    var time = Double.random(in: -1...1, using: &random)
    return (0..<count).map { index in
        time += (1 / rate) * Double.random(in: 0.8...1.2, using: &random)
        var noise = Vector3(
            Double.random(in: -0.05...0.05, using: &random), Double.random(in: -0.05...0.05, using: &random),
            Double.random(in: -0.05...0.05, using: &random))
        if index % 97 == 50 { noise = noise + Vector3(3, -8, 1.5) }
        return MotionSample(time: time, acceleration: rest + noise)
    }
}

/// Whether two numbers agree to `relative` of their size (or `absolute`, near zero).
func isClose(_ a: Double, _ b: Double, relative: Double = 1e-12, absolute: Double = 1e-12) -> Bool {
    abs(a - b) <= max(absolute, relative * max(abs(a), abs(b)))
}

/// Whether two sample lists agree sample by sample within the given tolerances.
func samplesAgree(
    _ read: [MotionSample], _ written: [MotionSample], relative: Double = 1e-12, absolute: Double = 1e-12
) -> Bool {
    guard read.count == written.count else { return false }
    return zip(read, written).allSatisfy { a, b in
        isClose(a.time, b.time, relative: relative, absolute: absolute)
            && isClose(a.acceleration.x, b.acceleration.x, relative: relative, absolute: absolute)
            && isClose(a.acceleration.y, b.acceleration.y, relative: relative, absolute: absolute)
            && isClose(a.acceleration.z, b.acceleration.z, relative: relative, absolute: absolute)
    }
}
