import FightEngine
import FightStoreTestSupport
import Foundation
import Testing

@testable import FightStore

/// A store whose PostgreSQL server goes away: it fails each call with a clear error while the
/// server is down, and works again, losing nothing acknowledged, once it is back, without being
/// reopened. On a server of its own (tools/postgres-test-server.sh), since it is stopped.
@Suite struct PostgresOutageTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../tools/postgres-test-server.sh").standardized.path

    /// Runs the test server script with `arguments`; its standard output. Through `system(3)`,
    /// which waits for the script itself: Foundation's `Process` was seen waiting on for ever here
    /// once the script had exited (the server it starts lives on).
    static func server(_ arguments: String...) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let status = system("/bin/bash '\(script)' \(arguments.joined(separator: " ")) > '\(output)'")
        guard status == 0 else {
            throw StoreBackendError("\(script) \(arguments.joined(separator: " ")) ended with status \(status)")
        }
        return try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        .enabled(
            if: StoreBackend.available.contains(.postgres),
            "HITTHAT_POSTGRES_URL is not set: PostgreSQL's binaries may not be here either"))
    func aStoreThatLosesItsServerFailsClearlyAndResumesWhenItIsBack() async throws {
        let url = try Self.server("start")
        let folder = String(url[try #require(url.range(of: "host=")).upperBound...])
        defer { _ = try? Self.server("stop", folder) }
        let store = try await FightStore(location: StoreLocation(parsing: url))
        let a = try await store.register("alice"), b = try await store.register("bob")
        try await store.run(.challenge(a, opponent: b))
        try await store.run(.accept(FightID(1), by: b))

        _ = try Self.server("pause", folder)
        await #expect(throws: PostgresFailure.self) { try await store.checkReachable() }
        await #expect(throws: PostgresFailure.self) {
            try await store.execute(.punch(FightID(1), by: a, after: 2, kind: .jab, damage: 10), at: start + 1)
        }

        _ = try Self.server("resume", folder)
        try await store.checkReachable()
        #expect(try await store.fight(FightID(1))?.stamina == Both(100, 100), "the punch refused while down never landed")
        try await store.run(.punch(FightID(1), by: a, after: try await store.seen(FightID(1)), kind: .jab, damage: 10), at: start + 2)
        #expect(try await store.events(ofFight: FightID(1)).map(\.sequence) == [1, 2, 3])
        #expect(try await store.audit().problems == [])
    }
}
