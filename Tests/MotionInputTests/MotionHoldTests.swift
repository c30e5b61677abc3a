import MotionInput
import PunchKit
import Testing

/// A hold's bounds on its own, without a server: what a sensor streams is taken, what none makes
/// is refused whole, and the punches are the detector's.
@Suite struct MotionHoldTests {
    /// The server's bounds: 200 Hz over 10 intervals with a tenth of tolerance, 5 s a hold after a
    /// lead-in of 2 s at most.
    static let limits = MotionHold.Limits(
        maximumRate: 200, rateWindow: 10, rateTolerance: 0.9, longestHold: 5, longestLead: 2)

    /// Samples at `rate` from `start`, a phone at rest, each interval off by up to `jitter` of it.
    static func samples(_ count: Int, rate: Double, from start: Double = 0, jitter: Double = 0) -> [MotionSample] {
        (0..<count).map { index in
            let wobble = jitter * (index % 2 == 0 ? 1 : -1) / rate
            return MotionSample(
                time: start + Double(index) / rate + wobble,
                acceleration: Vector3(0.01 * Double(index % 3), 1, 0.02))
        }
    }

    @Test func aSpikeIsNoPunchWithOrWithoutALeadIn() throws {
        // Three rows at 60 Hz, one of them 15 g: no arm makes that, and nothing lands.
        func spike(from start: Double) -> [MotionSample] {
            [0.0, 15, 0].enumerated().map { index, x in
                MotionSample(time: start + Double(index) / 60, acceleration: Vector3(x, 1, 0))
            }
        }
        let bare = MotionHold(limits: Self.limits)
        #expect(try bare.take(spike(from: 0)) == nil)
        #expect(bare.finish() == nil)
        // After 1.5 s of a phone at rest, the same: a quarter second's mean of one spike is small.
        let led = MotionHold(limits: Self.limits, pressed: 1.5)
        #expect(try led.take(Self.samples(90, rate: 60)) == nil)
        #expect(try led.take(spike(from: 1.5)) == nil)
        #expect(led.finish() == nil)
    }

    @Test func aPunchNeedsAQuarterSecondOfTheHoldBeforeItsStop() throws {
        // A swing from the hold's first sample: found once the hold spans a strength window before
        // its stop, not when the stream starts on it.
        func swing(from start: Double, stillFor still: Double) -> [MotionSample] {
            (0..<Int((still + 0.6) * 100)).map { index in
                let time = Double(index) / 100
                var x = 0.0
                if (still..<still + 0.12).contains(time) { x = 3 }
                if (still + 0.12..<still + 0.16).contains(time) { x = -9 }
                return MotionSample(time: start + time, acceleration: Vector3(x + Double(index % 3) * 0.01, 1, 0))
            }
        }
        let early = MotionHold(limits: Self.limits)
        let lateEnough = MotionHold(limits: Self.limits)
        var found = (early: try early.take(swing(from: 0, stillFor: 0)), late: try lateEnough.take(swing(from: 0, stillFor: 0.3)))
        found.early = found.early ?? early.finish()
        found.late = found.late ?? lateEnough.finish()
        #expect(found.early == nil, "a stop 0.16 s into the hold")
        #expect(found.late?.kind == .jab, "a stop 0.46 s into the hold")
    }

    @Test func aStreamExactlyAtTheBoundIsTakenAndOneJustFasterRefused() throws {
        // Ten intervals spanning exactly the 45 ms the bound allows, wherever the clock starts
        // (a phone's may count from its boot or from 1970): taken. 1 % faster: refused.
        for start in [0, 0.1, 3.3, 1_764_400_000.25] {
            let atTheBound = MotionHold(limits: Self.limits)
            #expect(throws: Never.self) { try atTheBound.take(Self.samples(40, rate: 200 / 0.9, from: start)) }
            #expect(atTheBound.count == 40, "from \(start)")
            let faster = MotionHold(limits: Self.limits)
            #expect(throws: MotionHold.Violation.self) { try faster.take(Self.samples(40, rate: 200 / 0.9 * 1.01, from: start)) }
        }
    }

    @Test func aSensorsRateIsTakenWithItsJitterAndAFasterOneIsRefused() throws {
        // 200 Hz with timestamps 20 % off either way: taken.
        let hold = MotionHold(limits: Self.limits)
        #expect(try hold.take(Self.samples(60, rate: 200, jitter: 0.2)) == nil)
        #expect(hold.count == 60)
        // 250 Hz and 5 kHz: refused, at the sample that completes 10 intervals too fast.
        for rate in [250.0, 5000] {
            let fast = MotionHold(limits: Self.limits)
            #expect(throws: MotionHold.Violation.self) { try fast.take(Self.samples(20, rate: rate)) }
            #expect(fast.count == 0, "a refused batch takes nothing")
        }
        // Too fast across two batches: the second is refused and the first stays taken.
        let split = MotionHold(limits: Self.limits)
        let fast = Self.samples(12, rate: 1000)
        _ = try split.take(Array(fast[0..<6]))
        #expect(throws: MotionHold.Violation.tooFast(index: 4, intervals: 10, seconds: fast[10].time - fast[0].time)) {
            try split.take(Array(fast[6...]))
        }
        #expect(split.count == 6)
    }

    @Test func timeGoesOnWithinABatchAndAcrossThem() throws {
        let hold = MotionHold(limits: Self.limits)
        let rows = Self.samples(10, rate: 100)
        _ = try hold.take(rows)
        #expect(throws: MotionHold.Violation.timeWentBack(index: 0, time: rows[9].time, previous: rows[9].time)) {
            try hold.take([rows[9]])
        }
        var back = Self.samples(3, rate: 100, from: 1)
        back[2].time = back[0].time
        #expect(throws: MotionHold.Violation.timeWentBack(index: 2, time: back[0].time, previous: back[1].time)) {
            try hold.take(back)
        }
    }

    @Test func aHoldLastsFiveSecondsOfItsSamplesAtMost() throws {
        let hold = MotionHold(limits: Self.limits)
        _ = try hold.take(Self.samples(61, rate: 60, from: 10))
        _ = try hold.take([MotionSample(time: 15, acceleration: Vector3(0, 1, 0.1))])
        #expect(hold.seconds == 5)
        #expect(throws: MotionHold.Violation.tooLong(index: 0, seconds: 5.25)) {
            try hold.take([MotionSample(time: 15.25, acceleration: Vector3(0, 1, 0.2))])
        }
    }

    @Test func aHoldKeepsTheWidthOfItsFirstSample() throws {
        let hold = MotionHold(limits: Self.limits)
        _ = try hold.take(Self.samples(3, rate: 60))
        var turning = Self.samples(1, rate: 60, from: 1)
        turning[0].rotationRate = Vector3(0.1, 0, 0)
        #expect(throws: MotionHold.Violation.gyroscopeChanged(index: 0, hadGyroscope: false)) { try hold.take(turning) }
    }

    /// The first punch the detector finds is the hold's, as `process(_:)` finds it on the same
    /// samples; the samples after it in the batch are not taken.
    @Test func theHoldsPunchIsTheDetectorsFirst() throws {
        let samples = Array(session.prefix { $0.time < session[0].time + 4.9 })
        var detector = PunchDetector()
        var expected: Punch?
        for sample in samples where expected == nil { expected = detector.process(sample) }
        let found = try #require(expected, "the session has a punch in its first 5 s")
        let hold = MotionHold(limits: MotionHold.Limits(maximumRate: 1000, rateWindow: 10, rateTolerance: 0.9, longestHold: 5))
        var punch: Punch?
        for start in stride(from: 0, to: samples.count, by: 64) where punch == nil {
            punch = try hold.take(Array(samples[start..<min(start + 64, samples.count)]))
        }
        #expect(punch == found)
        #expect(hold.count < samples.count)
    }

    @Test func aLeadInIsTwoSecondsAtMostAndTheHoldCountsFromThePress() throws {
        let early = MotionHold(limits: Self.limits, pressed: 10)
        #expect(throws: MotionHold.Violation.leadTooLong(index: 0, seconds: 2.5)) {
            try early.take([MotionSample(time: 7.5, acceleration: Vector3(0, 1, 0))])
        }
        let hold = MotionHold(limits: Self.limits, pressed: 10)
        _ = try hold.take(Self.samples(421, rate: 60, from: 8))
        #expect(hold.seconds == 7, "2 s of lead-in and 5 s of hold")
        #expect(throws: MotionHold.Violation.tooLong(index: 0, seconds: 5.25)) {
            try hold.take([MotionSample(time: 15.25, acceleration: Vector3(0, 1, 0.2))])
        }
    }

    /// The lead-in is read by the detector but no punch is found in it: the hold's punch is the
    /// detector's first from the press on, over the same samples, where the same samples held
    /// without a press would have given the punch before it.
    @Test func aPunchInTheLeadInIsReadButNotFound() throws {
        var whole = PunchDetector()
        var punch: Punch?
        for sample in session where punch == nil { punch = whole.process(sample) }
        let pressed = try #require(punch, "the session has a punch").time + 0.05
        let samples = Array(session.filter { $0.time >= pressed - 1.9 && $0.time <= pressed + 4.9 })
        var detector = PunchDetector()
        let found = samples.compactMap { detector.process($0) }
        try #require(found.first.map { $0.time < pressed } == true, "a punch before the press, in the lead-in")
        let expected = try #require(found.first { $0.time >= pressed }, "a punch after the press")
        let limits = MotionHold.Limits(maximumRate: 1000, rateWindow: 10, rateTolerance: 0.9, longestHold: 5, longestLead: 2)
        func held(pressed: Double?) throws -> Punch? {
            let hold = MotionHold(limits: limits, pressed: pressed)
            for start in stride(from: 0, to: samples.count, by: 64) {
                if let punch = try hold.take(Array(samples[start..<min(start + 64, samples.count)])) { return punch }
            }
            return hold.finish()
        }
        #expect(try held(pressed: pressed) == expected)
        #expect(try held(pressed: nil) == found.first)
    }
}
