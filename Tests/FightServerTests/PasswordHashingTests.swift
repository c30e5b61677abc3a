import Glibc
import Testing

@testable import FightServer

/// Password hashing runs off the caller's thread, at a low priority, and leaves the caller's as it was.
@Suite struct PasswordHashingTests {
    @Test func hashesRunOnALowPriorityThreadOfTheirOwn() async throws {
        let hashing = PasswordHashing(threads: 2)
        let before = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let niceness = try await hashing.run { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
        let hash = try await hashing.run { try PasswordHash(hashing: "correct horse", rounds: 1_000) }
        try await hashing.shutdown()
        #expect(niceness == PasswordHashing.niceness)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == before)
        #expect(try hash.matches("correct horse"))
    }
}
