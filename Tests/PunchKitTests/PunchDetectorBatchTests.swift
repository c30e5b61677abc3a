import PunchSimulator
import Testing

@testable import PunchKit

/// `process(_:found:)`, which a trace is fed through, must find exactly the punches that feeding
/// sample by sample finds, however the trace is cut into buffers and whatever junk is in it.
@Suite struct PunchDetectorBatchTests {
    /// The punches of feeding `samples` one at a time.
    func sampleBySample(_ samples: [MotionSample]) -> [Punch] {
        var detector = PunchDetector()
        var punches = samples.compactMap { detector.process($0) }
        if let last = detector.finish() { punches.append(last) }
        return punches
    }

    /// The punches of feeding `samples` in buffers of random lengths up to `longest`, every
    /// `bySampleEvery`-th of them sample by sample instead.
    func inBuffers(_ samples: [MotionSample], longest: Int, bySampleEvery: Int = 0, seed: UInt64) -> [Punch] {
        var random = SeededGenerator(seed: seed)
        var detector = PunchDetector()
        var punches: [Punch] = []
        var start = 0
        var buffers = 0
        samples.withUnsafeBufferPointer { all in
            while start < all.count {
                let end = min(all.count, start + Int.random(in: 1...longest, using: &random))
                buffers += 1
                if bySampleEvery > 0 && buffers % bySampleEvery == 0 {
                    for sample in all[start..<end] { detector.process(sample).map { punches.append($0) } }
                } else {
                    detector.process(UnsafeBufferPointer(rebasing: all[start..<end])) { punches.append($0) }
                }
                start = end
            }
        }
        if let last = detector.finish() { punches.append(last) }
        return punches
    }

    func session(rate: Double, seed: UInt64, flawed: Bool) -> [MotionSample] {
        var sensor = SensorSettings()
        sensor.rate = rate
        if flawed {
            sensor.holdProbability = 0.1
            sensor.dropProbability = 0.05
            sensor.range = 4
        }
        let samples = Array(SessionPlan(seed: seed, punchCount: 12, kinds: PunchKind.allCases, sensor: sensor).samples)
        return flawed ? strewJunk(through: samples, seed: seed) : samples
    }

    @Test(arguments: [25.0, 100, 400], [false, true])
    func findsWhatSampleBySampleFinds(rate: Double, flawed: Bool) {
        for seed in 0..<3 as Range<UInt64> {
            let samples = session(rate: rate, seed: 90 + seed, flawed: flawed)
            let expected = sampleBySample(samples)
            #expect(expected.count >= 8)
            // One buffer, short buffers that cut through every stretch, and a mix with sample by sample.
            #expect(inBuffers(samples, longest: samples.count, seed: seed) == expected)
            #expect(inBuffers(samples, longest: 7, seed: seed) == expected)
            #expect(inBuffers(samples, longest: 300, bySampleEvery: 2, seed: seed) == expected)
        }
    }

    @Test func silencesWithinABufferStartAfresh() {
        // Holes of a second, longer than the longest gap, cut out of a session: each starts the
        // detector afresh, in the middle of a buffer as between samples.
        let samples = session(rate: 100, seed: 4, flawed: false).filter { sample in
            !stride(from: 5.0, to: 60, by: 7).contains { hole in (hole..<hole + 1).contains(sample.time) }
        }
        let expected = sampleBySample(samples)
        #expect(expected.count >= 8)
        #expect(inBuffers(samples, longest: samples.count, seed: 1) == expected)
        #expect(inBuffers(samples, longest: 50, seed: 2) == expected)
    }

    @Test func linearAccelerationIsWhatSampleBySampleLeaves() {
        // What `hitthat plot` reads after each sample, the batch path must leave after each buffer.
        var random = SeededGenerator(seed: 11)
        let samples = session(rate: 100, seed: 5, flawed: true)
        var bySample = PunchDetector()
        var inBuffers = PunchDetector()
        var start = 0
        var moving = 0
        samples.withUnsafeBufferPointer { all in
            while start < all.count {
                let end = min(all.count, start + Int.random(in: 1...9, using: &random))
                for sample in all[start..<end] { _ = bySample.process(sample) }
                inBuffers.process(UnsafeBufferPointer(rebasing: all[start..<end])) { _ in }
                #expect(inBuffers.linearAcceleration == bySample.linearAcceleration)
                if bySample.linearAcceleration.length > 1 { moving += 1 }
                start = end
            }
        }
        #expect(moving > 10)
    }

    @Test func anEmptyBufferChangesNothing() {
        let samples = session(rate: 100, seed: 3, flawed: false)
        var detector = PunchDetector()
        var punches: [Punch] = []
        for sample in samples {
            detector.process(UnsafeBufferPointer(start: nil, count: 0)) { punches.append($0) }
            detector.process(sample).map { punches.append($0) }
        }
        if let last = detector.finish() { punches.append(last) }
        #expect(punches == sampleBySample(samples))
    }
}
