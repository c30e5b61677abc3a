import PunchKit
import Testing

@Suite struct GravityTrackerTests {
    @Test func settlesOnANewRestingReadingAfterAWhile() {
        // A sudden new reading is motion at first; held still, it is the new grip's gravity.
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0, 0, 1), interval: 0)
        for _ in 0..<50 { tracker.update(with: Vector3(0.6, 0, 0.8), interval: 0.01) }
        #expect(tracker.estimate == Vector3(0, 0, 1))
        for _ in 0..<350 { tracker.update(with: Vector3(0.6, 0, 0.8), interval: 0.01) }
        #expect((tracker.estimate - Vector3(0.6, 0, 0.8)).length < 0.01)
        #expect(tracker.seesGravity)
    }

    @Test func holdsStillThroughAPunch() {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0, 0, 1), interval: 0)
        for _ in 0..<50 { tracker.update(with: Vector3(0, 0, 1), interval: 0.01) }
        for step in 0..<30 { tracker.update(with: Vector3(step < 20 ? 4 : -9, 0, 1), interval: 0.01) }
        #expect((tracker.estimate - Vector3(0, 0, 1)).length < 0.01)
    }

    @Test func followsASlowTurnOfTheGrip() {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0, 0, 1), interval: 0)
        // A quarter turn over two seconds, at 100 Hz.
        let steps = 200
        for step in 0...steps {
            let angle = Double(step) / Double(steps) * Double.pi / 2
            // cos and sin by their series are not needed: points on the arc, normalised, will do.
            let point = Vector3(angle, 0, Double.pi / 2 - angle).normalized
            tracker.update(with: point, interval: 0.01)
        }
        for _ in 0..<100 { tracker.update(with: Vector3(1, 0, 0), interval: 0.01) }
        #expect((tracker.estimate - Vector3(1, 0, 0)).length < 0.05)
    }

    /// Turned over, the estimate crosses to the new gravity along a straight line, through
    /// lengths far below 1 g; it must still be gravity that it looks for on the way.
    @Test(arguments: [Vector3(0, 0, -1), Vector3(0.8, 0, -0.6), Vector3(0, -0.9, -0.44)])
    func settlesOnGravityAfterTheGripTurnsOver(newGravity: Vector3) {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0, 0, 1), interval: 0)
        for _ in 0..<100 { tracker.update(with: Vector3(0, 0, 1), interval: 0.01) }
        for _ in 0..<600 { tracker.update(with: newGravity, interval: 0.01) }
        #expect((tracker.estimate - newGravity).length < 0.01)
        #expect(tracker.seesGravity)
    }

    @Test func seesNoGravityInLinearAcceleration() {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0.01, -0.02, 0), interval: 0)
        for _ in 0..<100 { tracker.update(with: Vector3(0.01, 0, 0.02), interval: 0.01) }
        #expect(!tracker.seesGravity)
    }
}
