import FightEngine
import Testing

/// A punch names the sequence it was thrown at (`after`), and the referee judges it on the fight as
/// it is when the command is applied: what makes "nothing lands twice" hold inside the store's
/// transaction, whatever ran between the sender's look and the commit.
@Suite struct SequenceTests {
    /// The same punch sent again (a retry, or sent to two servers) is stale even once the turn has
    /// come back to its thrower, where a turn check alone would land it a second time.
    @Test func aPunchSentTwiceLandsOnceEvenWhenTheTurnComesBack() throws {
        var ring = Ring()
        let (fight, a, _) = try ring.startFight()
        let punch = Command.punch(fight, by: a, after: 2, kind: .jab, damage: 10)
        try ring.run(punch)
        #expect(ring.refusal(punch) == .stale(fight, lastSequence: 3, after: 2))
        // Bob lets his turn lapse: it is alice's again, at sequence 4.
        ring.now = ring.now + ring.referee.rules.turnTimeout
        try ring.run(.settleDeadlines)
        #expect(try ring.fight(fight).cornerAwaitingPunch(by: a, after: 4) == .challenger)
        #expect(ring.refusal(punch) == .stale(fight, lastSequence: 4, after: 2))
        #expect(try ring.fight(fight).stamina == Both(100, 90))
    }

    /// A punch that reaches the referee after its turn's deadline is stale, whether or not a
    /// scheduler saved the turn's passing first: the fight is brought up to now before `after` is
    /// looked at. Refused, it changes nothing (the passing is the scheduler's to save).
    @Test func aPunchRacingItsDeadlineIsStaleEitherWay() throws {
        var ring = Ring()
        let (fight, a, _) = try ring.startFight()
        let punch = Command.punch(fight, by: a, after: 2, kind: .jab, damage: 10)
        ring.now = ring.now + ring.referee.rules.turnTimeout
        let before = ring.state

        // The punch first: the deadline it would settle on the way makes it stale.
        #expect(ring.refusal(punch) == .stale(fight, lastSequence: 3, after: 2))
        #expect(ring.state == before)
        // The deadline first: the same.
        try ring.run(.settleDeadlines)
        #expect(ring.refusal(punch) == .stale(fight, lastSequence: 3, after: 2))
        #expect(try ring.fight(fight).stamina == Both(100, 100))
    }

    /// The reasons in the order a client can act on them: not in the fight, then stale, then
    /// over or out of turn. A sequence from the future is stale too.
    @Test func theReasonsComeInOrder() throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        let carol = try ring.register("carol")
        #expect(ring.refusal(.punch(fight, by: carol, after: 1, kind: .jab, damage: 5)) == .notInFight(carol, fight))
        #expect(ring.refusal(.punch(fight, by: b, after: 1, kind: .jab, damage: 5)) == .stale(fight, lastSequence: 2, after: 1))
        #expect(ring.refusal(.punch(fight, by: b, after: 2, kind: .jab, damage: 5)) == .waitYourTurn(fight))
        #expect(ring.refusal(.punch(fight, by: a, after: 9, kind: .jab, damage: 5)) == .stale(fight, lastSequence: 2, after: 9))
        #expect(
            ring.refusal(.timedPunch(fight, by: a, after: 1, kind: .jab, stoppedAfterMilliseconds: 500))
                == .stale(fight, lastSequence: 2, after: 1))
        try ring.run(.forfeit(fight, by: b))
        #expect(ring.refusal(.punch(fight, by: a, after: 2, kind: .jab, damage: 5)) == .stale(fight, lastSequence: 3, after: 2))
        #expect(ring.refusal(.punch(fight, by: a, after: 3, kind: .jab, damage: 5)) == .fightNotActive(fight))
    }

    /// What a client is told: the protocol's own words, as PROTOCOL.md shows them.
    @Test func aStalePunchSaysWhereTheFightIs() {
        #expect(
            Refusal.stale(FightID(7), lastSequence: 4, after: 3).description
                == "after: the fight is at sequence 4, the punch was thrown at 3; replay and throw again")
    }
}
