import PunchKit
import Testing

/// A player's usual punch, followed over their last punches: what a punch's damage is measured
/// against without a profile.
@Suite struct UsualPunchTests {
    @Test func aNewPlayerIsMeasuredAsOneHoldingTheDeviceInTheHand() {
        let usual = UsualPunch()
        #expect(usual.peakG == PunchProfile.usualPeakG)
        #expect(usual.scale == 1)
    }

    @Test func aSoftGripIsFollowedFromTheSecondPunch() {
        var usual = UsualPunch()
        usual.note(2.25)
        #expect(usual.scale == 1, "one punch against the hand-held usual: the median is still it")
        usual.note(2.25)
        #expect(usual.peakG == 2.25)
        #expect(usual.scale == 4)
    }

    @Test func oneWildReadingMovesNothing() {
        var usual = UsualPunch()
        for _ in 0..<5 { usual.note(3) }
        usual.note(30)
        #expect(usual.peakG == 3)
    }

    @Test func aNewGripIsFollowedWithinAFewPunchesAndTheOldOneForgotten() {
        var usual = UsualPunch()
        for _ in 0..<8 { usual.note(12) }
        var punches = 0
        while usual.peakG != 3 {
            usual.note(3)
            punches += 1
        }
        #expect(punches == 5, "the median of the last eight turns over after five")
        for _ in 0..<8 { usual.note(3) }
        usual.note(12)
        #expect(usual.peakG == 3, "the old grip's punches are gone from the last eight")
    }

    @Test func whatIsNoPeakIsPassedOver() {
        var usual = UsualPunch()
        for _ in 0..<3 { usual.note(4) }
        for bad in [0, -2, .nan, .infinity] { usual.note(bad) }
        #expect(usual.peakG == 4)
    }

    @Test func aGentlePlayerIsNotScaledPastTheLeastUsualPeak() {
        var usual = UsualPunch()
        for _ in 0..<4 { usual.note(0.5) }
        #expect(usual.peakG == 0.5)
        #expect(usual.scale == PunchProfile.usualPeakG / UsualPunch.leastPeakG)
    }

    @Test func aCopyHeldStillTakesNothingIn() {
        var usual = UsualPunch()
        for _ in 0..<3 { usual.note(4) }
        var still = usual.heldStill
        for _ in 0..<3 { still.note(12) }
        #expect(still.peakG == 4)
        #expect(still.scale == usual.scale)
    }
}
