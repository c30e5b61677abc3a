import PunchKit
import Testing

@testable import PunchSimulator

@Suite struct RotationTests {
    @Test func randomRotationsKeepLengthsAndAngles() {
        var random = SeededGenerator(seed: 3)
        for _ in 0..<50 {
            let rotation = Rotation.random(using: &random)
            let a = Vector3(0.3, -1.2, 0.7)
            let b = Vector3(-0.5, 0.1, 2)
            let ra = rotation.deviceFrame(of: a)
            let rb = rotation.deviceFrame(of: b)
            #expect(abs(ra.length - a.length) < 1e-12)
            #expect(abs(ra.dot(rb) - a.dot(b)) < 1e-12)
            #expect((rotation.worldFrame(of: ra) - a).length < 1e-12)
            // Proper rotations keep handedness: x × y = z.
            let x = rotation.worldFrame(of: Vector3(1, 0, 0))
            let y = rotation.worldFrame(of: Vector3(0, 1, 0))
            let z = rotation.worldFrame(of: Vector3(0, 0, 1))
            #expect((x.cross(y) - z).length < 1e-12)
        }
    }

    @Test func aQuarterTurnAboutXPutsTheDeviceYAxisUp() {
        let upright = Rotation(axis: Vector3(1, 0, 0), angle: .pi / 2)
        #expect((upright.worldFrame(of: Vector3(0, 1, 0)) - Vector3(0, 0, 1)).length < 1e-12)
        // So the device feels gravity's reaction along its +Y.
        #expect((upright.deviceFrame(of: Vector3(0, 0, 1)) - Vector3(0, 1, 0)).length < 1e-12)
    }
}

@Suite struct StrokeTests {
    /// Integrates a stroke's acceleration: the hand must end where it stopped, at rest.
    func velocityAfter(_ stroke: Stroke, steps: Int = 20_000) -> Vector3 {
        var velocity = Vector3.zero
        let dt = stroke.duration / Double(steps)
        for step in 0..<steps {
            velocity += stroke.acceleration(at: stroke.start + (Double(step) + 0.5) * dt) * dt
        }
        return velocity
    }

    @Test func aLineStrokeEndsAtRestAndPeaksAtItsStop() {
        let stroke = Stroke(
            path: .line(Vector3(1, 0, 0)), start: 1, topSpeed: 5, accelerating: 0.15, cruising: 0.02, stopping: 0.05)
        #expect(velocityAfter(stroke).length < 1e-3)
        // The stop's half sine peaks at V·π/(2·T): 157 m/s² here, pointing back.
        let atStopPeak = stroke.acceleration(at: stroke.stopStart + 0.025)
        #expect(abs(atStopPeak.x + 5 * Double.pi / 0.1) < 1e-6)
        #expect(stroke.acceleration(at: 0.5) == .zero)
        #expect(stroke.acceleration(at: 2) == .zero)
    }

    @Test func anArcStrokeEndsAtRestTurnedByItsSweep() {
        let radius = 0.4
        let stroke = Stroke(
            path: .arc(tangent: Vector3(1, 0, 0), up: Vector3(0, 0, 1), radius: radius, turn: 1), start: 0,
            topSpeed: 4, accelerating: 0.2, cruising: 0, stopping: 0.1)
        #expect(velocityAfter(stroke).length < 1e-2)
        // Halfway through at full speed, the pull toward the centre is v²/r.
        let mid = stroke.acceleration(at: 0.2)
        #expect(abs(mid.length - 16 / radius) < 1e-6)
    }
}

@Suite struct SessionTests {
    @Test func theSameSeedGivesTheSameTrace() {
        let a = Array(SessionPlan(seed: 5, punchCount: 4).samples)
        let b = Array(SessionPlan(seed: 5, punchCount: 4).samples)
        let c = Array(SessionPlan(seed: 6, punchCount: 4).samples)
        #expect(a == b)
        #expect(a != c)
    }

    @Test func labelsAreInOrderAndDoNotOverlap() {
        let plan = SessionPlan(seed: 8, punchCount: 30, kinds: PunchKind.allCases)
        let labels = plan.labels
        #expect(labels.count == 30)
        for (earlier, later) in zip(labels, labels.dropFirst()) {
            #expect(earlier.start < earlier.end)
            #expect(earlier.end < later.start)
        }
        #expect((labels.last?.end ?? 0) < plan.duration)
    }

    @Test func atRestTheSensorReadsOneGOfGravityOrNothingWithoutIt() {
        var sensor = SensorSettings()
        sensor.noise = 0
        var plan = SessionPlan(seed: 9, punchCount: 0, sensor: sensor, distractions: false)
        plan.sway = []
        plan.wobble = (0, 0.1)
        for sample in plan.samples.prefix(50) { #expect(abs(sample.acceleration.length - 1) < 1e-9) }
        plan.sensor.includesGravity = false
        for sample in plan.samples.prefix(50) { #expect(sample.acceleration.length < 1e-9) }
    }

    @Test func theSensorClipsHoldsAndKeepsItsRate() {
        var sensor = SensorSettings()
        sensor.range = 2
        sensor.rate = 50
        sensor.jitter = 0
        sensor.holdProbability = 0.2
        let samples = Array(SessionPlan(seed: 10, punchCount: 6, sensor: sensor).samples)
        let extremes = samples.map { max(abs($0.acceleration.x), abs($0.acceleration.y), abs($0.acceleration.z)) }
        #expect(extremes.allSatisfy { $0 <= 2 })
        #expect(extremes.contains(2))
        let held = zip(samples, samples.dropFirst()).filter { $0.acceleration == $1.acceleration }.count
        #expect(Double(held) / Double(samples.count) > 0.1)
        let intervals = zip(samples, samples.dropFirst()).map { $1.time - $0.time }
        #expect(intervals.allSatisfy { abs($0 - 0.02) < 1e-9 })
    }
}

/// The simulated gyroscope reads the turns the simulated device makes.
@Suite struct SimulatedGyroscopeTests {
    /// Following up from the gyroscope alone (no accelerometer correction) from the session's
    /// start keeps it where the device's orientation says, through every punch's twist and the
    /// grip's wobble.
    @Test func theGyroscopeFollowsTheDevicesOrientation() {
        var sensor = SensorSettings()
        sensor.gyroscope = true
        sensor.rate = 200
        sensor.jitter = 0
        sensor.noise = 0
        let plan = SessionPlan(seed: 21, punchCount: 10, sensor: sensor)
        // The gyroscope alone: no correction by the accelerometer, warming up or after.
        var filter = OrientationFilter(correctionTime: .infinity, calmTolerance: 0)
        filter.warmUp = 0
        var previous: MotionSample?
        var worst = 0.0
        for sample in plan.samples {
            let rate = sample.rotationRate ?? .zero
            if let previous {
                filter.update(
                    reading: sample.acceleration, rotationRate: (rate + (previous.rotationRate ?? .zero)) * 0.5,
                    interval: sample.time - previous.time)
            } else {
                filter.update(
                    reading: plan.orientation(at: sample.time).deviceFrame(of: Vector3(0, 0, 1)), rotationRate: .zero,
                    interval: 0)
            }
            previous = sample
            let truth = plan.orientation(at: sample.time).deviceFrame(of: Vector3(0, 0, 1))
            worst = max(worst, 1 - filter.up.dot(truth))
        }
        // Within a degree over the whole session (1 − cos 1° ≈ 1.5e-4).
        #expect(worst < 1.5e-4, "\(worst)")
        #expect(plan.samples.allSatisfy { $0.rotationRate != nil })
    }

    @Test func withoutAGyroscopeSamplesHaveNoRotationRate() {
        #expect(SessionPlan(seed: 21, punchCount: 2, sensor: SensorSettings()).samples.allSatisfy { $0.rotationRate == nil })
    }
}
