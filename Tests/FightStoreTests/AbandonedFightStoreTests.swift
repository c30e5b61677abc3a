import FightEngine
import Testing

@testable import FightStore

/// Abandoned fights end by forfeit through the store too, and a file saved before missed turns
/// were counted gets its open fights' counts from their logs.
@Suite struct AbandonedFightStoreTests {
    /// Alice and Bob in a fight under way, Alice to throw.
    func storeWithAFight(_ database: TestDatabase) async throws -> (store: FightStore, alice: FighterID, bob: FighterID) {
        let store = try await database.open()
        let alice = try await store.register("alice"), bob = try await store.register("bob")
        try await store.run(.challenge(alice, opponent: bob))
        try await store.run(.accept(FightID(1), by: bob))
        return (store, alice, bob)
    }

    @Test(arguments: Backend.available) func aFightNobodyPunchesInEndsOnceWithRecordsAndStatistics(
        backend: Backend
    ) async throws {
        let database = try TestDatabase(backend)
        let (store, alice, bob) = try await storeWithAFight(database)
        for seconds: Int64 in [60, 120, 180, 240] { try await store.run(.settleDeadlines, at: start + seconds) }
        #expect(try await store.fight(FightID(1))?.missedTurns == Both(2, 2))
        #expect(try await store.audit().problems == [])
        let ended = try await store.run(.settleDeadlines, at: start + 300)
        let result = FightResult(challenger: alice, opponent: bob, winner: bob, decision: .forfeit)
        #expect(ended == [.fight(FightEvent(fight: FightID(1), sequence: 7, at: start + 300, change: .ended(result)))])
        #expect(try await store.nextDeadline() == nil, "nothing is left to settle")
        #expect(try await store.run(.settleDeadlines, at: start + 100_000) == [])
        #expect(try await store.fighter(alice)?.record == Record(losses: 1))
        #expect(try await store.fighter(bob)?.record == Record(wins: 1))
        #expect(
            try await store.statistics()[.fighter(bob)]
                == StatLine(qtyBattles: 1, qtyWins: 1, lastBattle: start + 300, lastWin: start + 300))
        let audit = try await store.audit()
        #expect(audit.problems == [])
        #expect(audit.events == 7 + 2)  // two registrations, then challenged, accepted, four passes, ended
    }

    @Test(arguments: Backend.available) func anOldFilesOpenFightsAreCountedFromTheirLogs(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        do {
            let (store, alice, _) = try await storeWithAFight(database)
            try await store.run(.settleDeadlines, at: start + 60)  // Alice misses one
            try await store.run(.settleDeadlines, at: start + 120)  // Bob misses one
            try await store.run(.settleDeadlines, at: start + 180)  // Alice misses two
            // A finished fight, to show one is read without counts too.
            let carol = try await store.register("carol")
            try await store.run(.challenge(carol, opponent: alice))
            try await store.run(.decline(FightID(2), by: alice))
        }
        // The database as the store before this rule left it: no counts, and the migration not run.
        switch backend {
        case .sqlite:
            try await database.tamper(
                try await database.open(),
                """
                UPDATE fights SET body = json_remove(body, '$.missedTurns');
                DELETE FROM grdb_migrations WHERE identifier LIKE 'v2:%'
                """)
        case .postgres:
            try await database.tamper(
                try await database.open(),
                """
                UPDATE fights SET body = (body::jsonb - 'missedTurns')::text;
                DELETE FROM hitthat_migrations WHERE identifier LIKE 'v2:%'
                """)
        }
        let store = try await database.open()
        #expect(try await store.fight(FightID(1))?.missedTurns == Both(2, 1))
        #expect(try await store.fight(FightID(2))?.missedTurns == Both(0, 0))
        #expect(try await store.audit().problems == [])
        // Bob misses his second, then Alice her third.
        #expect(try await store.run(.settleDeadlines, at: start + 240).count == 1)
        let last = try await store.run(.settleDeadlines, at: start + 300)
        guard case .fight(let event) = try #require(last.last), case .ended(let result) = event.change else {
            Issue.record("no end: \(last)")
            return
        }
        #expect(result.decision == .forfeit && result.loser == FighterID(1))
        #expect(try await store.audit().problems == [])
    }
}
