import FightEngine
import FightStoreTestSupport
import Foundation
import GRDB
import Testing

@testable import FightStore

/// Opening a store and answering a fighter's questions must not read the history: a server that
/// rebuilt its indexes from the whole log at start took 3.6 s and 100 MB more after 19,261 fights.
/// Timing it here would be flaky; instead, every statement run is looked at. None may scan one of
/// the tables that grow with history (a search through an index or a key is what it should be),
/// and the statements are the same for a history of 10 fights as for one of 10,000.
@Suite struct StartupTests {
    /// The scans allowed: of tables that stay small (the quick-match rooms, the migrations done,
    /// the schema) and of a constant row. Any other scan reads something that grows with history.
    static let small = ["SCAN rooms", "SCAN grdb_migrations", "SCAN sqlite_", "SCAN CONSTANT ROW"]

    @Test func aCopiedHistoryIsWhatTheEngineWouldHaveSaved() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("history.sqlite")
        let contents = try await HistoryFile.build(at: path, fighters: 5, fights: 41)
        let store = try await FightStore(path: path)
        let audit = try await store.audit()
        #expect(audit.problems == [])
        #expect(audit.fights == 41)
        #expect(audit.events == 5 + 41 * contents.eventsPerFight)  // the registrations, then the fights
        var everyones = 0
        for n in 1...5 { everyones += try await store.fights(of: FighterID(Int64(n))).count }
        #expect(everyones == 2 * 41)
        #expect(try await store.fights(of: FighterID(1)).allSatisfy { !$0.isOpen && $0.corner(of: FighterID(1)) != nil })
    }

    /// The queries that replaced the server's indexes built from the log answer as the log does.
    @Test func aFightersFightsAndLinesAreFoundByIndex() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("history.sqlite")
        try await HistoryFile.build(at: path, fighters: 4, fights: 12)
        let store = try await FightStore(path: path)
        let me = FighterID(1)
        try await store.run(.challenge(me, opponent: FighterID(2)), at: HistoryFile.start + 100)
        try await store.run(.challenge(FighterID(3), opponent: me), at: HistoryFile.start + 101)
        try await store.run(.challenge(FighterID(2), opponent: FighterID(3)), at: HistoryFile.start + 102)
        try await store.run(.decline(FightID(13), by: FighterID(2)), at: HistoryFile.start + 103)

        var mine: [FightID] = []
        for case .fight(let event) in try await store.events() {
            if case .challenged(let a, let b, _) = event.change, a == me || b == me { mine.append(event.fight) }
        }
        #expect(try await store.fights(of: me).map(\.id) == mine.reversed())
        #expect(try await store.openFights(of: me).map(\.id) == [FightID(14)])
        #expect(try await store.corners(ofFight: FightID(14)) == Both(FighterID(3), me))
        #expect(try await store.corners(ofFight: FightID(99)) == nil)
        let all = try await store.statistics()
        let scopes: [StatScope] = [.fighter(me), .overall, .pair(me, versus: FighterID(2)), .pair(me, versus: me)]
        let some = try await store.statistics(scopes)
        for scope in scopes { #expect(some[scope] == all[scope], "\(scope)") }
        #expect(some[.fighter(me)].qtyBattles > 0)
    }

    @Test func openingAndServingAFighterScansNothingThatGrows() async throws {
        let directory = try TemporaryDirectory()
        var statementsFor: [Int: [String]] = [:]
        for fights in [10, 10_000] {
            let path = directory.path("history-\(fights).sqlite")
            try await HistoryFile.build(at: path, fighters: 20, fights: fights)
            let log = StatementLog()
            var configuration = Durability.processCrash.configuration
            configuration.prepareDatabase { db in
                db.trace(options: .statement) { event in
                    if case .statement(let statement) = event { log.append(statement.sql) }
                }
            }
            // What the server does on starting, then for a fighter saying hello, looking back and acting.
            let store = try await FightStore(path: path, rules: Rules(), configuration: configuration)
            let me = FighterID(1), other = FighterID(2)
            _ = try await store.fighter(me)
            _ = try await store.openFights(of: me)
            _ = try await store.fights(of: me)
            _ = try await store.statistics([.fighter(me), .overall, .pair(me, versus: other)])
            _ = try await store.fight(FightID(1))
            _ = try await store.events(ofFight: FightID(1))
            _ = try await store.nextDeadline()
            _ = try await store.session(key: "a token's hash")
            try await store.forgetSessions(unusedSince: HistoryFile.start)
            let events = try await store.execute(.challenge(me, opponent: other), at: HistoryFile.start + 3_600).get()
            guard case .fight(let challenged) = try #require(events.first) else {
                Issue.record("a challenge caused \(events)")
                return
            }
            _ = try await store.corners(ofFight: challenged.fight)
            _ = try await store.execute(.accept(challenged.fight, by: other), at: HistoryFile.start + 3_601).get()
            _ = try await store.execute(.settleDeadlines, at: HistoryFile.start + 7_200).get()
            statementsFor[fights] = log.statements

            let plans = try DatabaseQueue(path: path)
            // Transactions and pragmas read nothing (and GRDB will not explain them).
            let queries = Set(log.statements).filter { sql in
                ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains { sql.uppercased().hasPrefix($0) }
            }
            for sql in queries {
                let steps = try await plans.read { db in
                    let explain = try db.makeStatement(sql: "EXPLAIN QUERY PLAN \(sql)")
                    explain.setUncheckedArguments([])  // the plan does not depend on the values
                    return try Row.fetchAll(explain).map { $0["detail"] as String }
                }
                for step in steps where step.hasPrefix("SCAN ") && !Self.small.contains(where: step.hasPrefix) {
                    Issue.record("with \(fights) fights, \(sql) reads a whole table: \(step)")
                }
            }
        }
        #expect(statementsFor[10] == statementsFor[10_000])
        #expect(statementsFor[10]?.isEmpty == false)
    }
}

/// The statements a store's connections ran, in order, whichever thread ran them.
final class StatementLog: @unchecked Sendable {  // the lock guards `logged`
    private let lock = NSLock()
    private var logged: [String] = []

    func append(_ sql: String) { lock.withLock { logged.append(sql) } }
    var statements: [String] { lock.withLock { logged } }
}
