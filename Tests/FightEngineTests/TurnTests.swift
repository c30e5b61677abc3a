import FightEngine
import Testing

@Suite struct TurnTests {
    @Test func outOfTurnIsRefusedWithAReason() throws {
        var ring = Ring()
        let (fight, _, opponent) = try ring.startFight()
        let refusal = ring.refusal(.punch(fight, by: opponent, after: ring.seen(fight), kind: .jab, damage: 5))
        #expect(refusal == .waitYourTurn(fight))
        #expect(refusal?.description == "wait your turn")
    }

    @Test func punchesAlternateAndLowerTheOtherStamina() throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        let first = try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .hook, damage: 12))
        #expect(
            first.fightChanges == [
                .punched(
                    by: a, kind: .hook, damage: 12, bluntedBy: nil, staminaLeft: 88, turn: Turn(fighter: b, deadline: ring.now + 60))
            ])
        #expect(ring.refusal(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 1)) == .waitYourTurn(fight))
        try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .uppercut, damage: 30))
        let state = try ring.fight(fight)
        #expect(state.stamina == Both(70, 88))
        #expect(state.punches == Both(1, 1))
        #expect(state.lastSequence == 4)  // challenged, accepted, two punches
    }

    @Test func challengeMustBeAcceptedBeforePunching() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob"), c = try ring.register("carol")
        try ring.run(.challenge(a, opponent: b))
        #expect(ring.refusal(.punch(FightID(1), by: a, after: ring.seen(FightID(1)), kind: .jab, damage: 3)) == .fightNotActive(FightID(1)))
        #expect(ring.refusal(.punch(FightID(1), by: c, after: ring.seen(FightID(1)), kind: .jab, damage: 3)) == .notInFight(c, FightID(1)))
        #expect(ring.refusal(.punch(FightID(9), by: a, after: ring.seen(FightID(9)), kind: .jab, damage: 3)) == .unknownFight(FightID(9)))
    }

    @Test(arguments: [0, -4, Rules.punchDamage.upperBound + 1, 5_000])
    func damageMustBeWithinTheRules(_ damage: Int) throws {
        var ring = Ring()
        let (fight, a, _) = try ring.startFight()
        guard case .invalid(let error) = ring.refusal(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: damage)) else {
            Issue.record("damage \(damage) accepted")
            return
        }
        #expect(error.field == .damage)
    }

    /// A sensor's damage at either end of the range is taken; what lands is at most the kind's
    /// ceiling, the same as the power meter's.
    @Test(arguments: [Rules.punchDamage.lowerBound, Rules.punchDamage.upperBound])
    func damageAtEitherEndOfTheRangeLandsUpToTheCeiling(_ damage: Int) throws {
        var ring = Ring()
        let (fight, a, _) = try ring.startFight()
        let events = try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: damage))
        guard case .punched(_, _, let landed, _, let staminaLeft, _, _) = events.fightChanges.first else {
            Issue.record("damage \(damage) did not land: \(events)")
            return
        }
        let ceiling = Rules().meter.jab.ceiling
        #expect(ceiling < Rules.punchDamage.upperBound)
        #expect(landed == min(damage, ceiling) && staminaLeft == 100 - landed)
    }

    /// The range is 1…64, the detector's 4 a g at a ±16 g sensor's full scale; a detected punch
    /// outside it is brought to its nearer end.
    @Test func aDetectedPunchIsClampedToTheRange() {
        #expect(Rules.punchDamage == 1...64)
        #expect(Rules.clampedDamage(100) == 64)
        #expect(Rules.clampedDamage(65) == 64)
        #expect(Rules.clampedDamage(64) == 64)
        #expect(Rules.clampedDamage(1) == 1)
        #expect(Rules.clampedDamage(0) == 1)
        #expect(Rules.clampedDamage(32) == 32)
    }

    @Test func turnPassesAfterTheTimeout() throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        let start = ring.now
        ring.now = start + 59
        #expect(ring.refusal(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 5)) == .waitYourTurn(fight))
        ring.now = start + 60
        #expect(ring.refusal(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 5)) == .waitYourTurn(fight))
        let events = try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 5))
        #expect(
            events.fightChanges == [
                .turnPassed(missedTurns: 1, turn: Turn(fighter: b, deadline: start + 120)),
                .punched(
                    by: b, kind: .jab, damage: 5, bluntedBy: nil, staminaLeft: 95, turn: Turn(fighter: a, deadline: ring.now + 60)),
            ])
    }

    @Test func manyMissedTurnsAreOneEventAndAlternate() throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        let start = ring.now
        // Deadlines at +60 (to b), +120 (to a), +180 (to b): three passes by +200.
        ring.now = start + 200
        let events = try ring.run(.settleDeadlines)
        #expect(
            events == [
                .fight(
                    FightEvent(
                        fight: fight, sequence: 3, at: start + 180,
                        change: .turnPassed(
                            missedTurns: 3, turn: Turn(fighter: b, deadline: start + 240))))
            ])
        #expect(ring.refusal(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 1)) == .waitYourTurn(fight))
        // Four passes land back on the challenger.
        ring.now = start + 240
        #expect(
            try ring.run(.settleDeadlines).fightChanges == [
                .turnPassed(missedTurns: 1, turn: Turn(fighter: a, deadline: start + 300))
            ])
    }

    @Test func turnTimeoutIsConfigurable() throws {
        var ring = Ring()
        ring.referee.rules.turnTimeout = 5
        let (fight, _, b) = try ring.startFight()
        ring.now = ring.now + 5
        try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 1))
    }
}

@Suite struct RulesTests {
    @Test func aTurnTimeoutBelowOneSecondIsRaisedToOne() {
        var rules = Rules(turnTimeout: 0)
        #expect(rules.turnTimeout == 1)
        rules.turnTimeout = -5
        #expect(rules.turnTimeout == 1)
        #expect(
            Rules()
                == Rules(
                    startingStamina: 100, turnTimeout: 60, challengeLifetime: 86_400, punchesPerFighter: 20,
                    matchRadiusKm: 50))
    }

    /// The names are the contract with the detector, which sends them as text.
    @Test func punchTypesAreNamedLikeTheDetectorsKinds() {
        #expect(PunchType.allCases.map(\.rawValue) == ["jab", "uppercut", "hook"])
    }
}
