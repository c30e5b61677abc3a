import PunchSimulator
import Testing

@testable import PunchKit

// MARK: - Helpers

/// Runs the detector over a simulated session and scores it against the session's labels.
func detect(
    _ plan: SessionPlan, configuration: DetectorConfiguration = DetectorConfiguration(),
    transform: (Vector3) -> Vector3 = { $0 }
) -> (punches: [Punch], evaluation: Evaluation) {
    var configuration = configuration
    configuration.hand = plan.hand
    var detector = PunchDetector(configuration: configuration)
    var punches: [Punch] = []
    // Fed as a trace is, all at once: `PunchDetectorBatchTests` shows it finds what feeding
    // sample by sample finds.
    let seen = plan.samples.map { MotionSample(time: $0.time, acceleration: transform($0.acceleration)) }
    seen.withUnsafeBufferPointer { detector.process($0) { punches.append($0) } }
    if let punch = detector.finish() { punches.append(punch) }
    let evaluation = Evaluation(detections: punches.map { ($0.time, $0.kind) }, labels: plan.labels)
    return (punches, evaluation)
}

/// `samples` with junk strewn through them, as real recordings have it: a first sample with no
/// time, and before one sample in twenty a reading that is not a number, a time that is not one or
/// goes back, or the last sample again.
func strewJunk(through samples: [MotionSample], seed: UInt64) -> [MotionSample] {
    var random = SeededGenerator(seed: seed)
    var strewn = [MotionSample(time: .nan, acceleration: Vector3(0, 0, 1))]
    for sample in samples {
        if random.chance(0.05), let last = strewn.last {
            let junk = [
                MotionSample(time: sample.time, acceleration: Vector3(.nan, 0, 1)),
                MotionSample(time: sample.time, acceleration: Vector3(0, -.infinity, 1)),
                MotionSample(time: .infinity, acceleration: sample.acceleration),
                MotionSample(time: last.time - 0.01, acceleration: sample.acceleration),
                last,
            ]
            strewn.append(junk[Int.random(in: 0..<junk.count, using: &random)])
        }
        strewn.append(sample)
    }
    return strewn
}

/// Scores many random sessions together.
func detectMany(
    seeds: Range<UInt64>, kinds: [PunchKind] = [.jab, .uppercut],
    sensor: (inout SeededGenerator) -> SensorSettings = { _ in SensorSettings() },
    hand: Hand? = nil, grip: Rotation? = nil, configuration: DetectorConfiguration = DetectorConfiguration()
) -> Evaluation {
    var total = Evaluation()
    for seed in seeds {
        var random = SeededGenerator(seed: seed &* 7919 &+ 17)
        let settings = sensor(&random)
        let chosenHand = hand ?? (random.chance(0.5) ? .left : .right)
        let plan = SessionPlan(seed: seed, punchCount: 10, kinds: kinds, hand: chosenHand, sensor: settings, grip: grip)
        total.add(detect(plan, configuration: configuration).evaluation)
    }
    return total
}

/// The rotations that put each device axis, either way, along the world's up.
let axisAlignedGrips: [Rotation] = [
    .identity,
    Rotation(axis: Vector3(1, 0, 0), angle: .pi),
    Rotation(axis: Vector3(1, 0, 0), angle: .pi / 2),
    Rotation(axis: Vector3(1, 0, 0), angle: -.pi / 2),
    Rotation(axis: Vector3(0, 1, 0), angle: .pi / 2),
    Rotation(axis: Vector3(0, 1, 0), angle: -.pi / 2),
]

// MARK: - Properties over simulated sessions

@Suite struct PunchDetectorPropertyTests {
    @Test func findsEveryPunchOnceWithItsKindInRandomGrips() {
        let result = detectMany(seeds: 0..<40)
        #expect(result.detection.f1 >= 0.97)
        #expect(result.kindAccuracy >= 0.9)
    }

    @Test(arguments: axisAlignedGrips.indices)
    func anyGripFindsEveryPunch(grip: Int) {
        let result = detectMany(seeds: 100..<110, grip: axisAlignedGrips[grip])
        #expect(result.detection.f1 >= 0.95)
        #expect(result.kindAccuracy >= 0.85)
    }

    /// One stream, the grip turned over between two sessions (the phone put down and taken up
    /// the other way up): after the turn, punches are found and told apart as well as before.
    /// Both turns take the gravity estimate through lengths below half a g on its way across.
    @Test(arguments: [Rotation(axis: Vector3(1, 0, 0), angle: .pi), Rotation(axis: Vector3(0, 1, 0), angle: 0.7 * .pi)])
    func punchesAfterTheGripTurnsOverAreFoundWithTheirKinds(turn: Rotation) {
        var detector = PunchDetector()
        var offset = 0.0
        var afterTurn = Evaluation()
        for (seed, grip) in [(UInt64(300), Rotation.identity), (301, turn)] {
            let plan = SessionPlan(seed: seed, punchCount: 20, kinds: [.jab, .uppercut], grip: grip)
            var found: [(time: Double, kind: PunchKind)] = []
            for sample in plan.samples {
                let shifted = MotionSample(time: offset + sample.time, acceleration: sample.acceleration)
                if let punch = detector.process(shifted) { found.append((punch.time, punch.kind)) }
            }
            let labels = plan.labels.map { label in
                var shifted = label
                shifted.start += offset
                shifted.end += offset
                return shifted
            }
            afterTurn = Evaluation(detections: found, labels: labels)
            offset += plan.duration + 0.01
        }
        #expect(afterTurn.detection.f1 >= 0.95)
        #expect(afterTurn.kindAccuracy >= 0.9)
    }

    @Test(arguments: [Hand.left, .right])
    func eitherHandFindsEveryPunch(hand: Hand) {
        let result = detectMany(seeds: 200..<220, hand: hand)
        #expect(result.detection.f1 >= 0.97)
        #expect(result.kindAccuracy >= 0.9)
    }

    @Test(arguments: [25.0, 50, 100, 200, 400])
    func everyRateFromTwentyFiveToFourHundredHertz(rate: Double) {
        let result = detectMany(seeds: 300..<320) { random in
            var sensor = SensorSettings()
            sensor.rate = rate
            sensor.jitter = 0.1
            sensor.averages = random.chance(0.5)
            return sensor
        }
        #expect(result.detection.f1 >= 0.95, "at \(rate) Hz")
        #expect(result.kindAccuracy >= 0.85, "at \(rate) Hz")
    }

    @Test func realRecordingFlawsTogether() {
        let result = detectMany(seeds: 400..<440) { SensorSettings.random(using: &$0) }
        #expect(result.detection.f1 >= 0.95)
        #expect(result.kindAccuracy >= 0.85)
    }

    @Test(arguments: [2.0, 4.0])
    func clippedSensorsStillFindPunchesAndSayTheyClipped(range: Double) {
        var sensor = SensorSettings()
        sensor.range = range
        let plan = SessionPlan(seed: 7, punchCount: 10, sensor: sensor)
        let (punches, evaluation) = detect(plan)
        #expect(evaluation.detection.f1 >= 0.9)
        #expect(punches.contains { $0.clipped })
    }

    @Test func heldAndLostSamplesDoNotSplitOrLosePunches() {
        let result = detectMany(seeds: 500..<520) { _ in
            var sensor = SensorSettings()
            sensor.holdProbability = 0.15
            sensor.dropProbability = 0.03
            return sensor
        }
        #expect(result.detection.f1 >= 0.95)
    }

    @Test func signFlippedDevicesClassifyTheSame() {
        // iOS reports the negated specific force: rest reads −1 g up. Up and the thrust flip
        // together, so jabs and uppercuts must come out the same.
        let plan = SessionPlan(seed: 11, punchCount: 12)
        let plain = detect(plan).punches.map(\.kind)
        let flipped = detect(plan, transform: { -$0 }).punches.map(\.kind)
        #expect(plain == flipped)
        #expect(plain.count == 12)
    }

    @Test func hooksAreFoundAsPunchesAndToldApartOnRequest() {
        let plain = detectMany(seeds: 600..<630, kinds: [.hook])
        #expect(plain.detection.f1 >= 0.93)
        #expect(plain.count(labelled: .hook, detected: .hook) == 0)
        var hooks = DetectorConfiguration()
        hooks.reportsHooks = true
        let told = detectMany(seeds: 600..<630, kinds: [.hook], configuration: hooks)
        #expect(told.detection == plain.detection)
        #expect(told.count(labelled: .hook, detected: .hook) > 0)
        let jabs = detectMany(seeds: 630..<650, kinds: [.jab], configuration: hooks)
        #expect(jabs.count(labelled: .jab, detected: .hook) <= 3)
    }

    @Test func damageGrowsWithForce() {
        var sensor = SensorSettings()
        sensor.range = 64
        var previous: [Int]?
        for force in [0.7, 0.85, 1.0, 1.2] {
            let plan = SessionPlan(seed: 21, punchCount: 8, sensor: sensor, force: force, distractions: false)
            let damage = detect(plan).punches.map(\.damage)
            #expect(damage.count == 8, "force \(force)")
            if let previous, previous.count == damage.count {
                #expect(zip(previous, damage).allSatisfy { $0 <= $1 }, "force \(force): \(previous) then \(damage)")
            }
            previous = damage
        }
    }

    @Test func punchesAreDecidedWithinAFewSamplesOfTheirPeak() {
        for rate in [25.0, 100, 400] {
            var sensor = SensorSettings()
            sensor.rate = rate
            let plan = SessionPlan(seed: 31, punchCount: 10, sensor: sensor)
            let interval = 1 / rate
            for punch in detect(plan).punches {
                #expect(punch.decidedAt - punch.time <= DetectorConfiguration().confirmationDelay + 1.6 * interval)
            }
        }
    }

    @Test func linearAccelerationFallsBackToTheDeviceUpAxis() {
        // Without gravity in the data there is no up to find: the original's upright grip is assumed.
        var sensor = SensorSettings()
        sensor.includesGravity = false
        let upright = Rotation(axis: Vector3(1, 0, 0), angle: .pi / 2)  // device Y along world up
        let plan = SessionPlan(seed: 41, punchCount: 10, sensor: sensor, grip: upright)
        let (_, evaluation) = detect(plan)
        #expect(evaluation.detection.f1 >= 0.95)
        #expect(evaluation.kindAccuracy >= 0.85)
    }
}

// MARK: - Hand-made signals

@Suite struct PunchDetectorSignalTests {
    /// A device at rest with gravity along +Z, with `pulses` of linear acceleration (g) added:
    /// each a half sine along a direction, starting at a time and lasting a duration.
    func signal(
        rate: Double = 200, duration: Double = 3, pulses: [(start: Double, length: Double, vector: Vector3)]
    ) -> [MotionSample] {
        let count = Int(duration * rate)
        return (0..<count).map { index in
            let t = Double(index) / rate
            var a = Vector3(0, 0, 1)
            for pulse in pulses where t > pulse.start && t < pulse.start + pulse.length {
                let phase = (t - pulse.start) / pulse.length
                a += pulse.vector * halfSine(phase)
            }
            return MotionSample(time: t, acceleration: a)
        }
    }

    func halfSine(_ phase: Double) -> Double {
        // sin(π x) from its Taylor series would be overkill here: a parabola has the same shape.
        4 * phase * (1 - phase)
    }

    func run(_ samples: [MotionSample]) -> [Punch] {
        var detector = PunchDetector()
        var punches = samples.compactMap { detector.process($0) }
        if let last = detector.finish() { punches.append(last) }
        return punches
    }

    @Test func aThrustThenAStopIsOneJab() {
        let punches = run(signal(pulses: [(1.0, 0.15, Vector3(4, 0, 0)), (1.15, 0.05, Vector3(-10, 0, 0))]))
        #expect(punches.count == 1)
        #expect(punches.first?.kind == .jab)
        #expect(punches.first.map { abs($0.time - 1.175) < 0.01 } == true)
        #expect(punches.first?.damage == 40)
    }

    @Test func anUpwardThrustThenAStopIsOneUppercut() {
        let punches = run(signal(pulses: [(1.0, 0.15, Vector3(1, 0, 4)), (1.15, 0.06, Vector3(-2, 0, -9))]))
        #expect(punches.map(\.kind) == [.uppercut])
    }

    @Test func aStopWithNoThrustBeforeItIsNotAPunch() {
        // A bump: a sharp jolt out of rest.
        #expect(run(signal(pulses: [(1.0, 0.02, Vector3(0, 6, 0))])).isEmpty)
    }

    /// A stop must be sharp: at least `stopSharpness` of the thrust's strongest push. The same
    /// 10 g stop ends a punch after an 8 g thrust, and after a 14 g one only if the rule is eased.
    @Test(arguments: [(8.0, 0.8, 1), (14.0, 0.8, 0), (14.0, 0.5, 1)])
    func aStopWeakerThanItsThrustIsNotAPunch(thrust: Double, sharpness: Double, punches: Int) {
        var configuration = DetectorConfiguration()
        configuration.stopSharpness = sharpness
        var detector = PunchDetector(configuration: configuration)
        let samples = signal(pulses: [(1.0, 0.15, Vector3(thrust, 0, 0)), (1.15, 0.05, Vector3(-10, 0, 0))])
        #expect(samples.compactMap { detector.process($0) }.count == punches)
    }

    @Test func aThrustThatFadesWithoutAStopIsNotAPunch() {
        #expect(run(signal(pulses: [(1.0, 0.4, Vector3(1.5, 0, 0)), (1.4, 0.4, Vector3(-1.5, 0, 0))])).isEmpty)
    }

    @Test func theRetractionIsNotASecondPunch() {
        let punches = run(
            signal(pulses: [
                (1.0, 0.15, Vector3(4, 0, 0)), (1.15, 0.05, Vector3(-10, 0, 0)),
                (1.25, 0.2, Vector3(-3, 0, 0)), (1.45, 0.1, Vector3(6, 0, 0)),
            ]))
        #expect(punches.count == 1)
    }

    @Test func twoJabsInARowAreTwoPunches() {
        let punches = run(
            signal(pulses: [
                (0.5, 0.15, Vector3(4, 0, 0)), (0.65, 0.05, Vector3(-10, 0, 0)),
                (1.3, 0.15, Vector3(4, 0, 0)), (1.45, 0.05, Vector3(-10, 0, 0)),
            ]))
        #expect(punches.map(\.kind) == [.jab, .jab])
    }

    @Test func aStopBelowTheTriggerIsNotAPunch() {
        var configuration = DetectorConfiguration()
        configuration.trigger = 12
        var detector = PunchDetector(configuration: configuration)
        let samples = signal(pulses: [(1.0, 0.15, Vector3(4, 0, 0)), (1.15, 0.05, Vector3(-10, 0, 0))])
        #expect(samples.compactMap { detector.process($0) }.isEmpty)
    }

    /// What is passed over leaves no trace: a session with junk strewn through it (readings and
    /// times that are not numbers or infinite, steps back in time, exact repeats, junk first)
    /// gives the very punches of the session alone, to the last bit.
    @Test(arguments: 0..<4 as Range<UInt64>)
    func junkLeavesNoTrace(seed: UInt64) {
        let clean = Array(SessionPlan(seed: 60 + seed, punchCount: 10).samples)
        let strewn = strewJunk(through: clean, seed: seed)
        #expect(strewn.count > clean.count + 20)
        #expect(run(strewn) == run(clean))
    }

    @Test func heldRepeatedAndBrokenSamplesAreHarmless() {
        var samples = signal(pulses: [(1.0, 0.15, Vector3(4, 0, 0)), (1.15, 0.05, Vector3(-10, 0, 0))])
        // Every sample twice (sample-and-hold), then garbage that must be passed over.
        samples = samples.flatMap { [$0, $0] }
        samples.insert(MotionSample(time: 0.5, acceleration: Vector3(.nan, 0, 1)), at: 100)
        samples.insert(MotionSample(time: 0.1, acceleration: Vector3(0, 0, .infinity)), at: 120)
        #expect(run(samples).count == 1)
    }

    @Test func anAbsurdButFiniteStopDoesTheMostDamageAndNoHarm() {
        // A one-sample stop of 1e150 g after a thrust (its square still finite): the damage must be
        // capped, not overflow an Int.
        let punches = run(signal(pulses: [(1.0, 0.15, Vector3(4, 0, 0)), (1.15, 0.01, Vector3(-1e150, 0, 0))]))
        #expect(punches.map(\.damage) == [100])
    }

    @Test func damageIsFourPerGAndCapped() {
        var configuration = DetectorConfiguration()
        configuration.maximumDamage = 30
        var detector = PunchDetector(configuration: configuration)
        let samples = signal(pulses: [(1.0, 0.15, Vector3(4, 0, 0)), (1.15, 0.05, Vector3(-10, 0, 0))])
        let punches = samples.compactMap { detector.process($0) }
        #expect(punches.map(\.damage) == [30])
    }

    @Test func linearAccelerationIsTheReadingLessGravityAndTheThresholdTheTrigger() {
        var configuration = DetectorConfiguration()
        configuration.trigger = 2.5
        var detector = PunchDetector(configuration: configuration)
        #expect(detector.linearAcceleration == .zero && detector.threshold == 2.5)
        // The first sample only seeds gravity; the next is measured against it.
        _ = detector.process(MotionSample(time: 0, acceleration: Vector3(0, 0, 1)))
        #expect(detector.linearAcceleration == .zero)
        _ = detector.process(MotionSample(time: 0.01, acceleration: Vector3(0.001, 0, 1)))
        #expect((detector.linearAcceleration - Vector3(0.001, 0, 0)).length < 1e-9)
        // A jolt is measured against gravity as it stood; a reading passed over changes nothing.
        _ = detector.process(MotionSample(time: 0.02, acceleration: Vector3(0, 3, 1)))
        let jolt = detector.linearAcceleration
        #expect((jolt - Vector3(0, 3, 0)).length < 0.01)
        _ = detector.process(MotionSample(time: 0.03, acceleration: Vector3(.nan, 0, 1)))
        #expect(detector.linearAcceleration == jolt)
        #expect(detector.threshold == 2.5)
    }
}

@Suite struct FullScaleTests {
    @Test(arguments: [
        (Vector3(8, 0.3, -1), true), (Vector3(0.2, -4, 1), true), (Vector3(0, 0, 15.99), true),
        (Vector3(2.001, 0, 0), true), (Vector3(7.5, 0, 1), false), (Vector3(0, 1, 0), false),
        (Vector3(3, -5, 12), false),
    ])
    func readingsAtACommonRangeAreClipped(reading: Vector3, clipped: Bool) {
        #expect(isFullScale(reading) == clipped)
    }
}

@Suite struct MotionSampleTests {
    /// The detector's one test for all four numbers: any infinity or NaN, anywhere, fails it;
    /// huge but finite readings pass (1e308 − 1e308 is 0, not an overflow).
    @Test(arguments: [
        (MotionSample(time: 1, acceleration: Vector3(0.1, -0.2, 1)), true),
        (MotionSample(time: -0.0, acceleration: Vector3(-0.0, 0, -0.0)), true),
        (MotionSample(time: 1e300, acceleration: Vector3(1e308, -1e308, .leastNonzeroMagnitude)), true),
        (MotionSample(time: .nan, acceleration: Vector3(0, 0, 1)), false),
        (MotionSample(time: .infinity, acceleration: Vector3(0, 0, 1)), false),
        (MotionSample(time: 1, acceleration: Vector3(.nan, 0, 1)), false),
        (MotionSample(time: 1, acceleration: Vector3(0, -.infinity, 1)), false),
        (MotionSample(time: 1, acceleration: Vector3(0, 0, .infinity)), false),
        (MotionSample(time: 1, acceleration: Vector3(.infinity, -.infinity, 0)), false),
    ])
    func finiteMeansEveryNumberIsFinite(sample: MotionSample, finite: Bool) {
        #expect(sample.isFinite == finite)
        #expect(sample.isFinite == (sample.time.isFinite && sample.acceleration.isFinite))
    }
}
