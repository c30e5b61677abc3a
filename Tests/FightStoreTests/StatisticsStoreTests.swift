import FightEngine
import Testing

@testable import FightStore

@Suite struct StatisticsStoreTests {
    /// `count` fights between fighters `first`, `first + 1`, … two by two, ended at `at`, each won
    /// by its challenger.
    func fightsEnded(_ count: Int, from first: Int64, at at: Timestamp) -> [Event] {
        (0..<Int64(count)).map { n in
            let (challenger, opponent) = (FighterID(first + 2 * n), FighterID(first + 2 * n + 1))
            let result = FightResult(challenger: challenger, opponent: opponent, winner: challenger, decision: .knockout)
            return .fight(FightEvent(fight: FightID(n + 1), sequence: 9, at: at, change: .ended(result)))
        }
    }

    /// A write that moves more lines than one statement reads (a deadline's tick ending many fights
    /// at once) moves each from what was saved: none of them is taken for a line never saved.
    @Test(arguments: Backend.available)
    func manyLinesMovedInOneWriteEachMoveOnFromTheSavedLine(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let first = fightsEnded(30, from: 1, at: Timestamp(secondsSince1970: 1_000))
        let again = fightsEnded(30, from: 1, at: Timestamp(secondsSince1970: 2_000))
        for events in [first, again] {
            try await store.database.perform(CommandPlan.statistics(of: events).map { .statistics($0.scope, $0.line) })
        }
        let saved = try await store.statistics()
        #expect(saved == Statistics(rebuiltFrom: first + again))
        #expect(saved[.overall].qtyBattles == 60)
        #expect(saved[.fighter(FighterID(59))].qtyWins == 2)
    }
}
