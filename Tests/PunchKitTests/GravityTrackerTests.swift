import PunchKit
import Testing

@Suite struct GravityTrackerTests {
    @Test func settlesOnANewGripWithinAFewTimeConstants() {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0, 0, 1), interval: 0)
        for _ in 0..<30 { tracker.update(with: Vector3(0.6, 0, 0.8), interval: 0.01) }
        // 0.3 s is half a time constant: well on the way, not there.
        #expect((tracker.estimate - Vector3(0.6, 0, 0.8)).length > 0.2)
        for _ in 0..<300 { tracker.update(with: Vector3(0.6, 0, 0.8), interval: 0.01) }
        #expect((tracker.estimate - Vector3(0.6, 0, 0.8)).length < 0.01)
        #expect(tracker.seesGravity)
    }

    @Test func aPunchMovesTheEstimateLittle() {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0, 0, 1), interval: 0)
        for _ in 0..<50 { tracker.update(with: Vector3(0, 0, 1), interval: 0.01) }
        // A thrust of 4 g for 0.15 s and a stop of −9 g for 0.07 s: what they build mostly cancels.
        for step in 0..<22 { tracker.update(with: Vector3(step < 15 ? 4 : -9, 0, 1), interval: 0.01) }
        // During it the estimate swings by up to a g; once it is over, it is back near gravity.
        #expect((tracker.estimate - Vector3(0, 0, 1)).length < 0.3)
        for _ in 0..<300 { tracker.update(with: Vector3(0, 0, 1), interval: 0.01) }
        #expect((tracker.estimate - Vector3(0, 0, 1)).length < 0.01)
    }

    @Test(arguments: [Vector3(0, 0, -1), Vector3(0.8, 0, -0.6), Vector3(0, -0.9, -0.44)])
    func settlesOnGravityAfterTheGripTurnsOver(newGravity: Vector3) {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0, 0, 1), interval: 0)
        for _ in 0..<100 { tracker.update(with: Vector3(0, 0, 1), interval: 0.01) }
        for _ in 0..<600 { tracker.update(with: newGravity, interval: 0.01) }
        #expect((tracker.estimate - newGravity).length < 0.01)
        #expect(tracker.seesGravity)
    }

    @Test func aGapLongerThanTheTimeConstantTakesTheNewReadingWhole() {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0, 0, 1), interval: 0)
        tracker.update(with: Vector3(1, 0, 0), interval: 5)
        #expect(tracker.estimate == Vector3(1, 0, 0))
    }

    @Test func seesGravityOnceTheEstimateHasItsLengthThoughTheFirstReadingHadNot() {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0.5, 0, 0), interval: 0)
        #expect(!tracker.seesGravity)
        for _ in 0..<100 { tracker.update(with: Vector3(0, 0, 1), interval: 0.01) }
        #expect(tracker.seesGravity)
        // And keeps it: a grip turned over takes the estimate through short lengths on its way.
        for _ in 0..<30 { tracker.update(with: Vector3(0, 0, -1), interval: 0.01) }
        #expect(tracker.estimate.length < 0.7)
        #expect(tracker.seesGravity)
    }

    @Test func seesNoGravityInLinearAcceleration() {
        var tracker = GravityTracker()
        tracker.update(with: Vector3(0.01, -0.02, 0), interval: 0)
        for _ in 0..<100 { tracker.update(with: Vector3(0.01, 0, 0.02), interval: 0.01) }
        #expect(!tracker.seesGravity)
    }
}
