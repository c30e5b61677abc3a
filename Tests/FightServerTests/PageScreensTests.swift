import Foundation
import Testing

/// The page's screens say what is so (issue 41): tools/page_checks.py plays them in a phone-sized
/// Chromium against a real server, the opponent a protocol client of its own, and stops the server
/// (SIGSTOP) for the heartbeat to notice.
@Suite(.serialized) struct PageScreensTests {
    @Test(.enabled(if: PageTests.browser.ready, "\(PageTests.browser.reason)"))
    func thePageSaysWhatIsSoOnEachScreen() async throws {
        // A browser starting loads both cores: not while the terminal fight times its keys.
        await TakingTurns.shared.begin()
        defer { TakingTurns.shared.end() }
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer {
            // A failed check may leave the server stopped: it must take the SIGTERM.
            Foundation.kill(server.process.processIdentifier, SIGCONT)
            server.kill(SIGTERM)
        }
        let checks = try RunningCommand(
            [
                "python3", "tools/page_checks.py", "--port", "\(port)",
                "--server-pid", "\(server.process.processIdentifier)", "--screenshots", PageTests.screenshots,
            ], executable: URL(fileURLWithPath: "/usr/bin/env"))
        defer { checks.kill(SIGTERM) }
        let status = try await checks.exitStatus(seconds: 300)
        try #require(status == 0, "\(checks.errorOutput.suffix(8))")
        let line = try #require(checks.output.last, "no outcome")
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])

        let insecure = try #require(outcome["insecure"] as? String)
        #expect(insecure.contains("https://") && !insecure.contains("gives no motion"), "\(insecure)")
        let denied = try #require(outcome["denied"] as? [String: String])
        #expect(denied["android"]?.contains("Motion & Orientation") == false)
        #expect(denied["ios"]?.contains("Motion & Orientation") == true)
        let guardLines = try #require(outcome["guard"] as? [String])
        #expect(guardLines.first?.contains("no guard up") == true && guardLines.last?.contains("your high guard is up") == true)
        let silence = try #require(outcome["silence"] as? [String: Any])
        #expect((silence["said"] as? String)?.contains("silent") == true, "\(silence)")
        let log = try #require(outcome["logAfterReload"] as? [String])
        #expect(log.filter { $0.contains(" left.") }.count == 3, "\(log)")
        let contrast = try #require(outcome["contrast"] as? [String: Any])
        #expect(Set(contrast.keys) == ["sign-in", "lobby", "notice", "their-turn", "my-turn"])
        for name in ["7-lan-http", "8-green-before-wind-up", "9-server-silent", "10-reloaded"] {
            #expect(FileManager.default.fileExists(atPath: "\(PageTests.screenshots)/\(name).png"), "\(name).png")
        }
    }
}
