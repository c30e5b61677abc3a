import Foundation
import Testing

/// "Teach me your punches" through the page, driven by `tools/teach_test.py`: Chromium's virtual
/// sensors fire the browser's own `devicemotion` events while the lesson's HOLD is held.
extension PageTests {
    /// The page asks for each kind by name, three of each, the simulated swings of that kind
    /// replayed through the virtual sensors; the server learns from them, and the page shows what
    /// it learned and how sure it is.
    @Test(.enabled(if: browser.ready, "\(browser.reason)"))
    func thePageTeachesEachKindAskedForByNameAndShowsWhatWasLearned() async throws {
        await TakingTurns.shared.begin()
        defer { TakingTurns.shared.end() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("teach-page-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("session.csv").path
        let simulate = try RunningCommand([
            "simulate", "--gyroscope", "--upright", "--seed", "60", "--punches", "36", "--kinds", "jab", "uppercut",
            "hook", "--output", trace,
        ])
        #expect(try await simulate.exitStatus() == 0, "\(simulate.errorOutput)")
        let labels = try String(
            contentsOfFile: folder.appendingPathComponent("session.labels.csv").path, encoding: .utf8
        )
        .split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        let windows = labels.filter { $0.count >= 3 }.map { "\($0[0]),\($0[1]),\($0[2])" }

        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let page = try RunningCommand(
            [
                "python3", "tools/teach_test.py", "--page", "http://127.0.0.1:\(port)/", "--user", "dora", "--trace",
                trace,
                "--screenshots", Self.screenshots,
            ]
                + windows.flatMap { ["--swing", $0] },
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        defer { page.kill(SIGTERM) }
        try #require(try await page.exitStatus(seconds: 300) == 0, "\(page.errorOutput.suffix(8))")
        let line = try #require(page.output.last, "no outcome")
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])

        #expect(outcome["button"] as? String == "Teach me your punches")
        let holds = try #require(outcome["holds"] as? [[String: Any]])
        // Each kind asked for by name, in order, until three of it were taken.
        let taken = holds.filter { $0["taken"] as? Bool == true }.compactMap { $0["asked"] as? String }
        #expect(taken == ["jab", "jab", "jab", "uppercut", "uppercut", "uppercut", "hook", "hook", "hook"], "\(holds)")
        #expect((holds.first?["said"] as? String) == "Throw a jab (1 of 3)")
        let profile = try #require(outcome["punchProfile"] as? [String: Any], "\(outcome)")
        let kinds = try #require(profile["kinds"] as? [[String: Any]])
        #expect(kinds.compactMap { $0["kind"] as? String } == ["jab", "uppercut", "hook"])
        let learned = try #require(outcome["learned"] as? String)
        #expect(
            learned.contains("Jab: ") && learned.contains("typed back") && learned.contains("Your usual punch"),
            "\(learned)")
        let sent = try #require(outcome["sent"] as? [String])
        #expect(sent.first == "teach" && sent.contains("teachMotion") && !sent.contains("motion"))
    }
}
