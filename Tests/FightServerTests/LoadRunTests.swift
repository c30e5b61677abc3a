import Foundation
import Testing

/// `hitthat-load` against `hitthat serve`, small: players fight, drop their connections, send bad
/// messages, the server is killed and restarted under them; the run's own check (every event a
/// client saw is in the log; records and statistics add up) and `hitthat audit` must both pass.
@Suite(.serialized) struct LoadRunTests {
    /// The parts of `hitthat-load --json` the test reads.
    struct Report: Decodable {
        struct Latency: Decodable { var count: Int }
        var counts: [String: Int]
        var pushLatencyMs: Latency
        var problems: [String]
    }

    @Test func playersSurviveDisconnectsBadMessagesAndAServerKill() async throws {
        let database = try TestServer.temporaryDatabase()
        var (server, port) = try await ScriptClientTests.serve(database: database)
        defer { server.kill(SIGTERM) }  // the server of the moment: the restarted one after the kill
        let load = try RunningCommand(
            [
                "--server", "ws://127.0.0.1:\(port)", "--clients", "12", "--seconds", "8", "--think-ms", "100",
                "--disconnects", "0.05", "--bad-messages", "0.3", "--grace", "60", "--json",
            ], executable: hitthatLoadBinary)
        try await Task.sleep(for: .seconds(3))
        server.kill(SIGKILL)
        (server, _) = try await ScriptClientTests.serve(database: database, port: port)

        let status = try await load.exitStatus(seconds: 120)
        let json = try #require(load.output.last, "no report; errors: \(load.errorOutput.suffix(5))")
        let report = try JSONDecoder().decode(Report.self, from: Data(json.utf8))
        #expect(report.problems == [])
        #expect(status == 0)
        #expect(report.counts["fightsChecked", default: 0] >= 6, "each of 12 players finished a fight")
        #expect(report.pushLatencyMs.count > 0, "punches were timed")
        #expect(report.counts["dropsOnPurpose", default: 0] > 0)
        #expect(report.counts["badMessagesAnswered", default: 0] > 0)
        #expect(report.counts["connectionsLost", default: 0] > 0, "the kill was felt")

        let audit = try RunningCommand(["audit", "--database", database, "--json"])
        #expect(try await audit.exitStatus() == 0)
        let verdict = try #require(audit.output.last)
        #expect(verdict.contains(#""consistent":true"#))
    }

    @Test func auditRefusesAFileThatIsNotThere() async throws {
        let missing = try TestServer.temporaryDatabase() + ".missing"
        let audit = try RunningCommand(["audit", "--database", missing])
        #expect(try await audit.exitStatus() == 65)
        #expect(audit.errorOutput.contains { $0.contains("no such file") })
        #expect(!FileManager.default.fileExists(atPath: missing), "auditing does not create the file")
    }
}
