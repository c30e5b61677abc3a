import FightEngine
import Foundation
import Testing

@testable import FightStore

@Suite struct ConcurrencyAndCrashTests {
    /// A double tap: the same fighter's punch sent twice at once. Exactly one may land.
    @Test(arguments: Backend.available) func twoSimultaneousPunchesNeverBothLand(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let a = try await store.register("alice"), b = try await store.register("bob")
        for round in 0..<20 {
            let fight = FightID(Int64(round + 1))
            try await store.run(.challenge(a, opponent: b))
            try await store.run(.accept(fight, by: b))
            let outcomes = await withTaskGroup(of: Result<[Event], Refusal>?.self) { group in
                for _ in 0..<2 {
                    group.addTask { try? await store.execute(.punch(fight, by: a, after: 2, kind: .jab, damage: 7), at: start + 1) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .success = $0 { true } else { false } }.count == 1)
            #expect(outcomes.contains { $0 == .failure(.stale(fight, lastSequence: 3, after: 2)) })
            #expect(try await store.fight(fight)?.stamina == Both(100, 93))
            try await store.run(.forfeit(fight, by: a), at: start + 2)
        }
    }

    /// Two servers on one database, each sent the same punch at once: exactly one lands, and the
    /// fight's log has no gap and no repeat.
    @Test(arguments: Backend.available) func twoStoresOnOneDatabaseNeverLandTheSamePunchTwice(
        backend: Backend
    ) async throws {
        let database = try TestDatabase(backend)
        let first = try await database.open(), second = try await database.open()
        let a = try await first.register("alice"), b = try await second.register("bob")
        for round in 0..<20 {
            let fight = FightID(Int64(round + 1))
            try await first.run(.challenge(a, opponent: b))
            try await second.run(.accept(fight, by: b))
            let outcomes = await withTaskGroup(of: Result<[Event], Refusal>?.self) { group in
                for store in [first, second] {
                    group.addTask { try? await store.execute(.punch(fight, by: a, after: 2, kind: .jab, damage: 7), at: start + 1) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .success = $0 { true } else { false } }.count == 1)
            #expect(outcomes.contains { $0 == .failure(.stale(fight, lastSequence: 3, after: 2)) })
            #expect(try await second.fight(fight)?.stamina == Both(100, 93))
            #expect(try await first.events(ofFight: fight).map(\.sequence) == [1, 2, 3])
            try await second.run(.forfeit(fight, by: b), at: start + 2)
        }
        #expect(try await first.audit().problems == [])
    }

    /// Two servers' deadline clocks tick at once on one database: a turn passes once.
    @Test(arguments: Backend.available) func twoStoresSettleADeadlineOnce(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let first = try await database.open(), second = try await database.open()
        let a = try await first.register("alice"), b = try await first.register("bob")
        try await first.run(.challenge(a, opponent: b))
        try await first.run(.accept(FightID(1), by: b))
        let settled = await withTaskGroup(of: Int.self) { group in
            for store in [first, second] {
                group.addTask { (try? await store.execute(.settleDeadlines, at: start + 61).get().count) ?? -1 }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(settled.sorted() == [0, 1])
        #expect(try await second.events(ofFight: FightID(1)).map(\.sequence) == [1, 2, 3])
    }

    /// The process dies (SIGKILL) in the middle of a fight, with another connection's transaction
    /// half written. Everything acknowledged before is there after reopening; the half-written
    /// transaction is not, and the fight goes on from where it was.
    @Test(arguments: Backend.available) func reopeningAfterACrashMidFightLosesNothingAcknowledged(
        backend: Backend
    ) async throws {
        let database = try TestDatabase(backend)
        await #expect(processExitsWith: .signal(SIGKILL)) { [location = database.location.description as String] in
            let store = try await FightStore(location: StoreLocation(parsing: location))
            let a = try await store.register("alice"), b = try await store.register("bob")
            try await store.run(.challenge(a, opponent: b))
            try await store.run(.accept(FightID(1), by: b))
            for n in 0..<5 {
                try await store.run(
                    .punch(FightID(1), by: n.isMultiple(of: 2) ? a : b, after: 2 + n, kind: .jab, damage: 10 + n),
                    at: start + Int64(n))
            }
            // Another store's transaction (another connection, as another server's), cut short.
            let other = try await FightStore(location: StoreLocation(parsing: location))
            _ = try await other.database.runScript(
                """
                DELETE FROM events;
                UPDATE fighters SET wins = 99
                """
            ) { kill(getpid(), SIGKILL) }
        }
        let store = try await database.open()
        let fight = try #require(try await store.fight(FightID(1)))
        // a threw 10, 12, 14 (b at 64); b threw 11, 13 (a at 76).
        #expect(fight.stamina == Both(76, 64))
        #expect(fight.punches == Both(3, 2))
        #expect(try await store.events(ofFight: FightID(1)).map(\.sequence) == Array(1...7))
        #expect(try await store.fighter(FighterID(1))?.record == Record())
        // It is b's turn, and the fight continues.
        #expect(
            try await store.execute(.punch(FightID(1), by: FighterID(1), after: try await store.seen(FightID(1)), kind: .jab, damage: 1), at: start + 5)
                == .failure(.waitYourTurn(FightID(1))))
        try await store.run(.punch(FightID(1), by: FighterID(2), after: try await store.seen(FightID(1)), kind: .hook, damage: 1), at: start + 5)
    }
}
