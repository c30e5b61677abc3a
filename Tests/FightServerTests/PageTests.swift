import FightEngine
import FightProtocol
import Foundation
import Testing

/// The page `hitthat serve` serves at `/`, and HTTPS: the files as a browser gets them, the whole
/// protocol over TLS, and the page played in a real browser at a phone's size against a terminal
/// player.
@Suite(.serialized) struct PageTests {
    // MARK: - The files

    /// `curl` for what Foundation's URLSession cannot do here: show the headers, trust a
    /// certificate that signed itself.
    static func fetch(_ url: String, _ more: [String] = []) async throws -> (head: String, body: String) {
        let curl = try RunningCommand(
            // -w: a newline after the body, whose last line is read only once it ends.
            ["curl", "-sS", "--max-time", "30", "-D", "/dev/stderr", "-w", "\\n"] + more + [url],
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(try await curl.exitStatus() == 0, "curl \(url): \(curl.errorOutput.suffix(3))")
        return (curl.errorOutput.joined(separator: "\n"), curl.output.joined(separator: "\n"))
    }

    @Test func thePageAndItsFilesAreServedWithTheirTypes() async throws {
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let base = "http://127.0.0.1:\(port)"
        let page = try await Self.fetch("\(base)/")
        #expect(page.head.contains("200"))
        #expect(page.head.lowercased().contains("content-type: text/html; charset=utf-8"))
        #expect(page.head.lowercased().contains("content-security-policy: default-src 'self'"))
        #expect(page.body.contains(#"<script type="module" src="app.js"></script>"#))
        #expect(page.body.contains(#"<link rel="stylesheet" href="style.css">"#))
        for (path, type) in [("/style.css", "text/css"), ("/index.html", "text/html")] {
            let file = try await Self.fetch(base + path)
            #expect(file.head.contains("200") && file.head.lowercased().contains("content-type: \(type)"), "\(path)")
        }
        // Every module of the script, as shipped, with the type a browser runs a module of.
        let folder = packageRoot.appendingPathComponent("Sources/FightServer/Page")
        var modules: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".js") {
            modules[name] = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        #expect(modules.count > 1 && modules.keys.contains("app.js"), "\(modules.keys.sorted())")
        for (name, shipped) in modules {
            let script = try await Self.fetch("\(base)/\(name)")
            #expect(script.head.lowercased().contains("content-type: text/javascript"), "\(name)")
            #expect(script.body.trimmingCharacters(in: .newlines) == shipped.trimmingCharacters(in: .newlines), "\(name)")
        }
        let missing = try await Self.fetch("\(base)/nosuch.js")
        #expect(missing.head.contains("404"))
        // The routes of the protocol are still there beside the page.
        #expect(try await Self.fetch("\(base)/health").body.contains(#""status":"ok""#))
    }

    // MARK: - HTTPS

    /// A certificate for 127.0.0.1 that signs itself, as README's "Playing from a phone" makes one
    /// for a LAN address.
    static func certificate() async throws -> (certificate: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (certificate, key) = (folder.appendingPathComponent("cert.pem").path, folder.appendingPathComponent("key.pem").path)
        let openssl = try RunningCommand(
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ], executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(try await openssl.exitStatus() == 0, "\(openssl.errorOutput)")
        return (certificate, key)
    }

    /// `serve --tls-cert --tls-key` serves the page over HTTPS, and the second client, written from
    /// PROTOCOL.md alone, plays a whole fight over HTTPS and WSS, checking the certificate.
    @Test func overHTTPSThePageIsServedAndAWholeFightIsPlayed() async throws {
        let (certificate, key) = try await Self.certificate()
        let (server, port) = try await ScriptClientTests.serve(
            database: try TestServer.temporaryDatabase(), ["--tls-cert", certificate, "--tls-key", key])
        defer { server.kill(SIGTERM) }
        #expect(server.errorOutput.contains { $0.contains("https://127.0.0.1:\(port)/") }, "the log names the page")
        let page = try await Self.fetch("https://127.0.0.1:\(port)/", ["--cacert", certificate])
        #expect(page.body.contains("<title>HitThat</title>"))

        let client = try RunningCommand(
            [
                "python3", "tools/protocol_client.py", "--server", "https://127.0.0.1:\(port)", "--cafile", certificate,
            ], executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(try await client.exitStatus(seconds: 120) == 0, "\(client.errorOutput.suffix(5))")
        #expect(client.output.last?.contains(#""latePunch": "refused""#) == true, "\(client.output.suffix(2))")
    }

    /// A certificate or key that cannot be read stops the server before it opens anything, naming
    /// the file; one without the other is a usage error.
    @Test func aBadCertificateOrKeyStopsTheServerWithTheFilesName() async throws {
        let database = try TestServer.temporaryDatabase()
        let (certificate, _) = try await Self.certificate()
        let missing = try RunningCommand([
            "serve", "--port", "0", "--database", database, "--tls-cert", "nosuch-cert.pem", "--tls-key", "nosuch-key.pem",
        ])
        #expect(try await missing.exitStatus() == 65)
        #expect(missing.errorOutput.contains { $0.hasPrefix("nosuch-cert.pem: cannot read") }, "\(missing.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: database), "nothing opened")

        let keyIsACertificate = try RunningCommand([
            "serve", "--port", "0", "--database", database, "--tls-cert", certificate, "--tls-key", certificate,
        ])
        #expect(try await keyIsACertificate.exitStatus() == 65)
        #expect(keyIsACertificate.errorOutput.contains { $0.hasPrefix("\(certificate): cannot read a PEM private key") })

        let alone = try RunningCommand(["serve", "--port", "0", "--database", database, "--tls-cert", certificate])
        #expect(try await alone.exitStatus() == 64)
        #expect(alone.errorOutput.contains { $0.contains("--tls-cert and --tls-key") }, "\(alone.errorOutput)")
    }

    // MARK: - In a real browser

    /// Chromium and its WebDriver from Debian's packages (`.ci/run` installs them). Without them
    /// the browser tests are skipped, saying why, unless `HITTHAT_REQUIRE_BROWSER=1` (CI), which
    /// fails them instead.
    static let browser: (ready: Bool, reason: String) = {
        let files = ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        let missing = files.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        if missing.isEmpty { return (true, "") }
        let reason = "no \(missing.joined(separator: ", ")) (Debian: apt-get install chromium chromium-driver)"
        return (ProcessInfo.processInfo.environment["HITTHAT_REQUIRE_BROWSER"] == "1", reason)
    }()

    /// Screenshots at a phone's size, for a person to look at: under `.build/`, never committed.
    static let screenshots = packageRoot.appendingPathComponent(".build/screenshots").path

    /// What `tools/browser_test.py` saw of a fight played in the browser, and the terminal player.
    struct BrowserFight {
        var outcome: [String: Any]
        var opponent: RunningCommand
        /// The swing's samples as the page sent them (t,x,y,z,gx,gy,gz in g and rad/s), for `hitthat detect`.
        var swing: String
    }

    /// Serves, starts the terminal player in a quick-match room near the page's player, punching
    /// from a recording, and has the page (Chromium at a phone's size) sign up and fight them to the
    /// end, its first turn a swing replayed from `hitthat simulate --gyroscope`.
    static func fightInTheBrowser() async throws -> BrowserFight {
        // A browser starting loads both cores: not while the terminal fight times its keys.
        await TakingTurns.shared.begin()
        defer { TakingTurns.shared.end() }
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("page-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (trace, swing) = (folder.appendingPathComponent("session.csv").path, folder.appendingPathComponent("swing.csv").path)
        let simulate = try RunningCommand(["simulate", "--gyroscope", "--seed", "7", "--output", trace])
        #expect(try await simulate.exitStatus() == 0, "\(simulate.errorOutput)")

        let bob = try ScriptClientTests.play(
            "bob", port: port, sensor: "traces/mixed-phyphox.csv", ["--at", "48.8566,2.3522"])
        bob.send("quick")
        bob.endInput()
        try await bob.wait("bob's room") { output, _ in output.contains { $0.contains(#""openedRoom""#) } ? true : nil }

        let page = try RunningCommand(
            [
                "python3", "tools/browser_test.py", "--page", "http://127.0.0.1:\(port)/", "--user", "carol",
                "--opponent", "bob", "--trace", trace, "--window-out", swing, "--screenshots", screenshots,
            ], executable: URL(fileURLWithPath: "/usr/bin/env"))
        defer { page.kill(SIGTERM) }
        let status = try await page.exitStatus(seconds: 300)
        if status != 0 { bob.kill(SIGKILL) }
        try #require(status == 0, "\(page.errorOutput.suffix(8))")
        let line = try #require(page.output.last, "no outcome")
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(try await bob.exitStatus() == 0, "\(bob.errorOutput.suffix(5))")
        return BrowserFight(outcome: outcome, opponent: bob, swing: swing)
    }

    /// A new player in a phone-sized Chromium signs up, sets a location, sees the terminal player
    /// on the versus card, joins their quick-match room and fights them to the end: the first turn
    /// a swing, the rest with the power meter, and the connection dropped once as a punch is
    /// thrown. The swing, replayed through the page, lands what `hitthat detect` finds in the same
    /// samples from the press on (its kind, and its damage as the fight bounds it), or, where
    /// detect finds none, the server says no punch was found in it.
    @Test(.enabled(if: browser.ready, "\(browser.reason)"))
    func aPhoneSizedBrowserSignsUpAndFightsATerminalPlayerToTheEnd() async throws {
        let fight = try await Self.fightInTheBrowser()
        let outcome = fight.outcome

        let swing = try #require(outcome["swing"] as? [String: Any])
        // The first punch detect finds in the samples as sent, from the press on (those before it
        // were the hold's lead-in).
        let pressed = try #require(swing["pressed"] as? Double)
        #expect((swing["lead"] as? Int ?? 0) > 0, "the motion before the press was sent as the lead-in: \(swing)")
        let detected = try await ScriptClientTests.detectedPunches(fight.swing).filter { $0.t >= pressed }
        if let first = detected.first {
            // "kind damage" as it landed (bob raises no guard), against detect's bounded the same way.
            #expect(swing["landed"] as? Bool == true && swing["punch"] as? String == first.wire, "\(swing) against \(first.wire)")
        } else {
            #expect(swing["landed"] as? Bool == false, "\(swing)")
        }

        // The page and the terminal saw one fight, to the same end.
        let seen = ScriptClientTests.events(of: fight.opponent)
        let last = try #require(seen.keys.max())
        let ended = try #require(seen[last])
        #expect(ended.kind == .ended && ended.decision == .known(.knockout))
        let state = try #require(outcome["fight"] as? [String: Any])
        #expect(state["lastSequence"] as? Int == last, "the page applied every event")
        #expect((state["winner"] as? Int).map(Int64.init) == ended.winner?.rawValue)
        let punches = seen.values.filter { $0.kind == .punched }
        // A fighter's stamina is the least left by the other's punches.
        let finalStamina = { (fighter: Int) in
            punches.filter { $0.by?.rawValue != Int64(fighter) }.compactMap(\.staminaLeft).min() ?? 100
        }
        let (challenger, opponent) = (try #require(state["challenger"] as? Int), try #require(state["opponent"] as? Int))
        #expect(state["staminaChallenger"] as? Int == finalStamina(challenger))
        #expect(state["staminaOpponent"] as? Int == finalStamina(opponent))
        let log = try #require(outcome["log"] as? [String])
        #expect(log.filter { $0.contains(": ") && $0.contains(" left.") }.count == punches.count, "a line a punch: \(log)")
        let ending = try #require(outcome["ending"] as? String)
        #expect(ending.contains("by knockout"), "\(ending)")
        let reconnect = try #require(outcome["reconnect"] as? [String: Any], "the connection was dropped once")
        #expect((reconnect["said"] as? String)?.hasPrefix("Connection lost") == true, "\(reconnect)")

        // The page's other punches went through the meter: no stated damage, as PROTOCOL.md wants of a button.
        let sent = try #require(outcome["sent"] as? [String])
        #expect(sent.contains("motion") && sent.contains("windUp") && sent.contains("punch"), "\(sent)")
        for name in ["1-sign-in", "2-versus", "3-swing", "3-fight", "4-ended", "5-ended-dark", "6-lobby"] {
            #expect(FileManager.default.fileExists(atPath: "\(Self.screenshots)/\(name).png"), "\(name).png")
        }
    }
}
