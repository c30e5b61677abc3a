import FightClient
import FightEngine
import FightProtocol
import FightStoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Two `hitthat serve` processes, the built binary, on one PostgreSQL database (issue 30): players
/// on different servers fight with each other's punches pushed live; one server is killed with
/// SIGKILL mid-fight, its player goes on on the other, where the turn the dead one began lapses.
@Suite(
    .enabled(
        if: StoreBackend.available.contains(.postgres), "HITTHAT_POSTGRES_URL is not set: no PostgreSQL to share"))
struct SharedDatabaseProcessesTests {
    /// Seconds a turn lasts: long enough for a jab timed on the meter on a busy machine, short
    /// enough to wait for one to lapse.
    static let turnTimeout = 6

    /// The client that shares no code with ours (`tools/protocol_client.py`) plays its whole check
    /// with its players split over two servers, and the first server killed after the second punch:
    /// its player reconnects to the other, replays what it missed, and the fight, both players'
    /// events, records and history come out as on one server.
    @Test func theThirdPartyClientPlaysItsCheckOverTwoServersOneKilled() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let (a, portA) = try await ScriptClientTests.serve(database: database)
        defer { a.kill(SIGKILL) }
        let (b, portB) = try await ScriptClientTests.serve(database: database)
        defer { b.kill(SIGTERM) }
        let client = try RunningCommand(
            [
                "python3", "tools/protocol_client.py", "--server", "http://127.0.0.1:\(portA)",
                "--server", "http://127.0.0.1:\(portB)", "--kill", "\(a.process.processIdentifier)", "--kill-after", "2",
                "--seed", "3",
            ], executable: URL(fileURLWithPath: "/usr/bin/env"))
        let status = try await client.exitStatus(seconds: 180)
        #expect(status == 0, "\(client.errorOutput.suffix(5))")
        let outcome = try #require(client.output.last, "no outcome")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(outcome.utf8)) as? [String: Any])
        #expect(summary["servers"] as? Int == 2)
        let killed = try #require(summary["killed"] as? [String: Any], "the first server was not killed: \(summary)")
        #expect(killed["after"] as? Int == 3, "the kill came after the second punch (events 2 and 3)")
        _ = try await a.exitStatus(seconds: 10)
        #expect(a.process.terminationReason == .uncaughtSignal && a.process.terminationStatus == SIGKILL)
        let punches = try #require(summary["punches"] as? Int)
        #expect(summary["events"] as? Int == 1 + punches + 1, "matched, every punch, ended: nothing lost, nothing twice")
    }

    @Test func twoServerProcessesFightOnAfterOneIsKilled() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let options = ["--turn-timeout", "\(Self.turnTimeout)"]
        let (a, portA) = try await ScriptClientTests.serve(database: database, options)
        defer { a.kill(SIGKILL) }  // only if a failed check left it running
        let (b, portB) = try await ScriptClientTests.serve(database: database, options)
        defer { b.kill(SIGKILL) }
        let onA = ServerAddress(host: "127.0.0.1", port: portA), onB = ServerAddress(host: "127.0.0.1", port: portB)
        let alice = try await Player.join("alice", at: onA)
        let bob = try await Player.join("bob", at: onB)
        // Every event of the fight each fighter took, by sequence: none may come twice.
        var seen: [FighterID: [Int: WireEvent.Kind]] = [:]
        func note(_ event: WireEvent, by player: Player) throws {
            let sequence = try #require(event.sequence)
            #expect(seen[player.id]?[sequence] == nil, "event \(sequence) came twice to fighter \(player.id)")
            seen[player.id, default: [:]][sequence] = event.kind
        }

        let challenged = try #require(try await alice.command(.challenge(OpponentRef(opponent: bob.id))).event)
        let fight = try #require(challenged.fight)
        try note(challenged, by: alice)
        try note(try await bob.event(.challenged, fight: fight), by: bob)
        try note(try #require(try await bob.command(.accept(FightRef(fight: fight))).event), by: bob)
        try note(try await alice.event(.accepted, fight: fight), by: alice)

        // Alice on A and bob on B trade jabs; each sees the other's pushed as it lands.
        var after = 2
        for (puncher, watcher) in [(alice, bob), (bob, alice), (alice, bob)] {
            let landed = try await Self.jab(by: puncher, in: fight, after: after)
            let seen = try await watcher.event(.punched, fight: fight)
            #expect(seen.sequence == landed.sequence && seen.staminaLeft == landed.staminaLeft)
            try note(landed, by: puncher)
            try note(seen, by: watcher)
            after = try #require(landed.sequence)
        }

        // A dies mid-fight, just after its punch began bob's turn. B passes that turn when it lapses.
        a.kill(SIGKILL)
        let lapsed = try await bob.event(.turnPassed, fight: fight)
        #expect(lapsed.sequence == after + 1 && lapsed.turn == alice.id && lapsed.missedTurns == 1)
        try note(lapsed, by: bob)
        after += 1

        // Alice, cut off, reconnects to B and catches up by sequence: the lapse, once.
        let aliceOnB = try await Player.connect(alice.client.session, to: onB)
        let missed = try #require(
            try await aliceOnB.request(.replay(ReplayRequest(fight: fight, after: after - 1))).events)
        #expect(missed.map(\.sequence) == [after])
        for event in missed { try note(event, by: aliceOnB) }

        // The two finish on B, jab for jab, until the fight ends.
        var turn = alice.id
        var ended: WireEvent?
        while ended == nil, after < 40 {
            let (puncher, watcher) = turn == alice.id ? (aliceOnB, bob) : (bob, aliceOnB)
            let landed = try await Self.jab(by: puncher, in: fight, after: after)
            try note(landed, by: puncher)
            try note(try await watcher.event(.punched, fight: fight), by: watcher)
            after = try #require(landed.sequence)
            if landed.turn == nil {
                for player in [aliceOnB, bob] {
                    let end = try await player.event(.ended, fight: fight)
                    try note(end, by: player)
                    ended = end
                }
            } else {
                turn = try #require(landed.turn)
            }
        }
        let result = try #require(ended, "no knockout in 40 events")
        #expect(result.decision == .known(.knockout))

        // Nothing lost, nothing twice: the log is whole, and each player saw all of it once.
        let log = try #require(try await bob.request(.replay(ReplayRequest(fight: fight, after: 0))).events)
        #expect(log.map(\.sequence) == Array(1...log.count))
        for player in [alice, bob] {
            #expect(Set(seen[player.id, default: [:]].keys) == Set(log.compactMap(\.sequence)))
        }
        try await Task.sleep(for: .milliseconds(300))
        for player in [aliceOnB, bob] {
            #expect(player.taken { $0.event?.fight == fight } == [], "an event pushed twice")
        }
        // Records and statistics counted once.
        let winner = try #require(result.winner)
        for player in [aliceOnB, bob] {
            let card = try #require(try await player.request(.profile(ProfileRequest())).profileCard)
            #expect((card.wins, card.losses) == (player.id == winner ? (1, 0) : (0, 1)))
            guard case .statistics(let stats) = try await player.request(.statistics(StatisticsRequest())).body else {
                throw TestFailure("no statistics")
            }
            #expect(stats.fighter.qtyBattles == 1 && stats.overall.qtyBattles == 1)
        }

        b.kill(SIGTERM)
        #expect(b.process.terminationStatus == 0, "SIGTERM stops the server gracefully")
        let audit = try RunningCommand(["audit", "--database", database])
        #expect(try await audit.exitStatus() == 0, "\(audit.errorOutput)")
        #expect(audit.errorOutput.last?.hasSuffix("consistent") == true)
    }

    /// A lone server on PostgreSQL killed (SIGKILL) in alice's turn and started again at once
    /// under its own name, within the 15 s lease its first run left: the start knows that lease
    /// for its own, waits until the dead run would have renewed it, and is alone, so the turn
    /// starts afresh. Nobody is charged a missed turn (PROTOCOL.md: a server that was down costs
    /// nobody a turn), and alice's jab lands. A server then started under the same name, while
    /// this one serves, is refused (exit status 78) and changes nothing.
    @Test func aLoneServerKilledAndRestartedWithinItsLeaseCostsNobodyATurn() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let named = ["--name", "solo"]
        let (first, port) = try await ScriptClientTests.serve(database: database, named)
        defer { first.kill(SIGKILL) }
        let onFirst = ServerAddress(host: "127.0.0.1", port: port)
        let alice = try await Player.join("alice", at: onFirst), bob = try await Player.join("bob", at: onFirst)
        let fight = try #require(try await alice.command(.challenge(OpponentRef(opponent: bob.id))).event?.fight)
        try #require(try await bob.command(.accept(FightRef(fight: fight))).error == nil)
        #expect(try await alice.event(.accepted, fight: fight).turn == alice.id)

        first.kill(SIGKILL)
        _ = try await first.exitStatus(seconds: 10)
        let (second, secondPort) = try await ScriptClientTests.serve(database: database, named)
        defer { second.kill(SIGKILL) }
        let onSecond = ServerAddress(host: "127.0.0.1", port: secondPort)
        let aliceBack = try await Player.connect(alice.client.session, to: onSecond)
        // The turn the start began afresh is hers again as she comes back (owed to her), pushed.
        let owed = try await aliceBack.event(.turnPassed, fight: fight)
        #expect(owed.turn == alice.id && owed.missedTurns == 0)
        let landed = try await Self.jab(by: aliceBack, in: fight, after: try #require(owed.sequence))
        #expect(landed.damage ?? 0 > 0)
        let log = try #require(try await aliceBack.request(.replay(ReplayRequest(fight: fight, after: 0))).events)
        let passed = log.filter { $0.kind == .turnPassed }
        #expect(passed.count == 2, "the start's resumption and the turn owed to alice: \(log.map(\.kind))")
        #expect(passed.allSatisfy { $0.missedTurns == 0 && $0.turn == alice.id }, "a turn charged: \(passed)")

        let twin = try RunningCommand(
            ["serve", "--port", "0", "--database", database, "--password-rounds", "1000"] + named)
        defer { twin.kill(SIGKILL) }
        #expect(try await twin.exitStatus(seconds: 60) == 78)
        #expect(twin.errorOutput.contains { $0.contains("solo: another server is serving under this name") })
        #expect(try await aliceBack.request(.fight(FightRef(fight: fight))).error == nil, "the first still serves")
        second.kill(SIGTERM)
        #expect(second.process.terminationStatus == 0)
    }

    /// A jab off the power meter stopped about half a second after the wind-up (near the jab's
    /// sweet spot, by the server's own clock): the punch as it landed.
    static func jab(by player: Player, in fight: FightID, after: Int) async throws -> WireEvent {
        let wound = try await player.request(.windUp(WindUpRequest(fight: fight, after: after)))
        if let error = wound.error { throw TestFailure("wind-up refused: \(error)") }
        try await Task.sleep(for: .milliseconds(520))
        let landed = try await player.command(.punch(PunchRequest(fight: fight, kind: .jab, after: after)))
        guard let event = landed.event, event.kind == .punched else { throw TestFailure("jab refused: \(landed)") }
        return event
    }
}
