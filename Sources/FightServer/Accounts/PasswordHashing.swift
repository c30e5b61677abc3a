import Glibc
import NIOCore
import NIOPosix

// MARK: - PasswordHashing

/// Where passwords are hashed: a tenth of a second or more of CPU each, on purpose, so never on a
/// network thread. The threads run at a low scheduling priority: a burst of registrations uses
/// whatever CPU the fights leave, and a punch never waits behind a hash.
final class PasswordHashing: Sendable {
    /// The `nice` value of the hashing threads (0 is normal, 19 the lowest).
    static let niceness: Int32 = 10
    private let pool: NIOThreadPool

    init(threads: Int = System.coreCount) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// Runs `work` (a hash or a check) on a hashing thread.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive {
            // On Linux the nice value belongs to a thread, and `who` 0 is the calling one: this
            // lowers only the pool's thread. Asked every time: the pool does not say when it starts one.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
            return try work()
        }
    }

    func shutdown() async throws {
        try await pool.shutdownGracefully()
    }
}
