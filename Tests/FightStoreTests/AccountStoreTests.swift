import FightEngine
import GRDB
import Testing

@testable import FightStore

/// Accounts and sessions are the store's tables, made by its migrator, on its one pool.
@Suite struct AccountStoreTests {
    @Test(arguments: Backend.available) func anAccountIsCreatedOnceAndItsHashReadBack(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let alice = try await store.register("alice")
        #expect(try await !store.hasAccount(alice))
        #expect(try await store.passwordHash(of: alice) == nil)
        #expect(try await store.createAccount(alice, passwordHash: "first", at: start))
        #expect(try await !store.createAccount(alice, passwordHash: "second", at: start + 1))
        #expect(try await store.hasAccount(alice))
        #expect(try await store.passwordHash(of: alice) == "first")
    }

    @Test(arguments: Backend.available) func aSessionIsFoundByItsKeyOnly(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let alice = try await store.register("alice")
        let session = SavedSession(key: "k1", fighter: alice, createdAt: start)
        try await store.openSession(session)
        #expect(try await store.session(key: "k1") == session)
        #expect(try await store.session(key: "k2") == nil)
        await #expect {  // a key is never issued twice
            try await store.openSession(session)
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT
                || (error as? PostgresFailure)?.sqlState == "23505"
        }
    }

    @Test(arguments: Backend.available) func aSessionsUseIsNotedAndItCanBeClosedOrForgotten(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let alice = try await store.register("alice")
        for (key, opened) in [("old", start), ("used", start), ("new", start + 100)] {
            try await store.openSession(SavedSession(key: key, fighter: alice, createdAt: opened))
        }
        try await store.noteUse(ofSession: "used", at: start + 50)
        try await store.noteUse(ofSession: "missing", at: start + 50)  // nothing to note: no error, no row
        #expect(try await store.session(key: "used")?.lastUsedAt == start + 50)
        #expect(try await store.session(key: "used")?.createdAt == start)
        #expect(try await store.session(key: "missing") == nil)

        #expect(try await store.forgetSessions(unusedSince: start + 50) == 1)
        #expect(try await store.session(key: "old") == nil)
        #expect(try await store.session(key: "used") != nil)
        #expect(try await store.closeSession(key: "used", of: alice))
        #expect(try await !store.closeSession(key: "used", of: alice))
        #expect(try await store.session(key: "used") == nil)
        #expect(try await store.session(key: "new")?.lastUsedAt == start + 100)
    }

    /// A file an older server wrote: the store's first two migrations, then the two tables the
    /// server's accounts made for themselves beside them, with rows. Opening it migrates it, and
    /// every password and session is still there.
    @Test func anOldFileKeepsItsAccountsAndSessions() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fights.sqlite")
        do {
            let old = try DatabaseQueue(path: path)
            try SQLiteDatabase.migrator.migrate(old, upTo: "v2: each open fight's missed turns, counted from its log")
            try await old.write { db in
                // What `Accounts.init` ran before the tables moved into the store's migrations.
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS accounts (
                            fighter_id INTEGER PRIMARY KEY, password_hash TEXT NOT NULL, created_at INTEGER NOT NULL);
                        CREATE TABLE IF NOT EXISTS sessions (
                            token_hash TEXT PRIMARY KEY, fighter_id INTEGER NOT NULL, created_at INTEGER NOT NULL);
                        INSERT INTO accounts VALUES (1, 'pbkdf2-sha256$1000$c2FsdA==$a2V5', 1800000000);
                        INSERT INTO sessions VALUES ('oldkey', 1, 1800000001);
                        """)
                #expect(
                    try !Set(String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")).contains {
                        $0.hasPrefix("v3")
                    })
            }
        }
        let store = try FightStore(path: path)
        #expect(try await store.hasAccount(FighterID(1)))
        #expect(try await store.passwordHash(of: FighterID(1)) == "pbkdf2-sha256$1000$c2FsdA==$a2V5")
        #expect(try await store.session(key: "oldkey")?.fighter == FighterID(1))
        #expect(try await store.session(key: "oldkey")?.createdAt == start + 1)
        #expect(try await store.session(key: "oldkey")?.lastUsedAt == start + 1)  // its opening: the one use known
        let migrated = try await store.sql("SELECT identifier FROM grdb_migrations").map {
            try $0.get("identifier", as: String.self)
        }
        #expect(migrated.contains { $0.hasPrefix("v3") })
    }

}
