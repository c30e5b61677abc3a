import FightEngine
import Testing

@testable import FightStore

/// `FightStore.audit()` reads what the store saved: a store the commands built adds up; a row
/// changed or an event lost behind its back is found.
@Suite struct AuditTests {
    /// A store with one fight two punches in.
    func storeWithAFight(_ backend: Backend) async throws -> (database: TestDatabase, store: FightStore, fight: FightID) {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let alice = try await store.register("alice"), bob = try await store.register("bob")
        try await store.run(.challenge(alice, opponent: bob))
        let fight = FightID(1)
        try await store.run(.accept(fight, by: bob))
        try await store.run(.punch(fight, by: alice, after: try await store.seen(fight), kind: .jab, damage: 30))
        try await store.run(.punch(fight, by: bob, after: try await store.seen(fight), kind: .uppercut, damage: 12))
        return (database, store, fight)
    }

    @Test(arguments: Backend.available) func aStoreBuiltByCommandsAddsUp(backend: Backend) async throws {
        let (_, store, _) = try await storeWithAFight(backend)
        let audit = try await store.audit()
        #expect(audit.problems == [])
        #expect(audit.fights == 1)
        #expect(audit.events == 6)
    }

    @Test(arguments: Backend.available) func aLostEventIsFound(backend: Backend) async throws {
        let (database, store, fight) = try await storeWithAFight(backend)
        try await database.tamper(store, "DELETE FROM events WHERE fight_id = \(fight.rawValue) AND sequence = 3")
        let problems = try await store.audit().problems
        #expect(problems.contains("fight \(fight.rawValue): sequence 4 follows 2"))
        #expect(problems.contains { $0.hasPrefix("fight \(fight.rawValue): saved stamina 88/70, the log says 88/100") })
    }

    @Test(arguments: Backend.available) func aStatisticsRowChangedBehindTheStoresBackIsFound(backend: Backend) async throws {
        let (database, store, fight) = try await storeWithAFight(backend)
        try await store.run(.forfeit(fight, by: FighterID(2)))
        #expect(try await store.audit().problems == [])
        try await database.tamper(store, "UPDATE statistics SET qty_wins = qty_wins + 1")
        #expect(try await store.audit().problems.contains { $0.hasPrefix("statistics:") })
    }
}
