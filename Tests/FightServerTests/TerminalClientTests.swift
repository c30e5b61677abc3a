import FightClient
import FightEngine
import Foundation
import Testing

/// The full-screen `hitthat play` in real terminals: tmux runs the clients, the test types keys
/// and reads their screens.
@Suite(.serialized, .enabled(if: Tmux.isAvailable, "needs tmux (apt: tmux)"), .timeLimit(.minutes(3)))
struct TerminalClientTests {
    /// The shell command line that runs `hitthat play` as `user` against the server on `port`.
    static func play(_ user: String, port: Int, _ more: String = "") -> String {
        "'\(hitthatBinary.path)' play --user \(user) --server ws://127.0.0.1:\(port)\(more)"
    }

    /// The two stamina lines of a fight on a screen ("you […] 90", "them […] 100").
    static func staminaLines(_ screen: String) -> [Substring] {
        screen.split(separator: "\n").filter { $0.hasPrefix("  you   [") || $0.hasPrefix("  them  [") }
    }

    /// Alice and bob start `play` in `tmux` against the server on `port`, and meet by quick match:
    /// alice opens the room (so she throws first), bob joins it.
    static func quickMatch(on tmux: Tmux, port: Int) async throws {
        for player in ["alice", "bob"] {
            try await tmux.start(
                player, command: play(player, port: port), environment: ScriptClientTests.password)
            try await tmux.wait(for: "the connection", on: player) { $0.contains("connected to") ? true : nil }
        }
        try await tmux.send("m", to: "alice")
        try await tmux.wait(for: "alice's room", on: "alice") {
            $0.contains("waiting for anyone to fight") ? true : nil
        }
        try await tmux.send("m", to: "bob")
    }

    /// What the power meter on `screen` says a stop now would do ("… uppercut now 41 of 51").
    static func meterReading(_ screen: String) -> Int? {
        guard let line = screen.split(separator: "\n").first(where: { $0.hasPrefix("  POWER [") }),
            let now = line.range(of: " now ")
        else { return nil }
        return Int(line[now.upperBound...].prefix { $0.isNumber })
    }

    /// The damage of each `kind` thrown by `by` ("you", or a display name), as the log on `screen`
    /// says it ("bob threw a jab for 8 (your stamina 92)").
    static func damages(in screen: String, by: String, kind: String) -> [Int] {
        let article = kind == "uppercut" ? "an" : "a"
        return screen.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "\(by) threw \(article) \(kind) for ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    @Test func twoTerminalsFightToAKnockoutByKeys() async throws {
        // Timed keys: not while a browser starts (PageTests).
        await TakingTurns.shared.begin()
        defer { TakingTurns.shared.end() }
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let tmux = Tmux()
        defer { tmux.kill() }
        let players = ["alice", "bob"]
        try await Self.quickMatch(on: tmux, port: port)
        try await tmux.wait(for: "the fight", on: "bob") { $0.contains("guard: none") ? true : nil }
        // Bob raises a guard and switches it to low, which halves uppercuts but not jabs.
        try await tmux.send("g", to: "bob")
        try await tmux.wait(for: "bob's guard", on: "bob") { $0.contains("guard: HIGH") ? true : nil }
        try await tmux.send("g", to: "bob")
        try await tmux.wait(for: "bob's low guard", on: "bob") { $0.contains("guard: LOW") ? true : nil }

        // Whoever's screen says it is their turn punches, once for each state of the fight. Alice
        // throws first (she opened the room) and times her jabs: she winds up (j), watches the
        // power meter, and throws (space) when a stop would do 34 or more. Bob throws hooks as fast
        // as he can, a wind-up (k) and a throw (k again): a stop that soon hits the meter's floor.
        var punchedAt: [String: [Substring]] = [:]
        var punches: [String: Int] = [:]
        var screens: [String: String] = [:]
        let deadline = Date().addingTimeInterval(90)
        while !players.allSatisfy({
            screens[$0]?.contains("YOU WIN") == true || screens[$0]?.contains("you lose") == true
        }) {
            guard Date() < deadline else { throw TestFailure("no ending after \(punches) punches: \(screens)") }
            for player in players {
                let screen = try await tmux.screen(player)
                screens[player] = screen
                let stamina = Self.staminaLines(screen)
                guard screen.contains("YOUR TURN"), punchedAt[player] != stamina else { continue }
                try await tmux.send(player == "alice" ? "j" : "k", to: player)
                if player == "alice" {
                    try await tmux.wait(for: "a strong stop", on: player, seconds: 10) { screen in
                        Self.meterReading(screen).flatMap { $0 >= 34 ? true : nil }
                    }
                    try await tmux.send("Space", to: player)
                } else {
                    try await tmux.wait(for: "the meter", on: player) { $0.contains("POWER [") ? true : nil }
                    try await tmux.send("k", to: player)
                }
                punchedAt[player] = stamina
                punches[player, default: 0] += 1
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let (alice, bob) = (try #require(screens["alice"]), try #require(screens["bob"]))
        // Who wins depends on how late each stop lands after the screen that prompted it, which a
        // busy machine stretches: so whoever won, the ending and the damage must add up. Every
        // hit is on the meter's scale for its kind, between the floor and the kind's ceiling.
        let aliceWon = alice.contains("YOU WIN (knockout)")
        let (winner, loser) = aliceWon ? (alice, bob) : (bob, alice)
        #expect(winner.contains("YOU WIN (knockout)") && loser.contains("you lose (knockout)"), "\(alice)\n\(bob)")
        let meter = PowerMeter()
        let aliceHits = Self.damages(in: alice, by: "you", kind: "jab")
        let bobHits = Self.damages(in: alice, by: "bob", kind: "hook")
        #expect(!aliceHits.isEmpty && aliceHits.allSatisfy { (meter.floor...meter.jab.ceiling).contains($0) }, "\(aliceHits)")
        #expect(!bobHits.isEmpty && bobHits.allSatisfy { (meter.floor...meter.hook.ceiling).contains($0) }, "\(bobHits)")
        #expect(punches["alice"] == aliceHits.count, "\(punches)")
        #expect(max(aliceHits.reduce(0, +), bobHits.reduce(0, +)) >= 100, "someone was floored: \(aliceHits) \(bobHits)")
        // The stamina alice's screen shows is 100 less what the other did: the winner's above 0.
        let staminas = Self.staminaLines(alice).map { $0.split(separator: " ").last.map(String.init) }
        #expect(staminas.count == 2)
        #expect((aliceWon ? staminas.first : staminas.last) == "\(100 - (aliceWon ? bobHits : aliceHits).reduce(0, +))")
        #expect(
            loser.contains("(your stamina 0, ") && loser.contains(" past 0)"),
            "the knockout punch is in the loser's log, with their stamina and how far past 0 it went")
        #expect(winner.contains("*** KNOCKOUT *** you won"), "the knockout stands out: \(winner)")

        // A rematch is one key: bob is challenged by alice again.
        try await tmux.send("r", to: "alice")
        try await tmux.wait(for: "the rematch", on: "bob") { $0.contains("challenged you") ? true : nil }

        for player in players { try await tmux.send("q", to: player) }
        for player in players { #expect(try await tmux.exitStatus(of: player) == 0) }
    }

    /// A server that is not there: the screen says the client could not connect (not that the
    /// server went), without NIO's words, and `q` quits during the wait between attempts.
    @Test func anUnreachableServerIsSaidSoAndQuitsAtOnce() async throws {
        let port = try ScriptClientTests.closedPort()
        let tmux = Tmux()
        defer { tmux.kill() }
        try await tmux.start("dave", command: Self.play("dave", port: port), environment: ScriptClientTests.password)
        // The longest wait is 8 s scaled by the player's own factor (0.75 to 1.25): 6 s or more,
        // where the one before it is 5 s at the most.
        let screen = try await tmux.wait(for: "the longest wait", on: "dave", seconds: 60) { screen in
            let wait = screen.firstMatch(of: /retrying in ([0-9.]+) seconds/).flatMap { Double($0.1) }
            return (wait ?? 0) >= 6 ? screen : nil
        }
        #expect(screen.contains("could not connect"), "\(screen)")
        #expect(screen.contains("cannot reach the server at 127.0.0.1:\(port): connection refused"), "\(screen)")
        #expect(!screen.contains("server gone") && !screen.contains("NIOConnectionError"), "\(screen)")
        let pressed = ContinuousClock.now
        try await tmux.send("q", to: "dave")
        #expect(try await tmux.exitStatus(of: "dave") == 0)
        #expect(ContinuousClock.now - pressed < .seconds(4), "q waited for the next attempt")
    }

    /// Ctrl-C and SIGTERM quit as `q` does: the terminal is back in its cooked mode, off the
    /// alternate screen and with the cursor shown, and the exit status is 0.
    @Test(arguments: ["C-c", "SIGTERM"])
    func quittingBySignalGivesTheTerminalBack(signal: String) async throws {
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let tmux = Tmux()
        defer { tmux.kill() }
        try await tmux.start(
            "carol", command: Self.play("carol", port: port), environment: ScriptClientTests.password,
            then: "stty -a; read line")
        try await tmux.wait(for: "the connection", on: "carol") { $0.contains("connected to") ? true : nil }
        let terminal = try await tmux.show("#{pane_tty}", of: "carol")
        let playing = try await Self.modes(of: terminal)
        #expect(playing.contains("-icanon") && playing.contains("-echo"), "raw while playing: \(playing)")
        #expect(try await tmux.show("#{alternate_on} #{cursor_flag}", of: "carol") == "1 0")

        if signal == "C-c" {
            try await tmux.send("C-c", to: "carol")
        } else {
            let shell = try await tmux.show("#{pane_pid}", of: "carol")
            let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            let client = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
            kill(client, SIGTERM)
        }
        #expect(try await tmux.exitStatus(of: "carol") == 0)
        let modes = try await Self.modes(of: terminal)
        #expect(modes.contains("icanon") && modes.contains("echo"), "\(modes)")
        #expect(try await tmux.show("#{alternate_on} #{cursor_flag}", of: "carol") == "0 1")
    }

    /// A trace on standard input throws the punches while the keys come from the terminal.
    @Test func aTraceOnStandardInputPunchesWhileKeysComeFromTheTerminal() async throws {
        let trace = "traces/mixed-phyphox.csv"
        let detected = try await ScriptClientTests.detectedPunches(trace)
        try #require(detected.count >= 2)
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let tmux = Tmux()
        defer { tmux.kill() }
        try await tmux.start(
            "dave", command: Self.play("dave", port: port, " --sensor - < \(trace)"),
            environment: ScriptClientTests.password)
        try await tmux.wait(for: "the connection", on: "dave") { $0.contains("connected to") ? true : nil }
        try await tmux.send("m", to: "dave")
        try await tmux.wait(for: "dave's room", on: "dave") { $0.contains("waiting for anyone to fight") ? true : nil }
        let alice = try ScriptClientTests.play("alice", port: port)
        defer { alice.kill(SIGKILL) }
        alice.send("quick")

        // Dave opened the room, so the trace's first punch opens the fight; its second answers alice's jab.
        let first = try await ScriptClientTests.event(2, of: alice)
        alice.send("jab")
        let second = try await ScriptClientTests.event(4, of: alice)
        // The first turn's hold reads the trace from its start, as `detect` does: the same punch.
        // The second begins where the first left off, mid-motion, read by a detector of its own:
        // a punch of dave's lands, the server's kind and damage.
        #expect(ScriptClientTests.wire(first) == detected[0].wire)
        #expect(second.kind == .punched && second.by == first.by && second.punch != nil)
        try await tmux.wait(for: "dave's second punch", on: "dave") { $0.contains("you threw") ? true : nil }

        try await tmux.send("f", "y", to: "dave")
        try await tmux.wait(for: "the forfeit", on: "dave") { $0.contains("you lose") ? true : nil }
        try await tmux.send("q", to: "dave")
        #expect(try await tmux.exitStatus(of: "dave") == 0)
        alice.endInput()
        #expect(try await alice.exitStatus() == 0)
    }

    /// A new user at 80×24, as the README tells it: a location with `l` (a mistake is named on the
    /// screen, and the note goes once the location is set), the other's card with `n`, a challenge
    /// with `c`; the one challenged (whose location came with `--at`) sees the challenger's name and
    /// accepts; `f` asks before forfeiting. No line is wider than the terminal, and none scrolls off.
    @Test func aNewUserSetsALocationFindsAnOpponentAndChallengesAtEightyByTwentyFour() async throws {
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let tmux = Tmux(width: 80, height: 24)
        defer { tmux.kill() }
        let password = ScriptClientTests.password
        try await tmux.start(
            "bob", command: Self.play("bob", port: port, " --at 48.8566,2.3522"), environment: password)
        try await tmux.wait(for: "bob's location", on: "bob") { $0.contains("You are at 48.8566, 2.3522") ? true : nil }
        try await tmux.start("alice", command: Self.play("alice", port: port), environment: password)
        try await tmux.wait(for: "the hint", on: "alice") { $0.contains("No location yet: press l") ? true : nil }
        try await Self.expectFits(tmux, "alice")

        try await tmux.send("n", to: "alice")
        try await tmux.wait(for: "the error", on: "alice") { $0.contains("set your location first") ? true : nil }
        try await tmux.send("l", "48.86", "Enter", to: "alice")
        try await tmux.wait(for: "the mistake", on: "alice") {
            $0.contains("location \"48.86\": expected LAT,LON") ? true : nil
        }
        try await Self.expectFits(tmux, "alice")
        // The wrong text is cleared: the location is typed again whole.
        try await tmux.send("48.86,2.35", "Enter", to: "alice")
        let located = try await tmux.wait(for: "alice's location", on: "alice") {
            $0.contains("You are at 48.86, 2.35") ? $0 : nil
        }
        #expect(!located.contains("expected LAT,LON"), "the note goes once the location is set:\n\(located)")

        try await tmux.send("n", to: "alice")
        try await tmux.wait(for: "bob's card", on: "alice") { $0.contains("Versus: bob (@bob)") ? true : nil }
        try await Self.expectFits(tmux, "alice")
        try await tmux.send("c", to: "alice")
        try await tmux.wait(for: "the challenge", on: "bob") { $0.contains("alice challenged you") ? true : nil }
        try await Self.expectFits(tmux, "bob")
        try await tmux.send("a", to: "bob")
        try await tmux.wait(for: "the fight", on: "alice") { $0.contains("Fight 1 against bob: active") ? true : nil }
        try await Self.expectFits(tmux, "alice")

        try await tmux.send("f", to: "alice")
        try await tmux.wait(for: "the question", on: "alice") { $0.contains("y forfeits") ? true : nil }
        try await tmux.send("n", to: "alice")
        let carriedOn = try await tmux.wait(for: "the key bar", on: "alice") {
            $0.contains(ScreenModel.yourTurnKeys) ? $0 : nil
        }
        #expect(carriedOn.contains("Fight 1 against bob: active"), "\(carriedOn)")
        try await tmux.send("f", "y", to: "alice")
        try await tmux.wait(for: "the forfeit", on: "alice") { $0.contains("you lose (forfeit)") ? true : nil }
        try await tmux.wait(for: "the win", on: "bob") { $0.contains("YOU WIN (forfeit)") ? true : nil }
        for player in ["alice", "bob"] {
            try await Self.expectFits(tmux, player)
            try await tmux.send("q", to: player)
            #expect(try await tmux.exitStatus(of: player) == 0)
        }
    }

    /// The other player's presence at 80×24, as the server knows it: connected once the fight is
    /// on, gone (and how long ago) when they leave mid-fight, back when they return.
    @Test func theOtherPlayerLeavingAndComingBackShowsAtEightyByTwentyFour() async throws {
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let tmux = Tmux(width: 80, height: 24)
        defer { tmux.kill() }
        try await Self.quickMatch(on: tmux, port: port)
        try await tmux.wait(for: "bob there", on: "alice") { $0.contains("\n  bob: connected\n") ? true : nil }
        try await tmux.wait(for: "alice there", on: "bob") { $0.contains("\n  alice: connected\n") ? true : nil }

        try await tmux.send("q", "y", to: "bob")
        #expect(try await tmux.exitStatus(of: "bob") == 0)
        try await tmux.wait(for: "bob gone", on: "alice") {
            $0.contains("\n  bob is gone (connection lost ") ? true : nil
        }
        try await Self.expectFits(tmux, "alice")

        try await tmux.start(
            "bob-again", command: Self.play("bob", port: port), environment: ScriptClientTests.password)
        try await tmux.wait(for: "bob back", on: "alice") { $0.contains("\n  bob is back\n") ? true : nil }
        try await tmux.wait(for: "alice there", on: "bob-again") {
            $0.contains("\n  alice: connected\n") ? true : nil
        }
        try await Self.expectFits(tmux, "alice")
        for player in ["alice", "bob-again"] {
            try await tmux.send("q", "y", to: player)
            #expect(try await tmux.exitStatus(of: player) == 0)
        }
    }

    // MARK: - Helpers

    /// Checks that session `name`'s screen has no line wider than the terminal (a wrapped line
    /// comes back whole) and that its first line is still the title (nothing scrolled off).
    static func expectFits(_ tmux: Tmux, _ name: String) async throws {
        let screen = try await tmux.screen(name, joined: true)
        let wide = screen.split(separator: "\n").filter { $0.count > tmux.width }
        #expect(wide.isEmpty, "lines wider than \(tmux.width) on \(name)'s screen: \(wide)")
        #expect(screen.hasPrefix("HitThat — \(name)"), "the title scrolled off \(name)'s screen:\n\(screen)")
    }

    /// The modes `stty -a` lists for `terminal` (`icanon`, `-echo`, …), all of them: `exitStatus()`
    /// waits until the output has been read to its end.
    static func modes(of terminal: String) async throws -> [Substring] {
        let stty = try RunningCommand(
            ["stty", "-a", "-F", terminal], executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(try await stty.exitStatus() == 0, "\(stty.errorOutput)")
        return stty.output.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == ";" }) }
    }
}
