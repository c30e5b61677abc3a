import FightEngine
import Testing

@testable import FightStore

/// A punch's `after` is judged inside the store's write transaction, on the fight as saved: two
/// servers (two stores on one database) and the deadline clocks cannot land a punch twice.
@Suite struct SequenceStoreTests {
    /// Alice's punch lands through one store; bob lets his turn lapse, so it is alice's again; the
    /// same punch, sent to the other store late (a retry after a reconnect), is stale there. A
    /// check of the turn alone would land it a second time.
    @Test(arguments: Backend.available) func aPunchSentAgainToAnotherServerLandsOnce(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let first = try await database.open(), second = try await database.open()
        let a = try await first.register("alice"), b = try await first.register("bob")
        let fight = FightID(1)
        try await first.run(.challenge(a, opponent: b))
        try await first.run(.accept(fight, by: b))
        let punch = Command.punch(fight, by: a, after: 2, kind: .jab, damage: 10)
        try await first.run(punch, at: start + 1)
        let late = start + 1 + Rules().turnTimeout
        #expect(try await second.execute(punch, at: late) == .failure(.stale(fight, lastSequence: 4, after: 2)))
        #expect(try await second.fight(fight)?.stamina == Both(100, 90))
        #expect(try await first.events(ofFight: fight).map(\.sequence) == [1, 2, 3])
    }

    /// Alice's punch and the deadline of her turn, on two stores at once: the turn passes once
    /// and the punch is stale, in either order.
    @Test(arguments: Backend.available) func aPunchRacingItsDeadlineOnAnotherServerIsStale(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let first = try await database.open(), second = try await database.open()
        let a = try await first.register("alice"), b = try await first.register("bob")
        for round in 0..<10 {
            let fight = FightID(Int64(round + 1))
            let began = start + Int64(round) * 1_000
            try await first.run(.challenge(a, opponent: b), at: began)
            try await first.run(.accept(fight, by: b), at: began)
            let deadline = began + Rules().turnTimeout
            async let punched = try await second.execute(.punch(fight, by: a, after: 2, kind: .jab, damage: 10), at: deadline)
            async let settled = try await first.execute(.settleDeadlines, at: deadline)
            #expect(try await punched == .failure(.stale(fight, lastSequence: 3, after: 2)))
            _ = try await settled
            let log = try await first.events(ofFight: fight)
            #expect(log.map(\.sequence) == [1, 2, 3])
            #expect(log.last?.change == .turnPassed(missedTurns: 1, turn: Turn(fighter: b, deadline: deadline + 60)))
            try await first.run(.forfeit(fight, by: a), at: deadline)
        }
    }
}
