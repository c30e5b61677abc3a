import Foundation
import Testing

/// A client that shares no code with ours (`tools/protocol_client.py`: Python's standard library,
/// its own WebSocket framing, only docs/PROTOCOL.md to go by) plays a whole fight against the
/// server, a sensor's motion against the power meter's punches behind a high guard, and checks
/// that a stated damage is refused, each punch's damage by the document's rules, and what both
/// players saw against the server's state, history and records.
@Suite struct IndependentClientTests {
    @Test(arguments: [1, 2])
    func aClientWrittenFromTheDocumentPlaysAFightToTheEnd(seed: Int) async throws {
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let client = try RunningCommand(
            ["python3", "tools/protocol_client.py", "--server", "http://127.0.0.1:\(port)", "--seed", "\(seed)"],
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = try await client.exitStatus(seconds: 120)
        #expect(status == 0, "\(client.errorOutput.suffix(5))")
        let outcome = try #require(client.output.last, "no outcome")
        let summary = try JSONSerialization.jsonObject(with: Data(outcome.utf8)) as? [String: Any]
        // The matched event, every punch until the knockout, and the end.
        let punches = try #require(summary?["punches"] as? Int)
        #expect(summary?["events"] as? Int == 1 + punches + 1)
        #expect(summary?["latePunch"] as? String == "refused")
    }
}
