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
    public func cutOffListeners() throws -> Int {
        try countListeners("count(pg_terminate_backend(pid, 5000))")
    }

    /// How many connections are listening for the changes of this store's schema.
    public func listeners() throws -> Int {
        try countListeners("count(*)")
    }

    /// The process numbers of PostgreSQL's backends that serve the connections listening for
    /// the changes of this store's schema: for a test to freeze one (`SIGSTOP`), as a network
    /// that stops carrying packets without closing anything would.
    public func listenerProcesses() throws -> [Int32] {
        #if PostgreSQL
            guard let postgres = database as? PostgresStoreDatabase else { return [] }
            return try database.readStatement { db in
                try db.fetch("SELECT pid FROM pg_stat_activity WHERE application_name = ?", [postgres.listenerName])
                    .map { Int32(try $0.get("pid", as: Int64.self)) }
            }
        #else
            return []
        #endif
    }

    /// `aggregate` over the connections listening on the store's channel.
    private func countListeners(_ aggregate: String) throws -> Int {
        #if PostgreSQL
            guard let postgres = database as? PostgresStoreDatabase else { return 0 }
            let count = try database.write { db in
                try db.fetchValue(
                    "SELECT \(aggregate) FROM pg_stat_activity WHERE application_name = ?", [postgres.listenerName],
                    as: Int64.self)
            }
            return Int(count ?? 0)
        #else
            return 0
        #endif
    }
}
#endif
