import Foundation
import Testing

/// A client that shares no code with ours (`tools/protocol_client.py`: Python's standard library,
/// its own WebSocket framing, only docs/PROTOCOL.md to go by) plays a whole fight against the
/// server and checks what both players saw against the server's state, history and records.
@Suite struct IndependentClientTests {
    @Test(arguments: [30, 64])
    func aClientWrittenFromTheDocumentPlaysAFightToTheEnd(damage: Int) async throws {
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let client = try RunningCommand(
            ["python3", "tools/protocol_client.py", "--server", "http://127.0.0.1:\(port)", "--damage", "\(damage)"],
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = try await client.exitStatus(seconds: 120)
        #expect(status == 0, "\(client.errorOutput.suffix(5))")
        let outcome = try #require(client.output.last, "no outcome")
        let summary = try JSONSerialization.jsonObject(with: Data(outcome.utf8)) as? [String: Any]
        let punchesToKnockOut = (100 + damage - 1) / damage
        // Both players' matched event, every punch until the knockout, and the end.
        #expect(summary?["events"] as? Int == 1 + (2 * punchesToKnockOut - 1) + 1)
        #expect(summary?["latePunch"] as? String == "refused")
    }
}
