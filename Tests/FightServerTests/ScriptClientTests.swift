import FightEngine
import FightProtocol
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built `hitthat serve` and `hitthat play --script`, as separate processes over loopback.
@Suite(.serialized) struct ScriptClientTests {
    static let password = ["HITTHAT_PASSWORD": "correct horse"]

    /// `hitthat serve` on `port` (0: any free one, read back from its log), with `more` options.
    static func serve(database: String, port: Int = 0, _ more: [String] = []) async throws -> (
        server: RunningCommand, port: Int
    ) {
        let server = try RunningCommand(
            ["serve", "--port", "\(port)", "--database", database, "--password-rounds", "1000"] + more)
        // The WebSocket's address: wss:// with --tls-cert.
        let scheme = more.contains("--tls-cert") ? "wss" : "ws"
        let port = try await server.wait("the server to listen", seconds: 120) { output, errors in
            (output + errors).lazy.compactMap { line -> Int? in
                guard line.contains("serving"), let range = line.range(of: "\(scheme)://127.0.0.1:") else { return nil }
                return Int(line[range.upperBound...].prefix(while: \.isNumber))
            }.first
        }
        return (server, port)
    }

    static func play(_ user: String, port: Int, sensor: String? = nil, _ more: [String] = []) throws -> RunningCommand {
        try RunningCommand(
            ["play", "--user", user, "--server", "ws://127.0.0.1:\(port)", "--script"]
                + (sensor.map { ["--sensor", $0] } ?? []) + more,
            environment: password)
    }

    /// Has `opener` open a quick-match room, then starts `user` in script mode to join it: the fight
    /// is on, and the opener throws first.
    static func match(_ opener: RunningCommand, with user: String, port: Int) async throws -> RunningCommand {
        opener.send("quick")
        try await opener.wait("the room") { output, _ in
            output.contains { $0.contains(#""openedRoom""#) } ? true : nil
        }
        let joiner = try play(user, port: port)
        joiner.send("quick")
        return joiner
    }

    /// A punch as the server reports it and as the client sends a detected one: "kind damage".
    static func wire(_ event: WireEvent?) -> String {
        "\(event?.punch?.rawValue ?? "?") \(event?.damage ?? 0)"
    }

    /// The punches `hitthat detect` finds in `trace`: their times from its start, and as they land
    /// (damage bounded as the client bounds it, then at most the kind's ceiling, as the server does).
    static func detectedPunches(_ trace: String) async throws -> [(t: Double, wire: String)] {
        let detect = try RunningCommand(["detect", "--json", trace])
        #expect(try await detect.exitStatus() == 0, "\(detect.errorOutput)")
        return try detect.output.map { line in
            let punch = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let (kind, damage) = (try #require(punch["type"] as? String), try #require(punch["damage"] as? Int))
            let type = try #require(PunchType(rawValue: kind))
            let landed = Rules().meter.damage(of: type, measured: Rules.clampedDamage(damage))
            return (try #require(punch["t"] as? Double), "\(kind) \(landed)")
        }
    }

    /// Waits for event `sequence` of fight 1 as `player` printed it.
    static func event(_ sequence: Int, of player: RunningCommand) async throws -> WireEvent {
        try await player.wait("event \(sequence)") { _, _ in events(of: player)[sequence] }
    }

    /// Fight 1's events as `player` printed them, pushed or replayed, each sequence once.
    static func events(of player: RunningCommand) -> [Int: WireEvent] {
        var events: [Int: WireEvent] = [:]
        for message in player.messages {
            let received: [WireEvent]
            switch message.body {
            case .event(let event): received = [event]
            case .events(let reply): received = reply.events
            default: received = []
            }
            for event in received where event.fight != nil {
                if let sequence = event.sequence { events[sequence] = event }
            }
        }
        return events
    }

    @Test func twoClientsPunchingFromTracesFightToAKnockout() async throws {
        let (server, port) = try await Self.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGKILL) }  // only if a failed check left it running
        let alice = try Self.play("alice", port: port, sensor: "traces/mixed-generic-100hz.csv")
        alice.send("quick")
        alice.endInput()
        try await alice.wait("alice's room") { output, _ in
            output.contains { $0.contains(#""openedRoom""#) } ? true : nil
        }
        let bob = try Self.play("bob", port: port, sensor: "traces/mixed-phyphox.csv")
        bob.send("quick")
        bob.endInput()

        #expect(try await alice.exitStatus() == 0)
        #expect(try await bob.exitStatus() == 0)
        let (seenByAlice, seenByBob) = (Self.events(of: alice), Self.events(of: bob))
        #expect(seenByAlice == seenByBob, "both saw the same fight")
        let last = try #require(seenByAlice.keys.max())
        #expect(Set(seenByAlice.keys) == Set(1...last), "no event missing")
        let ending = try #require(seenByAlice[last])
        #expect(ending.kind == .ended && ending.decision == .known(.knockout) && ending.winner != nil)
        let punches = seenByAlice.values.filter { $0.kind == .punched }
        #expect(punches.allSatisfy { Rules.punchDamage.contains($0.damage ?? 0) })
        #expect(punches.contains { $0.staminaLeft == 0 })
        // The server's pushes are printed as they came, presence among them: as the fight began,
        // each was told the other was there.
        for player in [alice, bob] {
            #expect(
                player.messages.contains {
                    if case .presence(let presence) = $0.body { presence.state == .known(.connected) } else { false }
                })
        }
        server.kill(SIGTERM)
        #expect(server.process.terminationStatus == 0, "SIGTERM stops the server gracefully")
    }

    @Test func aServerKilledMidFightRestartsAndTheClientsFinishTheFight() async throws {
        let database = try TestServer.temporaryDatabase()
        var (server, port) = try await Self.serve(database: database)
        defer { server.kill(SIGTERM) }  // the server of the moment: the restarted one after the kill
        let alice = try Self.play("alice", port: port)
        let bob = try Self.play("bob", port: port)
        alice.send("quick")
        try await alice.wait("alice's room") { output, _ in
            output.contains { $0.contains(#""openedRoom""#) } ? true : nil
        }
        bob.send("quick")

        // Alice opened the room, so she throws first. Both throw bare jabs, the power meter stopped
        // at once (8), and alice's high guard halves bob's: she knocks him out on her 13th, and
        // his answer leaves her standing. The server is killed after the 6th punch; the restart
        // starts the turn under way afresh, event 8, and alice's coming back once more, event 9.
        let matched = try await Self.event(1, of: alice)
        let aliceID = try #require(matched.challenger)
        // The fight named: its state may still be on its way to alice's session.
        alice.send("guard high \(try #require(matched.fight).rawValue)")
        try await alice.wait("alice's guard") { output, _ in
            output.contains { $0.contains(#""ownGuard":"high""#) } ? true : nil
        }
        var (punches, next) = (0, 2)
        while true {
            if punches == 6 {
                server.kill(SIGKILL)
                (server, _) = try await Self.serve(database: database, port: port)
                next += 2
            }
            let before = try await Self.event(next - 1, of: alice)
            guard let turn = before.turn else { break }
            let puncher = turn == aliceID ? alice : bob
            // The puncher's client has the fight at `next - 1` once it has printed every event up
            // to it: after the restart event 9 may be pushed before the replay of 8 comes, and a
            // client applies events only in order (a jab then would be stale, at 7).
            try await puncher.wait("events up to \(next - 1)") { _, _ in
                Set(Self.events(of: puncher).keys).isSuperset(of: 1..<next) ? true : nil
            }
            puncher.send("jab")
            for player in [alice, bob] {
                try await player.wait("punch \(punches) seen") { _, _ in
                    Self.events(of: player)[next]?.kind == .punched ? true : nil
                }
            }
            (punches, next) = (punches + 1, next + 1)
        }
        #expect(punches == 26, "13 jabs of 8 knock bob out, and he answers")
        for player in [alice, bob] {
            try await player.wait("the end") { _, _ in Self.events(of: player)[next]?.kind == .ended ? true : nil }
            player.send("profile")
            player.endInput()
            #expect(try await player.exitStatus() == 0)
            let events = Self.events(of: player)
            #expect(Set(events.keys) == Set(1...next), "nothing lost across the kill")
            #expect(events.values.filter { $0.kind == .punched }.count == punches, "nothing applied twice")
            #expect(events[8]?.kind == .turnPassed && events[8]?.missedTurns == 0, "the turn under way resumed")
            #expect(events[9]?.kind == .turnPassed && events[9]?.turn == events[8]?.turn, "and again for alice back")
            #expect(events[next]?.winner == aliceID)
        }
        #expect(alice.errorOutput.contains { $0.contains("server gone") }, "alice noticed the server go")
        let records = [alice, bob].compactMap { $0.messages.compactMap(\.profileCard).last }.map {
            ($0.wins, $0.losses)
        }
        #expect(records.count == 2 && records[0] == (1, 0) && records[1] == (0, 1))
    }

    /// A client that was away (stopped) while the server restarted and its opponent punched gets the
    /// punch replayed when it comes back, rather than the fight's new state alone.
    @Test func aClientAwayWhileItsOpponentPunchedGetsThePunchReplayed() async throws {
        let database = try TestServer.temporaryDatabase()
        var (server, port) = try await Self.serve(database: database)
        defer { server.kill(SIGTERM) }  // the server of the moment: the restarted one after the kill
        let alice = try Self.play("alice", port: port)
        defer { alice.kill(SIGKILL) }
        let bob = try await Self.match(alice, with: "bob", port: port)
        defer { bob.kill(SIGKILL) }
        _ = try await Self.event(1, of: alice)
        alice.send("jab")
        _ = try await Self.event(2, of: bob)
        bob.send("jab")
        _ = try await Self.event(3, of: alice)

        kill(bob.process.processIdentifier, SIGSTOP)
        server.kill(SIGKILL)
        (server, _) = try await Self.serve(database: database, port: port)
        try await alice.wait("alice back") { _, errors in
            errors.filter { $0.contains("status: connected") }.count == 2 ? true : nil
        }
        alice.send("jab")
        let punch = try await Self.event(4, of: alice)
        kill(bob.process.processIdentifier, SIGCONT)
        #expect(try await Self.event(4, of: bob) == punch)

        bob.send("forfeit")
        for player in [alice, bob] {
            player.endInput()
            #expect(try await player.exitStatus() == 0)
        }
    }

    // MARK: - Location

    /// `--at` is given once connected (a southern latitude is a value, not an option), and the
    /// server keeps it: a later run without `--at` is welcomed with it. Out of range is a usage
    /// error before anything happens.
    @Test func atSetsTheLocationAndTheServerKeepsIt() async throws {
        let wrong = try RunningCommand(
            ["play", "--user", "alice", "--script", "--at", "91,0"], environment: Self.password)
        #expect(try await wrong.exitStatus() == 64)
        #expect(
            wrong.errorOutput.contains { $0.contains("--at: latitude 91 is not within -90…90") }, "\(wrong.errorOutput)"
        )

        let (server, port) = try await Self.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let first = try Self.play("alice", port: port, ["--at", "-33.9,18.4"])
        first.send("quit")
        #expect(try await first.exitStatus() == 0, "\(first.errorOutput)")
        let moved = first.messages.compactMap { message -> WireEvent? in
            if case .event(let event) = message.body, event.kind == .moved { return event }
            return nil
        }
        #expect(moved.map { [$0.latitude, $0.longitude] } == [[-33.9, 18.4]])

        let second = try Self.play("alice", port: port)
        second.send("quit")
        #expect(try await second.exitStatus() == 0, "\(second.errorOutput)")
        let welcomed = second.messages.compactMap { message -> FighterCard? in
            if case .welcome(let welcome) = message.body { return welcome.fighter }
            return nil
        }
        #expect(welcomed.map { [$0.latitude, $0.longitude] } == [[-33.9, 18.4]])
    }

    // MARK: - Failures

    /// A port on loopback that nothing listens on: bound by the kernel's choice, then closed.
    static func closedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                guard bind(socket, socketAddress, length) == 0, getsockname(socket, socketAddress, &length) == 0
                else { throw TestFailure("cannot bind a socket on loopback") }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A sensor file that is not there fails before the client connects (the port here is
    /// closed), with the reason `detect` gives and its exit status.
    @Test func aMissingSensorFileFailsAtOnceWithItsName() async throws {
        let player = try Self.play("alice", port: try Self.closedPort(), sensor: "nosuch.csv")
        #expect(try await player.exitStatus() == 66)
        #expect(player.errorOutput.contains { $0.hasPrefix("nosuch.csv: cannot open") }, "\(player.errorOutput)")
        #expect(!player.errorOutput.contains { $0.contains("cannot reach") }, "it did not try to connect")
    }

    /// A malformed recording is read whole before the client connects, and fails as `detect`
    /// fails on it: file:line:column, exit status 65.
    @Test func aMalformedSensorFileFailsAtOnceWhereItIsWrong() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("malformed-\(UUID()).csv").path
        try "t,x,y,z\n0,0,0,1\n0.01,abc,0,1\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = try Self.play("alice", port: try Self.closedPort(), sensor: path)
        #expect(try await player.exitStatus() == 65)
        #expect(player.errorOutput.contains { $0.hasPrefix("\(path):3:") }, "\(player.errorOutput)")
    }

    /// A live sensor (here a pipe) that turns out malformed mid-session ends a script with the
    /// error and `detect`'s exit status, rather than leaving it waiting for punches.
    @Test func aLiveSensorThatFailsEndsTheScriptWithItsError() async throws {
        let (server, port) = try await Self.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("sensor-\(UUID())").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let player = try Self.play("alice", port: port, sensor: fifo)
        defer { player.kill(SIGTERM) }
        // Opening for writing waits for the client to open it for reading.
        let writer = try #require(FileHandle(forWritingAtPath: fifo))
        try await player.wait("the connection") { _, errors in
            errors.contains { $0.contains("connected to") } ? true : nil
        }
        writer.write(Data("t,x,y,z\n0,0,0,1\n0.01,abc,0,1\n".utf8))
        try writer.close()
        #expect(try await player.exitStatus() == 65)
        #expect(player.errorOutput.contains { $0.contains("\(fifo):3:") }, "\(player.errorOutput)")
    }

    /// A server that is not there is an error that says so, not a note and exit status 0.
    @Test func anUnreachableServerIsAnErrorThatSaysSo() async throws {
        let port = try Self.closedPort()
        let player = try Self.play("alice", port: port)
        player.send("profile")
        #expect(try await player.exitStatus() == 1)
        #expect(
            player.errorOutput.contains("cannot reach the server at 127.0.0.1:\(port): connection refused"),
            "\(player.errorOutput)")
        #expect(!player.errorOutput.contains { $0.hasPrefix("note:") }, "\(player.errorOutput)")
    }

    /// `quit` right after a command (before the client has even connected) still gets its reply.
    @Test func quitWaitsForTheRepliesToWhatWasSent() async throws {
        let (server, port) = try await Self.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let player = try Self.play("alice", port: port)
        player.send("profile")
        player.send("quit")
        player.endInput()
        #expect(try await player.exitStatus() == 0)
        let profiles = player.messages.filter { if case .profile = $0.body { true } else { false } }
        #expect(profiles.count == 1, "\(player.output)")
    }
}
