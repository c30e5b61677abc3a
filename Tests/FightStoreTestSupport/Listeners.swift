// Only where FightStore is compiled for testing (debug builds): this target is a library, so a
// release build (`swift build -c release`, the benchmarks) builds it too, and `@testable` would
// stop it there. The tests that cut listeners off run in debug.
#if DEBUG
import Foundation

@testable import FightStore

// MARK: - Listeners cut off

extension FightStore {
    /// Ends every connection listening for the changes of this store's schema, this store's own
    /// among them (waiting up to five seconds for each to end), as a restart of PostgreSQL or a
    /// network that drops them would: for the tests of what a listener does when it is back.
    /// - Returns: how many there were.
    @discardableResult
    public func cutOffListeners() async throws -> Int {
        try await countListeners("count(pg_terminate_backend(pid, 5000))")
    }

    /// How many connections are listening for the changes of this store's schema.
    public func listeners() async throws -> Int {
        try await countListeners("count(*)")
    }

    /// The process numbers of PostgreSQL's backends that serve the connections listening for
    /// the changes of this store's schema: for a test to freeze one (`SIGSTOP`), as a network
    /// that stops carrying packets without closing anything would.
    public func listenerProcesses() async throws -> [Int32] {
        #if PostgreSQL
            guard let postgres = database as? PostgresDatabase else { return [] }
            return try await database.runScript(
                "SELECT pid FROM pg_stat_activity WHERE application_name = '\(postgres.listenerName)'", beforeCommit: {}
            ).map { Int32(try $0.get("pid", as: Int64.self)) }
        #else
            return []
        #endif
    }

    /// `aggregate` over the connections listening on the store's channel.
    private func countListeners(_ aggregate: String) async throws -> Int {
        #if PostgreSQL
            guard let postgres = database as? PostgresDatabase else { return 0 }
            let rows = try await database.runScript(
                "SELECT \(aggregate) AS n FROM pg_stat_activity WHERE application_name = '\(postgres.listenerName)'",
                beforeCommit: {})
            return Int(try rows.first?.get("n", as: Int64.self) ?? 0)
        #else
            return 0
        #endif
    }
}
#endif
