import FightEngine
import FightStore
import Foundation
import GRDB
import Testing

@Suite struct ConcurrencyAndCrashTests {
    /// A double tap: the same fighter's punch sent twice at once. Exactly one may land.
    @Test func twoSimultaneousPunchesNeverBothLand() async throws {
        let directory = try TemporaryDirectory()
        let store = try FightStore(path: directory.path("fights.sqlite"))
        let a = try store.register("alice"), b = try store.register("bob")
        for round in 0..<20 {
            let fight = FightID(Int64(round + 1))
            try store.run(.challenge(a, opponent: b))
            try store.run(.accept(fight, by: b))
            let outcomes = await withTaskGroup(of: Result<[Event], Refusal>?.self) { group in
                for _ in 0..<2 {
                    group.addTask { try? store.execute(.punch(fight, by: a, kind: .jab, damage: 7), at: start + 1) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .success = $0 { true } else { false } }.count == 1)
            #expect(outcomes.contains { $0 == .failure(.waitYourTurn(fight)) })
            #expect(try store.fight(fight)?.stamina == Both(100, 93))
            try store.run(.forfeit(fight, by: a), at: start + 2)
        }
    }

    /// The process dies (SIGKILL) in the middle of a fight, with another connection's transaction
    /// half written. Everything acknowledged before is there after reopening; the half-written
    /// transaction is not, and the fight goes on from where it was.
    @Test func reopeningAfterACrashMidFightLosesNothingAcknowledged() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fights.sqlite")
        await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
            let store = try FightStore(path: path)
            let a = try store.register("alice"), b = try store.register("bob")
            try store.run(.challenge(a, opponent: b))
            try store.run(.accept(FightID(1), by: b))
            for n in 0..<5 {
                try store.run(
                    .punch(FightID(1), by: n.isMultiple(of: 2) ? a : b, kind: .jab, damage: 10 + n),
                    at: start + Int64(n))
            }
            let other = try DatabaseQueue(path: path)
            try other.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "DELETE FROM events")
                try db.execute(sql: "UPDATE fighters SET wins = 99")
                kill(getpid(), SIGKILL)
            }
        }
        let store = try FightStore(path: path)
        let fight = try #require(try store.fight(FightID(1)))
        // a threw 10, 12, 14 (b at 64); b threw 11, 13 (a at 76).
        #expect(fight.stamina == Both(76, 64))
        #expect(fight.punches == Both(3, 2))
        #expect(try store.events(ofFight: FightID(1)).map(\.sequence) == Array(1...7))
        #expect(try store.fighter(FighterID(1))?.record == Record())
        // It is b's turn, and the fight continues.
        #expect(
            try store.execute(.punch(FightID(1), by: FighterID(1), kind: .jab, damage: 1), at: start + 5)
                == .failure(.waitYourTurn(FightID(1))))
        try store.run(.punch(FightID(1), by: FighterID(2), kind: .hook, damage: 1), at: start + 5)
    }
}
