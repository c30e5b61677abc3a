import FightEngine
import Testing

@Suite struct StatisticsTests {
    @Test func countsFightsFoughtPerFighterPairAndOverall() throws {
        var ring = Ring()
        ring.referee.rules.punchesPerFighter = 1
        // One uppercut at its ceiling knocks out.
        ring.referee.rules.startingStamina = ring.referee.rules.meter.uppercut.ceiling
        let a = try ring.register("alice"), b = try ring.register("bob"), c = try ring.register("carol")
        var log: [Event] = []
        let t0 = ring.now
        // Fight 1: a knocks b out at t0.
        log += try ring.run(.challenge(a, opponent: b))
        log += try ring.run(.accept(FightID(1), by: b))
        log += try ring.run(.punch(FightID(1), by: a, after: ring.seen(FightID(1)), kind: .uppercut, damage: Rules.punchDamage.upperBound))
        log += try ring.run(.punch(FightID(1), by: b, after: ring.seen(FightID(1)), kind: .jab, damage: 1))  // b's answer, down
        // Fight 2: c and a draw on points at t0 + 10.
        ring.now = t0 + 10
        log += try ring.run(.challenge(c, opponent: a))
        log += try ring.run(.accept(FightID(2), by: a))
        log += try ring.run(.punch(FightID(2), by: c, after: ring.seen(FightID(2)), kind: .jab, damage: 5))
        log += try ring.run(.punch(FightID(2), by: a, after: ring.seen(FightID(2)), kind: .jab, damage: 5))
        // Fight 3: b declines c: not a battle.
        ring.now = t0 + 20
        log += try ring.run(.challenge(c, opponent: b))
        log += try ring.run(.decline(FightID(3), by: b))

        let stats = Statistics(rebuiltFrom: log)
        #expect(stats[.overall] == StatLine(qtyBattles: 2, qtyWins: 1, lastBattle: t0 + 10, lastWin: t0))
        #expect(stats[.fighter(a)] == StatLine(qtyBattles: 2, qtyWins: 1, lastBattle: t0 + 10, lastWin: t0))
        #expect(stats[.fighter(b)] == StatLine(qtyBattles: 1, qtyWins: 0, lastBattle: t0, lastWin: nil))
        #expect(stats[.fighter(c)] == StatLine(qtyBattles: 1, qtyWins: 0, lastBattle: t0 + 10, lastWin: nil))
        #expect(stats[.pair(a, versus: b)] == StatLine(qtyBattles: 1, qtyWins: 1, lastBattle: t0, lastWin: t0))
        #expect(stats[.pair(b, versus: a)] == StatLine(qtyBattles: 1, qtyWins: 0, lastBattle: t0, lastWin: nil))
        #expect(stats[.pair(a, versus: c)] == StatLine(qtyBattles: 1, qtyWins: 0, lastBattle: t0 + 10, lastWin: nil))
        #expect(stats[.pair(b, versus: c)] == StatLine())
        #expect(stats.lines.count == 8)  // overall, three fighters, both orders of the two fought pairs
    }

    @Test func lastMeansLatestWhateverTheOrder() {
        let early = Timestamp(secondsSince1970: 100), late = Timestamp(secondsSince1970: 200)
        let line = StatLine().recording(battleAt: late, won: true).recording(battleAt: early, won: true)
        #expect(line == StatLine(qtyBattles: 2, qtyWins: 2, lastBattle: late, lastWin: late))
    }

    @Test func onlyEndingsCount() {
        let punched = Event.fight(
            FightEvent(
                fight: FightID(1), sequence: 3, at: Timestamp(secondsSince1970: 0),
                change: .punched(
                    by: FighterID(1), kind: .jab, damage: 3, bluntedBy: nil, staminaLeft: 97, turn: nil)))
        #expect(Statistics.entries(for: punched).isEmpty)
        #expect(Statistics(rebuiltFrom: [punched]) == Statistics())
    }
}
