import FightEngine
import Testing

@testable import FightStore

/// A fighter's punch profile, what they taught the server's detector: kept with the fighter in
/// either database, replaced when taught again, deleted when forgotten, and made by a migration
/// on a database an older server wrote.
@Suite struct PunchProfileStoreTests {
    @Test(arguments: Backend.available) func aProfileIsSavedReplacedAndForgottenPerFighter(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let alice: FighterID
        let bob: FighterID
        do {
            let store = try await database.open()
            alice = try await store.register("alice")
            bob = try await store.register("bob")
            #expect(try await store.punchProfile(of: alice) == nil)
            try await store.savePunchProfile(#"{"version":1,"first":true}"#, of: alice, at: start)
            try await store.savePunchProfile(#"{"version":1,"bob":true}"#, of: bob, at: start)
            try await store.savePunchProfile(#"{"version":1,"second":true}"#, of: alice, at: start + 10)
        }
        // Reopened, as after a restart: the last one taught is the fighter's.
        let store = try await database.open()
        #expect(try await store.punchProfile(of: alice) == #"{"version":1,"second":true}"#)
        #expect(try await store.punchProfile(of: bob) == #"{"version":1,"bob":true}"#)
        #expect(try await store.forgetPunchProfile(of: alice))
        #expect(try await !store.forgetPunchProfile(of: alice))
        #expect(try await store.punchProfile(of: alice) == nil)
        #expect(try await store.punchProfile(of: bob) != nil)
    }

    /// A database from before profiles (migrated up to v8, a fighter in it): opening it runs the
    /// migration, and the fighter can be taught.
    @Test(arguments: Backend.available) func anOlderDatabaseGetsTheTableByItsMigration(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let alice: FighterID
        do {
            let store = try await database.open()
            alice = try await store.register("alice")
        }
        let migrations = backend == .sqlite ? "grdb_migrations" : "hitthat_migrations"
        try await database.tamper(
            try await database.open(),
            """
            DROP TABLE punch_profiles;
            DELETE FROM \(migrations) WHERE identifier LIKE 'v9:%'
            """)
        let store = try await database.open()
        let done = try await store.sql("SELECT identifier FROM \(migrations)").map {
            try $0.get("identifier", as: String.self)
        }
        #expect(done.contains { $0.hasPrefix("v9:") })
        #expect(try await store.punchProfile(of: alice) == nil)
        try await store.savePunchProfile(#"{"version":1}"#, of: alice, at: start)
        #expect(try await store.punchProfile(of: alice) == #"{"version":1}"#)
    }
}
