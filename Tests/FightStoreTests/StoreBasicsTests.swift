import FightEngine
import GRDB
import Testing

@testable import FightStore

@Suite struct StoreBasicsTests {
    @Test(arguments: Backend.available) func migratesAnEmptyDatabase(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        _ = try await database.open()
        let store = try await database.open()  // migrating twice is harmless
        for table in [
            "fighters", "fighter_locations", "fights", "events", "rooms", "shown", "statistics", "accounts", "sessions",
        ] {
            await #expect(throws: Never.self, "\(table) missing") {
                try await store.sql("SELECT * FROM \(table) LIMIT 1")
            }
        }
    }

    /// Skipped, saying why, where the PostgreSQL cases of the other tests did not run.
    @Test(
        .enabled(
            if: Backend.available.contains(.postgres),
            "HITTHAT_POSTGRES_URL is not set: the store's tests ran on SQLite only (tools/postgres-test-server.sh start gives one)"
        ))
    func theStoreIsBuiltWithPostgreSQL() async throws {
        #expect(
            FightStore.postgresBuiltIn,
            "HITTHAT_POSTGRES_URL is set, but this build has no PostgreSQL: --traits PostgreSQL")
        let store = try await TestDatabase(.postgres).open()
        #expect(try await store.fighter(FighterID(1)) == nil)
    }

    /// A statement sent unanswered (`send`: PostgreSQL's saves) that fails fails its whole write:
    /// nothing before or after it in the transaction is saved, and the store goes on. On
    /// PostgreSQL a COMMIT after a failed statement ends the transaction without an error
    /// (rolled back); the store must throw on its own, having waited for every statement sent.
    @Test(arguments: Backend.available) func aSentStatementThatFailsFailsItsWholeWrite(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let a = try await store.register("alice"), b = try await store.register("bob")
        var won = try #require(try await store.fighter(a))
        won.record.wins = 7
        var lost = won
        lost.record.losses = 3
        var clash = try #require(try await store.fighter(b))
        clash.id = FighterID(99)  // b's username again: the unique index of usernames refuses it
        let writes: [CommandPlan.Write] = [.fighter(won, moved: false), .fighter(clash, moved: false), .fighter(lost, moved: false)]
        await #expect(throws: (any Error).self) { try await store.database.perform(writes) }
        #expect(try await store.fighter(a)?.record == Record())
        // The connection rolled back and is used again.
        try await store.run(.challenge(a, opponent: b))
        #expect(try await store.openFights(of: a).count == 1)
    }

    /// The open fights of many fighters at once are each fight once, oldest first, however many
    /// fighters are asked about (more than one statement names), and only open ones.
    @Test(arguments: Backend.available)
    func theOpenFightsOfManyFightersAreEachFightOnce(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let a = try await store.register("alice"), b = try await store.register("bob"), c = try await store.register("carol")
        try await store.run(.challenge(a, opponent: b))
        try await store.run(.challenge(c, opponent: b))
        try await store.run(.challenge(a, opponent: c))
        let declined = try #require(try await store.openFights(of: a).last).id
        try await store.run(.decline(declined, by: c))
        let open = try await store.openFights(of: [c, b, a]).map(\.id)
        #expect(open.count == 2 && open == open.sorted() && !open.contains(declined))
        // b's fights named in the first thousand, a's and c's after.
        let many = [b] + (1_000..<(1_000 + Int64(FightStore.largestBatch))).map { FighterID($0) } + [a, c]
        #expect(try await store.openFights(of: many).map(\.id) == open)
        #expect(try await store.openFights(of: [FighterID]()) == [])
    }

    @Test func anSQLiteFileIsInWALMode() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fights.sqlite")
        _ = try await FightStore(path: path)
        let journalMode = try await DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode")
        }
        #expect(journalMode == "wal")
    }

    @Test(arguments: Backend.available) func aWholeFightIsSavedAndRead(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let a = try await store.register("alice"), b = try await store.register("bob")
        try await store.run(.challenge(a, opponent: b))
        try await store.run(.accept(FightID(1), by: b), at: start + 1)
        for n in 0..<4 {
            let puncher = n.isMultiple(of: 2) ? a : b
            try await store.run(.punch(FightID(1), by: puncher, after: try await store.seen(FightID(1)), kind: .jab, damage: 40), at: start + 2 + Int64(n))
        }
        // a: 40, 40, 40 → b at 0 on a's third punch (the fifth of the fight), which b answers.
        try await store.run(.punch(FightID(1), by: a, after: try await store.seen(FightID(1)), kind: .hook, damage: 40), at: start + 10)
        let last = try await store.run(.punch(FightID(1), by: b, after: try await store.seen(FightID(1)), kind: .jab, damage: 5), at: start + 11)
        let result = FightResult(challenger: a, opponent: b, winner: a, decision: .knockout)
        #expect(last.last == .fight(FightEvent(fight: FightID(1), sequence: 9, at: start + 11, change: .ended(result))))
        #expect(try await store.fight(FightID(1))?.phase == .finished(.decided(result), at: start + 11))
        #expect(try await store.fighter(a)?.record == Record(wins: 1))
        #expect(try await store.fighter(named: "BOB")?.record == Record(losses: 1))
        #expect(try await store.events(ofFight: FightID(1)).map(\.sequence) == Array(1...9))
        #expect(
            try await store.statistics()[.pair(a, versus: b)]
                == StatLine(qtyBattles: 1, qtyWins: 1, lastBattle: start + 11, lastWin: start + 11))
    }

    @Test(arguments: Backend.available) func aRefusedCommandSavesNothing(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let a = try await store.register("alice"), b = try await store.register("bob")
        try await store.run(.challenge(a, opponent: b))
        try await store.run(.accept(FightID(1), by: b))
        let before = try await store.events()
        let outcome = try await store.execute(.punch(FightID(1), by: b, after: try await store.seen(FightID(1)), kind: .jab, damage: 3), at: start + 5)
        #expect(outcome == .failure(.waitYourTurn(FightID(1))))
        #expect(try await store.events() == before)
        #expect(try await store.fight(FightID(1))?.stamina == Both(100, 100))
        #expect(
            try await store.execute(.register(Registration(username: "ALICE", displayName: "x")), at: start)
                == .failure(.usernameTaken("ALICE")))
        #expect(try await store.execute(.challenge(b, opponent: a), at: start) == .failure(.pairAlreadyFighting(FightID(1))))
    }

    @Test(arguments: Backend.available) func aBatchIsJudgedInOrderInOneGo(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let outcomes = try await store.execute(
            [
                .register(Registration(username: "alice", displayName: "A")),
                .register(Registration(username: "Alice", displayName: "A again")),
                .register(Registration(username: "bob", displayName: "B")),
                .challenge(FighterID(1), opponent: FighterID(2)),
            ], at: start)
        #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true, true])
        #expect(outcomes[1] == .failure(.usernameTaken("Alice")))
        #expect(try await store.fighter(named: "bob")?.id == FighterID(2))
        #expect(try await store.opponents(of: FighterID(1)) == [FighterID(2)])
    }

    @Test(arguments: Backend.available) func anUnreadableRowIsATypedErrorNamingIt(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let a = try await store.register("alice"), b = try await store.register("bob")
        try await store.run(.challenge(a, opponent: b))
        try await database.tamper(store, "UPDATE fights SET body = '{\"id\": 1}'")
        await #expect {
            try await store.fight(FightID(1))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.table == "fights" && error.rowID == 1 && error.problem.hasPrefix("unreadable Fight")
        }
    }

    @Test(arguments: Backend.available) func quickMatchRoomsAreSaved(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let a: FighterID, b: FighterID
        do {
            let store = try await database.open()
            a = try await store.register("alice")
            b = try await store.register("bob")
            try await store.run(.quickMatch(a))
            #expect(try await store.execute(.quickMatch(a), at: start) == .failure(.alreadyWaiting(a)))
        }
        let reopened = try await database.open()
        #expect(try await reopened.rooms() == [Room(fighter: a, openedAt: start)])
        let events = try await reopened.run(.quickMatch(b), at: start + 3)
        #expect(
            events == [
                .fight(
                    FightEvent(
                        fight: FightID(1), sequence: 1, at: start + 3,
                        change: .matched(
                            challenger: a, opponent: b, turn: Turn(fighter: a, deadline: start + 63))))
            ])
        #expect(try await reopened.rooms().isEmpty)
        #expect(try await reopened.opponents(of: a) == [b])
    }

    @Test(arguments: Backend.available) func deadlinesAreSettledByTheScheduler(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let a = try await store.register("alice"), b = try await store.register("bob"), c = try await store.register("carol")
        try await store.run(.challenge(a, opponent: b))
        try await store.run(.challenge(a, opponent: c), at: start + 100)
        try await store.run(.accept(FightID(2), by: c), at: start + 100)
        #expect(try await store.nextDeadline() == start + 160)
        let settled = try await store.run(.settleDeadlines, at: start + 86_400)
        // Fight 1 expired. Fight 2's turn lapsed four times (one event), then alice, whose turn it
        // was first, missed her third and lost by forfeit.
        #expect(settled.count == 3)
        #expect(try await store.fight(FightID(1))?.phase == .finished(.expired, at: start + 86_400))
        let forfeit = FightResult(challenger: a, opponent: c, winner: c, decision: .forfeit)
        #expect(try await store.fight(FightID(2))?.phase == .finished(.decided(forfeit), at: start + 100 + 5 * 60))
        #expect(try await store.opponents(of: a) == [])
        #expect(try await store.nextDeadline() == nil)
        #expect(try await store.run(.settleDeadlines, at: start + 86_401).isEmpty)
    }
}
