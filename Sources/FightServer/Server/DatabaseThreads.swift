import NIOPosix

// MARK: - DatabaseThreads

/// Where the server waits for its database: the hub's commands and reads, the requests that only
/// read, sign-ins and registrations, the first message of a session not seen here yet, the
/// allowances taken from the database, `/health`.
///
/// Each call holds its thread until the database answers (on PostgreSQL a round trip; on SQLite
/// the disk), so there are more threads than cores: a thousand players signing in at once (a
/// server's start, or another's outage sending its players here) wait several round trips at a
/// time, not one per core. Waiting on one of Swift's shared threads instead, as sign-ins did,
/// held up the decoding of every client's messages behind them.
final class DatabaseThreads: Sendable {
    /// Enough waits at once to keep a database busy while each waits for its answer; each thread
    /// holds at most one of the store's connections.
    static let count = 8
    private let pool: NIOThreadPool
    /// Run on the thread after each call's work, before its answer goes back: where a test holds
    /// a command saved and not yet answered, to interleave another with it.
    private let afterEach: (@Sendable () -> Void)?

    init(threads: Int = count, afterEach: (@Sendable () -> Void)? = nil) {
        pool = NIOThreadPool(numberOfThreads: threads)
        self.afterEach = afterEach
        pool.start()
    }

    /// Runs `work` on one of the threads.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard let afterEach else { return try await pool.runIfActive(work) }
        return try await pool.runIfActive {
            defer { afterEach() }
            return try work()
        }
    }

    func shutdown() async throws {
        try await pool.shutdownGracefully()
    }
}
