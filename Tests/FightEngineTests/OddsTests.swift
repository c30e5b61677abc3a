import FightEngine
import Testing

@Suite struct OddsTests {
    func fighter(_ id: Int64, record: Record = Record(), reach: Int? = nil, weight: Int? = nil) throws -> Fighter {
        Fighter(
            id: FighterID(id), username: try Username(validating: "f\(id)xx"), displayName: "F",
            profile: ProfileStats(weightKg: weight, reachCm: reach), record: record,
            joinedAt: Timestamp(secondsSince1970: 0))
    }

    @Test func equalFightersAreEven() throws {
        #expect(Odds(try fighter(1), against: try fighter(2)).viewerWins == 0.5)
        let same = Record(wins: 3, losses: 2)
        #expect(
            Odds(try fighter(1, record: same, reach: 180), against: try fighter(2, record: same, reach: 180)).viewerWins
                == 0.5)
    }

    @Test func recordsAlone() throws {
        // 3–1 → rate (3 + 1) / (4 + 2) = 2/3; 1–3 → 2/6 = 1/3; s = 4 · 1/3; p = 1 / (1 + e^(−4/3)).
        let odds = Odds(
            try fighter(1, record: Record(wins: 3, losses: 1)),
            against: try fighter(2, record: Record(wins: 1, losses: 3)))
        #expect(abs(odds.viewerWins - 0.791391) < 1e-6)
        #expect(abs(odds.viewerDecimalOdds - 1 / 0.791391) < 1e-5)
    }

    @Test func reachAlone() throws {
        // 10 cm more reach: s = 0.5, p = 1 / (1 + e^(−0.5)).
        let odds = Odds(try fighter(1, reach: 190), against: try fighter(2, reach: 180))
        #expect(abs(odds.viewerWins - 0.622459) < 1e-6)
    }

    @Test func aStatOnlyOneSideSharedCountsForNothing() throws {
        #expect(Odds(try fighter(1, reach: 190, weight: 100), against: try fighter(2)).viewerWins == 0.5)
    }

    @Test func bothSidesSumToOneAndMirror() throws {
        let a = try fighter(1, record: Record(wins: 7, losses: 2, draws: 1), reach: 175, weight: 80)
        let b = try fighter(2, record: Record(wins: 2, losses: 6), reach: 183, weight: 70)
        let ab = Odds(a, against: b), ba = Odds(b, against: a)
        #expect(abs(ab.viewerWins + ab.opponentWins - 1) < 1e-12)
        #expect(abs(ab.viewerWins - ba.opponentWins) < 1e-12)
    }

    @Test func moreWinsMoreReachMoreWeightEachHelp() throws {
        let base = try fighter(2, record: Record(wins: 2, losses: 2), reach: 180, weight: 75)
        let p = { (f: Fighter) in Odds(f, against: base).viewerWins }
        let even = p(try fighter(1, record: Record(wins: 2, losses: 2), reach: 180, weight: 75))
        #expect(p(try fighter(1, record: Record(wins: 3, losses: 2), reach: 180, weight: 75)) > even)
        #expect(p(try fighter(1, record: Record(wins: 2, losses: 2), reach: 181, weight: 75)) > even)
        #expect(p(try fighter(1, record: Record(wins: 2, losses: 2), reach: 180, weight: 76)) > even)
        #expect(p(try fighter(1, record: Record(wins: 2, losses: 2), reach: 180, weight: 74)) < even)
    }
}
