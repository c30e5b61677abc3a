import FightProtocol
import Foundation
import InputDevicesTestSupport
import Testing

/// `hitthat play --sensor NODE` against a fake DualSense served through FUSE, whose events the
/// test lets through a punch at a time: the node blocks at each gate as a controller does until
/// the player moves.
@Suite(
    .serialized,
    .enabled(
        if: FakeEvdev.isAvailable,
        "needs /dev/fuse, cc, pkg-config and libfuse3-dev (apt: fuse3 libfuse3-dev pkg-config)"),
    .timeLimit(.minutes(2))
)
struct LiveSensorPlayTests {
    /// A simulated session as a DualSense sends it (8192 units per g, so ±4 g), and the punches
    /// `detect` finds in the same session as a trace, with their times from its start.
    static func dualSenseSession(seed: Int) async throws -> (events: [UInt8], punches: [(t: Double, wire: String)]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hitthat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = directory.appendingPathComponent("session").path
        // With a gyroscope: a DualSense reports one, and the trace carries the same turns.
        let common = ["simulate", "--seed", "\(seed)", "--punches", "8", "--range", "4", "--gyroscope"]
        for extra in [
            ["--format", "input-events", "--scale", "8192", "--output", base + ".events"], ["--output", base + ".csv"],
        ] {
            let simulate = try RunningCommand(common + extra)
            #expect(try await simulate.exitStatus() == 0, "\(simulate.errorOutput)")
        }
        let punches = try await ScriptClientTests.detectedPunches(base + ".csv")
        return (Array(try Data(contentsOf: URL(fileURLWithPath: base + ".events"))), punches)
    }

    /// The byte offset just after the first frame (SYN_REPORT) at or after `time` seconds from the
    /// first event, in 24-byte `input_event` records.
    static func offset(after time: Double, in events: [UInt8]) -> Int {
        func integer(_ at: Int, _ size: Int) -> Int64 {
            (0..<size).reduce(Int64(0)) { $0 | Int64(events[at + $1]) << (8 * $1) }
        }
        func seconds(_ record: Int) -> Double {
            Double(integer(record * 24, 8)) + Double(integer(record * 24 + 8, 8)) / 1e6
        }
        let start = seconds(0)
        for record in 0..<events.count / 24
        where integer(record * 24 + 16, 4) == 0 && seconds(record) - start >= time {  // type 0, code 0
            return (record + 1) * 24
        }
        return events.count
    }

    @Test func aControllerLandsThePunchesItMakesInTurnOnePerTurn() async throws {
        let session = try await Self.dualSenseSession(seed: 14)
        let detected = session.punches
        try #require(detected.count >= 7, "\(detected)")
        // Gate g (1-based) lies between punches g-1 and g: opening it lets punch g happen.
        var node = FakeNode.dualSense(events: session.events)
        node.holdAt = (1..<detected.count).map {
            Self.offset(after: (detected[$0 - 1].t + detected[$0].t) / 2, in: session.events)
        }
        let fixture = try FakeInputDirectory([node])
        defer { fixture.stop() }
        // Never leave the client's read waiting at a gate, whatever happens.
        defer { try? fixture.open(gates: node.holdAt.count, of: "event3") }
        func letThrough(gates count: Int) async throws {
            try fixture.open(gates: count, of: "event3")
            let deadline = Date().addingTimeInterval(30)
            while fixture.waitingGate(of: "event3") != count + 1 {
                guard Date() < deadline || fixture.waitingGate(of: "event3") == count + 1 else {
                    throw TestFailure("the client never read up to gate \(count + 1)")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let alice = try ScriptClientTests.play("alice", port: port, sensor: fixture.node("event3"))
        defer { alice.kill(SIGKILL) }
        // Punch 0 happens before any fight: nobody waits for it.
        try await letThrough(gates: 0)
        let bob = try await ScriptClientTests.match(alice, with: "bob", port: port)
        defer { bob.kill(SIGKILL) }
        func event(_ sequence: Int) async throws -> WireEvent { try await ScriptClientTests.event(sequence, of: alice) }
        let matched = try await event(1)
        #expect(matched.kind == .matched)

        // The server's detector reads each of alice's turns as a hold of its own, from the motion
        // since the turn began (here, from a gate halfway between two punches), not the whole
        // session `detect` reads: the punch that lands is alice's, its kind and damage the
        // server's. (MotionTests holds them to what `detect` finds in the same samples.)
        func landedByAlice(_ event: WireEvent) {
            // Alice opened the room: the fight's challenger.
            #expect(event.kind == .punched && event.by == matched.challenger, "\(event)")
            #expect(event.punch != nil && (1...56).contains(event.damage ?? 0), "\(event)")
        }
        // Alice opened the room, so she throws first: punch 1 lands.
        try await letThrough(gates: 1)
        landedByAlice(try await event(2))
        // Punch 2 comes in bob's turn: it is not sent, then or later.
        try await letThrough(gates: 2)
        // Bob's client must know it is his turn, or it keeps his jab back as out of turn.
        _ = try await ScriptClientTests.event(2, of: bob)
        bob.send("jab")
        #expect(try await event(3).kind == .punched)
        // Punches 3 and 4 both come in alice's turn: only the first counts.
        try await letThrough(gates: 4)
        landedByAlice(try await event(4))
        _ = try await ScriptClientTests.event(4, of: bob)
        bob.send("jab")
        #expect(try await event(5).kind == .punched)
        try await letThrough(gates: 5)
        landedByAlice(try await event(6))

        bob.send("forfeit")
        try await alice.wait("the end") { _, _ in
            ScriptClientTests.events(of: alice).values.contains { $0.kind == .ended } ? true : nil
        }
        try fixture.open(gates: node.holdAt.count, of: "event3")
        for player in [alice, bob] {
            player.endInput()
            #expect(try await player.exitStatus() == 0)
        }
        let punches = ScriptClientTests.events(of: alice).sorted { $0.key < $1.key }.map(\.value).filter {
            $0.kind == .punched
        }
        #expect(punches.count == 5, "alice's three and bob's two, nothing else: \(punches.map(ScriptClientTests.wire))")
        #expect(!alice.output.contains { $0.contains(#""type":"error""#) }, "no punch was sent out of turn")
    }
}

/// `hitthat play --raw-events`: input_event records in a file are a recording, so its punches
/// queue up and one is thrown each turn.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RawEventsPlayTests {
    @Test func rawEventsInAFileThrowTheirPunchesOneATurn() async throws {
        let session = try await LiveSensorPlayTests.dualSenseSession(seed: 12)
        try #require(session.punches.count >= 2)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hitthat-\(UUID().uuidString).events")
        try Data(session.events).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let alice = try ScriptClientTests.play(
            "alice", port: port, sensor: file.path, ["--raw-events", "--scale", "8192"])
        defer { alice.kill(SIGKILL) }
        let bob = try await ScriptClientTests.match(alice, with: "bob", port: port)
        defer { bob.kill(SIGKILL) }
        func event(_ sequence: Int) async throws -> WireEvent { try await ScriptClientTests.event(sequence, of: alice) }
        // Alice opened the room, so she throws first: the recording's first punch, then its second.
        #expect(ScriptClientTests.wire(try await event(2)) == session.punches[0].wire)
        // Alice seeing her punch does not mean bob has: until he does, his client keeps the jab back.
        _ = try await ScriptClientTests.event(2, of: bob)
        bob.send("jab")
        #expect(ScriptClientTests.wire(try await event(4)) == session.punches[1].wire)
        bob.send("forfeit")
        for player in [alice, bob] {
            player.endInput()
            #expect(try await player.exitStatus() == 0)
        }
    }
}
