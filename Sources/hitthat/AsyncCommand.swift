import Foundation
import MotionCommands

// MARK: - Async bodies under a synchronous root

/// Runs `body` to completion while the calling (main) thread waits, and rethrows what it threw.
///
/// `hitthat` stays a synchronous command so that `listen` reads on the main thread, where its
/// SIGINT handler interrupts the read; `serve` and `play` run their async work through this.
func runBlocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var failure: (any Error)?
    Task {
        do { try await body() } catch { failure = error }
        done.signal()
    }
    done.wait()
    if let failure { throw failure }
}
