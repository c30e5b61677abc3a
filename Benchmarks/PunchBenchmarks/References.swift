import PunchKit

// The references the suite's results are read against: what a first version would do.

// MARK: - Naive detector

/// The original app's rule alone: a punch wherever the acceleration's magnitude rises through 2 g.
/// No gravity tracking, no thrust, no retraction, no kinds: the floor of what detection costs.
struct ThresholdDetector {
    var trigger = 2.0
    private var wasAbove = false

    /// Whether this sample starts a punch.
    mutating func process(_ sample: MotionSample) -> Bool {
        let isAbove = sample.acceleration.lengthSquared >= trigger * trigger
        defer { wasAbove = isAbove }
        return isAbove && !wasAbove
    }
}

// MARK: - Naive parser

/// How a first version would read a generic `t,x,y,z` trace: the bytes as one `String`, split
/// into lines and fields, each field through `Double(_:)`. Header skipped; no units, no positions
/// in errors, no streaming. Returns the number of samples.
func naiveGenericParse(_ bytes: [UInt8]) throws -> Int {
    let text = String(decoding: bytes, as: UTF8.self)
    var sink = SampleSink()
    for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: ",")
        guard fields.count >= 4, let t = Double(fields[0]), let x = Double(fields[1]), let y = Double(fields[2]),
            let z = Double(fields[3])
        else { throw BenchmarkInputError.naiveParse(line: String(line)) }
        sink.take(MotionSample(time: t, acceleration: Vector3(x, y, z)))
    }
    return sink.count
}
