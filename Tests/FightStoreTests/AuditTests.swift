import FightEngine
import FightStore
import GRDB
import Testing

/// `FightStore.audit()` reads what the store saved: a store the commands built adds up; a row
/// changed or an event lost behind its back is found.
@Suite struct AuditTests {
    /// A store with one fight two punches in.
    func storeWithAFight() throws -> (directory: TemporaryDirectory, store: FightStore, fight: FightID) {
        let directory = try TemporaryDirectory()
        let store = try FightStore(path: directory.path("fights.sqlite"))
        let alice = try store.register("alice"), bob = try store.register("bob")
        try store.run(.challenge(alice, opponent: bob))
        let fight = FightID(1)
        try store.run(.accept(fight, by: bob))
        try store.run(.punch(fight, by: alice, kind: .jab, damage: 30))
        try store.run(.punch(fight, by: bob, kind: .uppercut, damage: 12))
        return (directory, store, fight)
    }

    @Test func aStoreBuiltByCommandsAddsUp() throws {
        let (_, store, _) = try storeWithAFight()
        let audit = try store.audit()
        #expect(audit.problems == [])
        #expect(audit.fights == 1)
        #expect(audit.events == 6)
    }

    @Test func aLostEventIsFound() throws {
        let (directory, store, fight) = try storeWithAFight()
        let database = try DatabaseQueue(path: directory.path("fights.sqlite"))
        try database.write { db in
            try db.execute(sql: "DELETE FROM events WHERE fight_id = ? AND sequence = 3", arguments: [fight.rawValue])
        }
        let problems = try store.audit().problems
        #expect(problems.contains("fight \(fight.rawValue): sequence 4 follows 2"))
        #expect(problems.contains { $0.hasPrefix("fight \(fight.rawValue): saved stamina 88/70, the log says 88/100") })
    }

    @Test func aStatisticsRowChangedBehindTheStoresBackIsFound() throws {
        let (directory, store, fight) = try storeWithAFight()
        try store.run(.forfeit(fight, by: FighterID(2)))
        #expect(try store.audit().problems == [])
        let database = try DatabaseQueue(path: directory.path("fights.sqlite"))
        try database.write { db in try db.execute(sql: "UPDATE statistics SET qty_wins = qty_wins + 1") }
        #expect(try store.audit().problems.contains { $0.hasPrefix("statistics:") })
    }
}
