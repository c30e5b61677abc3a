import FightEngine
import GRDB
import Testing

@testable import FightStore

@Suite struct StoreBasicsTests {
    @Test(arguments: Backend.available) func migratesAnEmptyDatabase(backend: Backend) throws {
        let database = try TestDatabase(backend)
        _ = try database.open()
        let store = try database.open()  // migrating twice is harmless
        for table in [
            "fighters", "fighter_locations", "fights", "events", "rooms", "shown", "statistics", "accounts", "sessions",
        ] {
            #expect(throws: Never.self, "\(table) missing") {
                try store.database.read { db in try db.fetch("SELECT * FROM \(table) LIMIT 1", []) }
            }
        }
    }

    /// Skipped, saying why, where the PostgreSQL cases of the other tests did not run.
    @Test(
        .enabled(
            if: Backend.available.contains(.postgres),
            "HITTHAT_POSTGRES_URL is not set: the store's tests ran on SQLite only (tools/postgres-test-server.sh start gives one)"
        ))
    func theStoreIsBuiltWithPostgreSQL() throws {
        #expect(
            FightStore.postgresBuiltIn,
            "HITTHAT_POSTGRES_URL is set, but this build has no PostgreSQL: --traits PostgreSQL")
        let store = try TestDatabase(.postgres).open()
        #expect(try store.fighter(FighterID(1)) == nil)
    }

    /// A statement sent unanswered (`send`: PostgreSQL's saves) that fails fails its whole write:
    /// nothing before or after it in the transaction is saved, and the store goes on. On
    /// PostgreSQL a COMMIT after a failed statement ends the transaction without an error
    /// (rolled back); the store must throw on its own, having waited for every statement sent.
    @Test(arguments: Backend.available) func aSentStatementThatFailsFailsItsWholeWrite(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let store = try database.open()
        let a = try store.register("alice"), b = try store.register("bob")
        #expect(throws: (any Error).self) {
            try store.database.write { db in
                try db.send("UPDATE fighters SET wins = 7 WHERE id = ?", [a.rawValue])
                // The fighter's id again: the primary key refuses it.
                try db.send(
                    """
                    INSERT INTO fighters (id, username, username_key, display_name, bio, wins, losses, draws, joined_at)
                    VALUES (?, 'x', 'x', '', '', 0, 0, 0, 0)
                    """,
                    [a.rawValue])
                try db.send("UPDATE fighters SET losses = 3 WHERE id = ?", [a.rawValue])
            }
        }
        #expect(try store.fighter(a)?.record == Record())
        // The connection rolled back and is used again.
        try store.run(.challenge(a, opponent: b))
        #expect(try store.openFights(of: a).count == 1)
    }

    /// SQLite's placeholders become PostgreSQL's as SQLite numbers them (a bare `?` one more than
    /// the largest before it), never inside quotes; with types, each is cast wherever it stands.
    @Test func placeholdersAreNumberedAsSQLiteNumbersThem() {
        let sql = "SELECT '?' AS q, ? AS a, ?3 AS c, ? AS d, ?3 AS again WHERE x = ?"
        #expect(
            SQLDialect.numberedPlaceholders(sql)
                == "SELECT '?' AS q, $1 AS a, $3 AS c, $4 AS d, $3 AS again WHERE x = $5")
        #expect(
            SQLDialect.numberedPlaceholders("SELECT ? + ?2 + ?2", castTo: ["BIGINT", "TEXT"])
                == "SELECT CAST($1 AS BIGINT) + CAST($2 AS TEXT) + CAST($2 AS TEXT)")
    }

    /// A statement sent again and again reads each value as it was bound: NULLs, numbers, and
    /// then numbers of another type in the same place. On PostgreSQL it is prepared once sent
    /// often, its parameters cast to the types of the values it was prepared with; a value of
    /// another type must not be read as that type (2.5 bound as a DOUBLE and read as a BIGINT is
    /// 4,612,811,918,334,230,528), and a NULL, whose type is unknown, prepares nothing.
    @Test(arguments: Backend.available) func aStatementSentOftenReadsEachValueAsBound(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let store = try database.open()
        try database.tamper(
            store,
            """
            INSERT INTO statistics (scope, fighter_id, versus_id, qty_battles, qty_wins)
            VALUES ('fighter', 1, 0, 1, 0), ('fighter', 2, 0, 2, 0), ('fighter', 3, 0, 3, 0)
            """)
        func fewerBattlesThan(_ value: (any SQLBindable)?) throws -> Int64? {
            try store.database.readStatement { db in
                try db.fetchValue(
                    "SELECT count(*) AS n FROM statistics WHERE qty_battles < ?", [value], as: Int64.self)
            }
        }
        let sent: [((any SQLBindable)?, Int64)] =
            Array(repeating: (nil, 0), count: 4) + Array(repeating: (3, 2), count: 4) + [
                (2.5, 2), (1.5, 1), (nil, 0), (Int64(2), 1),
            ]
        #expect(try sent.map { try fewerBattlesThan($0.0) } == sent.map(\.1))
        guard backend == .postgres else { return }
        // Prepared with the integers, on the connection every call here took in turn.
        let prepared = try store.database.readStatement { db in
            try db.fetch("SELECT statement FROM pg_prepared_statements", []).map { try $0.get("statement", as: String.self) }
        }
        #expect(prepared.contains { $0.contains("qty_battles < CAST($1 AS BIGINT)") }, "\(prepared)")
    }

    /// The open fights of many fighters at once are each fight once, oldest first, however many
    /// fighters are asked about (more than one statement names), and only open ones.
    @Test(arguments: Backend.available)
    func theOpenFightsOfManyFightersAreEachFightOnce(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let store = try database.open()
        let a = try store.register("alice"), b = try store.register("bob"), c = try store.register("carol")
        try store.run(.challenge(a, opponent: b))
        try store.run(.challenge(c, opponent: b))
        try store.run(.challenge(a, opponent: c))
        let declined = try #require(try store.openFights(of: a).last).id
        try store.run(.decline(declined, by: c))
        let open = try store.openFights(of: [c, b, a]).map(\.id)
        #expect(open.count == 2 && open == open.sorted() && !open.contains(declined))
        // b's fights named in the first thousand, a's and c's after.
        let many = [b] + (1_000..<(1_000 + Int64(FightStore.largestBatch))).map { FighterID($0) } + [a, c]
        #expect(try store.openFights(of: many).map(\.id) == open)
        #expect(try store.openFights(of: [FighterID]()) == [])
    }

    /// A session promised one statement (`readStatement`, `writeApart`: on PostgreSQL without
    /// BEGIN and COMMIT) stops the process at a second, which would read another snapshot.
    @Test func aSecondStatementInASessionOfOneStops() async throws {
        let directory = try TemporaryDirectory()
        await #expect(processExitsWith: .failure) { [path = directory.path("fights.sqlite") as String] in
            let store = try FightStore(path: path)
            _ = try store.database.readStatement { db in
                _ = try db.fetch("SELECT 1 AS one", [])
                return try db.fetch("SELECT 2 AS two", [])
            }
        }
        // One is fine.
        let store = try FightStore(path: directory.path("fights.sqlite"))
        #expect(try store.database.readStatement { db in try db.fetchValue("SELECT 1 AS one", as: Int64.self) } == 1)
    }

    @Test func anSQLiteFileIsInWALMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fights.sqlite")
        _ = try FightStore(path: path)
        let journalMode = try DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode")
        }
        #expect(journalMode == "wal")
    }

    @Test(arguments: Backend.available) func aWholeFightIsSavedAndRead(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let store = try database.open()
        let a = try store.register("alice"), b = try store.register("bob")
        try store.run(.challenge(a, opponent: b))
        try store.run(.accept(FightID(1), by: b), at: start + 1)
        for n in 0..<4 {
            let puncher = n.isMultiple(of: 2) ? a : b
            try store.run(.punch(FightID(1), by: puncher, after: try store.seen(FightID(1)), kind: .jab, damage: 40), at: start + 2 + Int64(n))
        }
        // a: 40, 40, 40 → b at 0 on a's third punch (the fifth of the fight), which b answers.
        try store.run(.punch(FightID(1), by: a, after: try store.seen(FightID(1)), kind: .hook, damage: 40), at: start + 10)
        let last = try store.run(.punch(FightID(1), by: b, after: try store.seen(FightID(1)), kind: .jab, damage: 5), at: start + 11)
        let result = FightResult(challenger: a, opponent: b, winner: a, decision: .knockout)
        #expect(last.last == .fight(FightEvent(fight: FightID(1), sequence: 9, at: start + 11, change: .ended(result))))
        #expect(try store.fight(FightID(1))?.phase == .finished(.decided(result), at: start + 11))
        #expect(try store.fighter(a)?.record == Record(wins: 1))
        #expect(try store.fighter(named: "BOB")?.record == Record(losses: 1))
        #expect(try store.events(ofFight: FightID(1)).map(\.sequence) == Array(1...9))
        #expect(
            try store.statistics()[.pair(a, versus: b)]
                == StatLine(qtyBattles: 1, qtyWins: 1, lastBattle: start + 11, lastWin: start + 11))
    }

    @Test(arguments: Backend.available) func aRefusedCommandSavesNothing(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let store = try database.open()
        let a = try store.register("alice"), b = try store.register("bob")
        try store.run(.challenge(a, opponent: b))
        try store.run(.accept(FightID(1), by: b))
        let before = try store.events()
        let outcome = try store.execute(.punch(FightID(1), by: b, after: try store.seen(FightID(1)), kind: .jab, damage: 3), at: start + 5)
        #expect(outcome == .failure(.waitYourTurn(FightID(1))))
        #expect(try store.events() == before)
        #expect(try store.fight(FightID(1))?.stamina == Both(100, 100))
        #expect(
            try store.execute(.register(Registration(username: "ALICE", displayName: "x")), at: start)
                == .failure(.usernameTaken("ALICE")))
        #expect(try store.execute(.challenge(b, opponent: a), at: start) == .failure(.pairAlreadyFighting(FightID(1))))
    }

    @Test(arguments: Backend.available) func aBatchIsJudgedInOrderInOneGo(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let store = try database.open()
        let outcomes = try store.execute(
            [
                .register(Registration(username: "alice", displayName: "A")),
                .register(Registration(username: "Alice", displayName: "A again")),
                .register(Registration(username: "bob", displayName: "B")),
                .challenge(FighterID(1), opponent: FighterID(2)),
            ], at: start)
        #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true, true])
        #expect(outcomes[1] == .failure(.usernameTaken("Alice")))
        #expect(try store.fighter(named: "bob")?.id == FighterID(2))
        #expect(try store.opponents(of: FighterID(1)) == [FighterID(2)])
    }

    @Test(arguments: Backend.available) func anUnreadableRowIsATypedErrorNamingIt(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let store = try database.open()
        let a = try store.register("alice"), b = try store.register("bob")
        try store.run(.challenge(a, opponent: b))
        try database.tamper(store, "UPDATE fights SET body = '{\"id\": 1}'")
        #expect {
            try store.fight(FightID(1))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.table == "fights" && error.rowID == 1 && error.problem.hasPrefix("unreadable Fight")
        }
    }

    @Test(arguments: Backend.available) func quickMatchRoomsAreSaved(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let a: FighterID, b: FighterID
        do {
            let store = try database.open()
            a = try store.register("alice")
            b = try store.register("bob")
            try store.run(.quickMatch(a))
            #expect(try store.execute(.quickMatch(a), at: start) == .failure(.alreadyWaiting(a)))
        }
        let reopened = try database.open()
        #expect(try reopened.rooms() == [Room(fighter: a, openedAt: start)])
        let events = try reopened.run(.quickMatch(b), at: start + 3)
        #expect(
            events == [
                .fight(
                    FightEvent(
                        fight: FightID(1), sequence: 1, at: start + 3,
                        change: .matched(
                            challenger: a, opponent: b, turn: Turn(fighter: a, deadline: start + 63))))
            ])
        #expect(try reopened.rooms().isEmpty)
        #expect(try reopened.opponents(of: a) == [b])
    }

    @Test(arguments: Backend.available) func deadlinesAreSettledByTheScheduler(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let store = try database.open()
        let a = try store.register("alice"), b = try store.register("bob"), c = try store.register("carol")
        try store.run(.challenge(a, opponent: b))
        try store.run(.challenge(a, opponent: c), at: start + 100)
        try store.run(.accept(FightID(2), by: c), at: start + 100)
        #expect(try store.nextDeadline() == start + 160)
        let settled = try store.run(.settleDeadlines, at: start + 86_400)
        // Fight 1 expired. Fight 2's turn lapsed four times (one event), then alice, whose turn it
        // was first, missed her third and lost by forfeit.
        #expect(settled.count == 3)
        #expect(try store.fight(FightID(1))?.phase == .finished(.expired, at: start + 86_400))
        let forfeit = FightResult(challenger: a, opponent: c, winner: c, decision: .forfeit)
        #expect(try store.fight(FightID(2))?.phase == .finished(.decided(forfeit), at: start + 100 + 5 * 60))
        #expect(try store.opponents(of: a) == [])
        #expect(try store.nextDeadline() == nil)
        #expect(try store.run(.settleDeadlines, at: start + 86_401).isEmpty)
    }
}
