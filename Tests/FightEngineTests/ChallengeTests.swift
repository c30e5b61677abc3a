import FightEngine
import Testing

@Suite struct ChallengeTests {
    @Test func challengeThenAcceptStartsWithChallengersTurn() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob")
        let challenged = try ring.run(.challenge(a, opponent: b))
        let id = FightID(1)
        #expect(
            challenged == [
                .fight(
                    FightEvent(
                        fight: id, sequence: 1, at: ring.now,
                        change: .challenged(
                            challenger: a, opponent: b, expiresAt: ring.now + 86_400)))
            ])
        ring.now = ring.now + 30
        let accepted = try ring.run(.accept(id, by: b))
        #expect(
            accepted == [
                .fight(
                    FightEvent(
                        fight: id, sequence: 2, at: ring.now,
                        change: .accepted(
                            turn: Turn(fighter: a, deadline: ring.now + 60))))
            ])
        let fight = try ring.fight(id)
        #expect(fight.stamina == Both(100, 100))
        #expect(fight.phase == .active(turn: .challenger, deadline: ring.now + 60))
    }

    @Test func declineClosesTheChallenge() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob")
        try ring.run(.challenge(a, opponent: b))
        #expect(try ring.run(.decline(FightID(1), by: b)).fightChanges == [.declined])
        #expect(try ring.fight(FightID(1)).phase == .finished(.declined, at: ring.now))
        #expect(ring.refusal(.accept(FightID(1), by: b)) == .challengeNotPending(FightID(1)))
        // Declining frees the pair, and records do not change.
        try ring.run(.challenge(b, opponent: a))
        #expect(try ring.fighter(a).record == Record() && ring.fighter(b).record == Record())
    }

    @Test func onlyTheChallengedAnswers() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob"), c = try ring.register("carol")
        try ring.run(.challenge(a, opponent: b))
        #expect(ring.refusal(.accept(FightID(1), by: a)) == .notTheChallenged(a, FightID(1)))
        #expect(ring.refusal(.decline(FightID(1), by: a)) == .notTheChallenged(a, FightID(1)))
        #expect(ring.refusal(.accept(FightID(1), by: c)) == .notInFight(c, FightID(1)))
        #expect(ring.refusal(.accept(FightID(7), by: b)) == .unknownFight(FightID(7)))
    }

    @Test func challengeExpiresAfterADay() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob")
        let start = ring.now
        try ring.run(.challenge(a, opponent: b))
        ring.now = start + 86_399
        #expect(ring.refusal(.accept(FightID(1), by: b)) == nil)
        ring.now = start + 86_400
        #expect(ring.refusal(.accept(FightID(1), by: b)) == .challengeExpired(FightID(1)))
        // Nobody acting, the scheduler's settle records the expiry at the moment it happened.
        ring.now = start + 90_000
        let events = try ring.run(.settleDeadlines)
        #expect(events == [.fight(FightEvent(fight: FightID(1), sequence: 2, at: start + 86_400, change: .expired))])
        #expect(try ring.run(.settleDeadlines).isEmpty)
    }

    @Test func challengeLifetimeIsConfigurable() throws {
        var ring = Ring()
        ring.referee.rules.challengeLifetime = 10
        let a = try ring.register("alice"), b = try ring.register("bob")
        try ring.run(.challenge(a, opponent: b))
        ring.now = ring.now + 10
        #expect(ring.refusal(.accept(FightID(1), by: b)) == .challengeExpired(FightID(1)))
    }

    @Test func onePairOneOpenFight() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob"), c = try ring.register("carol")
        try ring.run(.challenge(a, opponent: b))
        #expect(ring.refusal(.challenge(a, opponent: b)) == .pairAlreadyFighting(FightID(1)))
        #expect(ring.refusal(.challenge(b, opponent: a)) == .pairAlreadyFighting(FightID(1)))
        try ring.run(.accept(FightID(1), by: b))
        #expect(ring.refusal(.challenge(b, opponent: a)) == .pairAlreadyFighting(FightID(1)))
        // Several fights at once with different fighters are fine.
        try ring.run(.challenge(a, opponent: c))
        try ring.run(.challenge(c, opponent: b))
        #expect(ring.state.opponents(of: a) == [b, c])
    }

    @Test func anExpiredChallengeFreesThePair() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob")
        try ring.run(.challenge(a, opponent: b))
        ring.now = ring.now + 86_400
        let events = try ring.run(.challenge(b, opponent: a))
        #expect(
            events.fightChanges == [.expired, .challenged(challenger: b, opponent: a, expiresAt: ring.now + 86_400)])
    }

    @Test func refusesSelfAndStrangers() throws {
        var ring = Ring()
        let a = try ring.register("alice")
        #expect(ring.refusal(.challenge(a, opponent: a)) == .cannotChallengeSelf)
        #expect(ring.refusal(.challenge(a, opponent: FighterID(42))) == .unknownFighter(FighterID(42)))
        #expect(ring.refusal(.challenge(FighterID(42), opponent: a)) == .unknownFighter(FighterID(42)))
    }
}
