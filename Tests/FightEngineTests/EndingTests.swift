import FightEngine
import Testing

@Suite struct EndingTests {
    @Test func knockoutEndsTheFightAndChangesRecordsOnce() throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        // Two uppercuts at their ceiling floor a fighter: over the ceiling, a stated damage lands
        // the ceiling.
        let ceiling = ring.referee.rules.meter.uppercut.ceiling
        try #require(2 * ceiling >= ring.referee.rules.startingStamina)
        try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .uppercut, damage: 60))
        try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 10))
        // Alice has thrown more: her knockout is answered, Bob throwing once more, down.
        let knockout = try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .uppercut, damage: 60))
        let answer = Turn(fighter: b, deadline: ring.now + 60)
        #expect(
            knockout.fightChanges == [
                .punched(by: a, kind: .uppercut, damage: ceiling, bluntedBy: nil, staminaLeft: 0, turn: answer)
            ])
        let events = try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 10))
        let result = FightResult(challenger: a, opponent: b, winner: a, decision: .knockout)
        #expect(
            events.fightChanges == [
                .punched(by: b, kind: .jab, damage: 10, bluntedBy: nil, staminaLeft: 80, turn: nil), .ended(result),
            ])
        #expect(try ring.fight(fight).phase == .finished(.decided(result), at: ring.now))
        #expect(try ring.fighter(a).record == Record(wins: 1) && ring.fighter(b).record == Record(losses: 1))
        // Nothing more can happen to a finished fight, so the records cannot change again.
        #expect(ring.refusal(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 5)) == .fightNotActive(fight))
        #expect(ring.refusal(.forfeit(fight, by: b)) == .fightNotActive(fight))
        ring.now = ring.now + 1_000_000
        #expect(try ring.run(.settleDeadlines).isEmpty)
        #expect(try ring.fighter(a).record == Record(wins: 1) && ring.fighter(b).record == Record(losses: 1))
    }

    @Test func staminaAtExactlyZeroIsAKnockout() throws {
        var ring = Ring()
        // The most a sensor may state, brought down to the jab's ceiling: exactly the stamina.
        ring.referee.rules.startingStamina = ring.referee.rules.meter.jab.ceiling
        let (fight, a, b) = try ring.startFight()
        try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 1))
        // Bob has thrown as many as alice once this lands: his knockout is owed no answer.
        let events = try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: Rules.punchDamage.upperBound))
        #expect(
            events.fightChanges.last == .ended(FightResult(challenger: a, opponent: b, winner: b, decision: .knockout)))
    }

    /// Who throws first does not decide an even fight: a knockout by the fighter who has thrown
    /// more punches is answered, and an answer that knocks out too makes the fight a draw.
    @Test func aKnockoutByTheFirstToThrowIsAnsweredAndADoubleKnockoutIsADraw() throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        for _ in 0..<2 {
            try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 40))
            try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 40))
        }
        let knockout = try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 40))
        guard case .punched(_, _, _, _, 0, let turn?, _) = knockout.fightChanges.first, turn.fighter == b else {
            Issue.record("bob is owed his answer: \(knockout)")
            return
        }
        // Only the answer may come: alice waits, bob's stamina stays 0.
        #expect(ring.refusal(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 1)) == .waitYourTurn(fight))
        let answer = try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 40))
        #expect(answer.fightChanges.last == .ended(FightResult(challenger: a, opponent: b, winner: nil, decision: .knockout)))
        #expect(try ring.fighter(a).record == Record(draws: 1) && ring.fighter(b).record == Record(draws: 1))
    }

    /// When the answer floors the knocker too, the blow that went further past 0 wins. Alice's
    /// third jab of 40 finds bob at 20, 20 past; bob's answer of 40 finds alice at 30 (10 past:
    /// alice wins) or at 10 (30 past: bob wins).
    @Test(arguments: [(aliceLeft: 30, aliceWins: true), (aliceLeft: 10, aliceWins: false)])
    func aDoubleKnockoutGoesToTheBlowThatWentFurther(aliceLeft: Int, aliceWins: Bool) throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        let bobsUppercut = (100 - aliceLeft) / 2
        for _ in 0..<2 {
            try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 40))
            try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .uppercut, damage: bobsUppercut))
        }
        #expect(try ring.fight(fight).stamina == Both(aliceLeft, 20))
        try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 40))
        #expect(try ring.fight(fight).knockoutMargin == 20)
        let answer = try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 40))
        let result = FightResult(challenger: a, opponent: b, winner: aliceWins ? a : b, decision: .knockout)
        #expect(answer.fightChanges.last == .ended(result))
        #expect(try ring.fight(fight).knockoutMargin == nil)
    }

    /// An answer let lapse leaves the knockout standing, at the deadline.
    @Test func anAnswerLetLapseLeavesTheKnockoutStanding() throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .uppercut, damage: 56))
        try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 1))
        try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .uppercut, damage: 56))
        let deadline = ring.now + ring.referee.rules.turnTimeout
        ring.now = deadline + 200
        let events = try ring.run(.settleDeadlines)
        let result = FightResult(challenger: a, opponent: b, winner: a, decision: .knockout)
        #expect(events.fightChanges == [.ended(result)])
        #expect(try ring.fight(fight).phase == .finished(.decided(result), at: deadline))
    }

    @Test func forfeitGivesTheOtherTheWin() throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        // Forfeiting is allowed out of turn: giving up is not a punch.
        let events = try ring.run(.forfeit(fight, by: b))
        #expect(events.fightChanges == [.ended(FightResult(challenger: a, opponent: b, winner: a, decision: .forfeit))])
        #expect(try ring.fighter(a).record == Record(wins: 1) && ring.fighter(b).record == Record(losses: 1))
    }

    @Test func forfeitNeedsAFightUnderWay() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob"), c = try ring.register("carol")
        try ring.run(.challenge(a, opponent: b))
        #expect(ring.refusal(.forfeit(FightID(1), by: a)) == .fightNotActive(FightID(1)))
        #expect(ring.refusal(.forfeit(FightID(1), by: c)) == .notInFight(c, FightID(1)))
    }

    /// Every punch does `damage(corner, n)`; both throw the limit without a knockout.
    func fightToTheLimit(
        limit: Int, damage: (Corner, Int) -> Int
    ) throws -> (ring: Ring, events: [Event], a: FighterID, b: FighterID) {
        var ring = Ring()
        ring.referee.rules.punchesPerFighter = limit
        let (fight, a, b) = try ring.startFight()
        var events: [Event] = []
        for n in 0..<limit {
            ring.now = ring.now + 1
            events += try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: damage(.challenger, n)))
            ring.now = ring.now + 1
            events += try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: damage(.opponent, n)))
        }
        return (ring, events, a, b)
    }

    @Test func roundLimitHigherStaminaWins() throws {
        // The challenger hits 3 a punch, the opponent 2: after 20 each the challenger has
        // 100 − 40 = 60 left and the opponent 100 − 60 = 40.
        let (ring, events, a, b) = try fightToTheLimit(limit: 20) { corner, _ in corner == .challenger ? 3 : 2 }
        #expect(
            events.fightChanges.last == .ended(FightResult(challenger: a, opponent: b, winner: a, decision: .points)))
        #expect(try ring.fight(FightID(1)).stamina == Both(60, 40))
        #expect(try ring.fighter(a).record == Record(wins: 1) && ring.fighter(b).record == Record(losses: 1))
    }

    @Test func roundLimitEqualStaminaIsADraw() throws {
        let (ring, events, a, b) = try fightToTheLimit(limit: 20) { _, _ in 4 }
        #expect(
            events.fightChanges.last == .ended(FightResult(challenger: a, opponent: b, winner: nil, decision: .points)))
        #expect(try ring.fighter(a).record == Record(draws: 1) && ring.fighter(b).record == Record(draws: 1))
    }

    @Test func aFighterOutOfPunchesIsSkipped() throws {
        var ring = Ring()
        ring.referee.rules.punchesPerFighter = 2
        let (fight, a, b) = try ring.startFight()
        try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 1))
        ring.now = ring.now + 60  // b lets the turn lapse; a throws their last punch
        try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 1))
        #expect(try ring.fight(fight).phase == .active(turn: .opponent, deadline: ring.now + 60))
        try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 1))
        // a is out of punches, so b keeps the turn.
        #expect(try ring.fight(fight).phase == .active(turn: .opponent, deadline: ring.now + 60))
        let events = try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 1))
        #expect(
            events.fightChanges.last == .ended(FightResult(challenger: a, opponent: b, winner: nil, decision: .points)))
    }

    @Test func lettingTheLastTurnLapseEndsOnPoints() throws {
        var ring = Ring()
        ring.referee.rules.punchesPerFighter = 1
        let (fight, a, b) = try ring.startFight()
        try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 9))
        let deadline = ring.now + 60
        ring.now = ring.now + 500
        let events = try ring.run(.settleDeadlines)
        #expect(
            events == [
                .fight(
                    FightEvent(
                        fight: fight, sequence: 4, at: deadline,
                        change: .ended(
                            FightResult(challenger: a, opponent: b, winner: a, decision: .points))))
            ])
    }
}
