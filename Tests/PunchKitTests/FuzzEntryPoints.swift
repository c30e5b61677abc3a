import PunchKit

// MARK: - Fuzz entry points

/// What each PunchKit fuzz target does with one input, shared by the libFuzzer drivers
/// (`Fuzz/<Target>/main.swift`, built by `tools/fuzz.sh`) and the regression test that replays
/// `Tests/Fixtures/fuzz/<Target>/` in a plain `swift test`, so a fixed crash stays fixed.
///
/// Errors are the expected answer to bad bytes and are ignored; a crash, a hang or a broken
/// invariant (checked with `precondition`, so it stops the fuzzer) is the defect looked for.
enum PunchKitFuzzEntryPoints {
    /// Reads `bytes` as a trace with format detection, whole and in chunks of 1 to 64 bytes (their
    /// size taken from the first byte), and runs the detector over what was read; a trace refused
    /// is read again leniently.
    ///
    /// A pipe hands the reader arbitrary chunks, so the chunked read must give the whole read's answer.
    static func traceReader(_ bytes: [UInt8]) {
        let whole = Result { try TraceReader.readAll(bytes: bytes, source: "fuzz") }
        let chunked = Result { try readInChunks(bytes, size: 1 + Int(bytes.first ?? 0) % 64) }
        switch (whole, chunked) {
        case (.success(let samples), .success(let chunkedSamples)):
            precondition(samples.elementsEqual(chunkedSamples, by: sameSample), "chunked read differs from whole read")
            var detector = PunchDetector()
            for sample in samples { _ = detector.process(sample) }
            _ = detector.finish()
        case (.failure, .failure):
            _ = try? TraceReader.readAll(bytes: bytes, source: "fuzz", lenient: true)
        default:
            preconditionFailure("chunked read and whole read disagree on whether the trace is valid")
        }
    }

    /// Feeds the detector samples built from raw bit patterns (NaN, infinities, denormals, huge
    /// values, time going back or jumping ahead), then samples on a regular clock so that punches
    /// really are found; every punch it reports must be well formed.
    static func punchDetector(_ bytes: [UInt8]) {
        var detector = PunchDetector()
        var reader = ByteCursor(bytes)
        var clock = 0.0
        while let tag = reader.byte() {
            let sample: MotionSample
            if tag & 1 == 0 {
                // Any bits at all: 8 bytes each for time, x, y, z.
                guard let time = reader.double(), let x = reader.double(), let y = reader.double(),
                    let z = reader.double()
                else { break }
                sample = MotionSample(time: time, acceleration: Vector3(x, y, z))
                if time.isFinite { clock = time }
            } else {
                // A step of tag/2 ms and readings of ±16 g in 1/2048 g: what a sensor sends.
                guard let x = reader.int16(), let y = reader.int16(), let z = reader.int16() else { break }
                clock += Double(tag >> 1) / 1000
                sample = MotionSample(
                    time: clock, acceleration: Vector3(Double(x) / 2048, Double(y) / 2048, Double(z) / 2048))
            }
            if let punch = detector.process(sample) { check(punch) }
        }
        if let punch = detector.finish() { check(punch) }
    }

    /// Parses `bytes` as a label file.
    static func labelParser(_ bytes: [UInt8]) {
        _ = try? PunchLabel.parseLabels(String(decoding: bytes, as: UTF8.self), source: "fuzz")
    }

    // MARK: - Helpers

    private static func readInChunks(_ bytes: [UInt8], size: Int) throws -> [MotionSample] {
        var reader = TraceReader(source: "fuzz")
        var samples: [MotionSample] = []
        try bytes.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let end = min(all.count, start + size)
                try reader.feed(UnsafeRawBufferPointer(rebasing: all[start..<end])) { samples.append($0) }
                start = end
            }
        }
        try reader.finish { samples.append($0) }
        return samples
    }

    /// Equal, with NaN equal to NaN.
    private static func sameSample(_ a: MotionSample, _ b: MotionSample) -> Bool {
        func same(_ a: Double, _ b: Double) -> Bool { a == b || (a.isNaN && b.isNaN) }
        return same(a.time, b.time) && same(a.acceleration.x, b.acceleration.x)
            && same(a.acceleration.y, b.acceleration.y) && same(a.acceleration.z, b.acceleration.z)
    }

    private static func check(_ punch: Punch) {
        precondition(punch.time.isFinite, "a punch at a time that is not finite")
        precondition((1...100).contains(punch.damage), "damage outside 1...100")
    }
}

/// Reads little-endian fields from the front of a fuzz input.
private struct ByteCursor {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    mutating func byte() -> UInt8? { bytes.popFirst() }

    mutating func int16() -> Int16? { take(2).map { Int16(bitPattern: UInt16(truncatingIfNeeded: $0)) } }

    mutating func double() -> Double? { take(8).map { Double(bitPattern: $0) } }

    private mutating func take(_ count: Int) -> UInt64? {
        guard bytes.count >= count else { return nil }
        let value = bytes.prefix(count).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        bytes = bytes.dropFirst(count)
        return value
    }
}
