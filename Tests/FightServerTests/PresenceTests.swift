import FightEngine
import FightProtocol
import Testing

/// The other fighter's presence as the server knows it, pushed to a fighter; and the turn a restart
/// began, started afresh once more when its fighter is back.
@Suite struct PresenceTests {
    // MARK: Presence

    /// Bob's last connection closing, and his first one opening again, are pushed to alice with
    /// when they happened; a second connection of hers changes nothing for him until her last goes.
    @Test func theOtherFighterIsToldWhenOneGoesAndComesBack() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let (alice, bob, fight) = (ring.alice, ring.bob, ring.fight)
        // The fight began with both there.
        let start = ring.clock.now
        #expect(
            try await alice.presence(in: fight)
                == Presence(fight: fight, fighter: bob.id, state: .connected, since: start))
        #expect(
            try await bob.presence(in: fight)
                == Presence(fight: fight, fighter: alice.id, state: .connected, since: start))

        ring.clock.advance(by: 5)
        let session = bob.client.session
        await bob.close()
        let gone = try await alice.presence(in: fight)
        #expect(gone.fighter == bob.id && gone.state == .known(.gone) && gone.since?.timestamp == ring.clock.now)

        ring.clock.advance(by: 7)
        let back = try await Player.connect(session, to: ring.server.address)
        let connected = try await alice.presence(in: fight)
        #expect(connected.state == .known(.connected) && connected.since?.timestamp == ring.clock.now)
        guard case .welcome(let welcome) = try await back.request(.hello).body else { throw TestFailure("no welcome") }
        #expect(welcome.presence.map(\.fighter) == [alice.id] && welcome.presence.first?.state == .known(.connected))

        // Alice's second connection, then both of hers closing: one `gone`, after the last.
        let second = try await Player.connect(alice.client.session, to: ring.server.address)
        await second.close()
        await alice.close()
        let aliceGone = try await back.presence(in: fight)
        #expect(aliceGone.fighter == alice.id && aliceGone.state == .known(.gone))
        _ = try await back.request(.fight(FightRef(fight: fight)))
        #expect(back.taken { if case .presence = $0.body { true } else { false } }.isEmpty, "nothing more")
        try await ring.server.stop()
    }

    /// A challenge accepted after its challenger left: the one who accepted is told at once, with
    /// when she left. (Carol, fighting alice too, is told she went: then the server has seen it.)
    @Test func aFightThatBeginsSaysWhetherTheOtherIsThere() async throws {
        let clock = TestClock()
        let server = try await TestServer.start(clock: clock)
        let alice = try await Player.join("alice", at: server)
        let bob = try await Player.join("bob", at: server)
        let carol = try await Player.join("carol", at: server)
        _ = try await alice.command(.quickMatch)
        let withCarol = try #require(try await carol.command(.quickMatch).event?.fight)
        #expect(try await carol.presence(in: withCarol).state == .known(.connected))
        let fight = try #require(try await alice.command(.challenge(OpponentRef(opponent: bob.id))).event?.fight)
        _ = try await bob.event(.challenged, fight: fight)
        let left = clock.now
        await alice.close()
        #expect(try await carol.presence(in: withCarol).state == .known(.gone))
        clock.advance(by: 30)
        try #require(try await bob.command(.accept(FightRef(fight: fight))).error == nil)
        #expect(
            try await bob.presence(in: fight) == Presence(fight: fight, fighter: alice.id, state: .gone, since: left))
        try await server.stop()
    }

    // MARK: A full turn after a restart

    /// Bob had the turn when the server went down. The restart gives him a whole turn from then;
    /// his first connection after it, seconds later, a whole turn again from then, but not his
    /// next one: otherwise dropping the connection would hold the turn forever.
    @Test func theFighterWithTheTurnHasItAfreshOnceWhenBackAfterARestart() async throws {
        let restarted = try await Self.restartWithBobsTurn()
        let (server, clock, alice, fight) = (restarted.server, restarted.clock, restarted.alice, restarted.fight)
        guard case .welcome(let welcome) = try await alice.request(.hello).body else { throw TestFailure("no welcome") }
        #expect(
            welcome.presence == [Presence(fight: fight, fighter: restarted.bob.fighter.id, state: .gone, since: nil)],
            "not seen since the start")

        clock.advance(by: 6)
        let bob = try await Player.connect(restarted.bob, to: server.address)
        let afresh = try await alice.event(.turnPassed, fight: fight)
        #expect(afresh.sequence == 5 && afresh.missedTurns == 0 && afresh.turn == bob.id)
        #expect(afresh.deadline?.timestamp == clock.now + 60)
        #expect(try await alice.presence(in: fight).state == .known(.connected))

        // Gone and back again: his turn runs on from the first return.
        await bob.close()
        clock.advance(by: 20)
        let again = try await Player.connect(restarted.bob, to: server.address)
        _ = try await alice.presence(in: fight)
        _ = try await alice.presence(in: fight)
        let view = try #require(try await again.request(.fight(FightRef(fight: fight))).fightView)
        #expect(view.lastSequence == 5 && view.deadline == afresh.deadline)
        try await server.stop()
    }

    /// The turn the restart began lapsed before its fighter came back (he took longer than a
    /// turn): his return starts nothing afresh, neither his turn long gone nor alice's.
    @Test func aTurnThatLapsedBeforeTheReturnIsNotStartedAgain() async throws {
        let restarted = try await Self.restartWithBobsTurn()
        let (server, clock, alice, fight) = (restarted.server, restarted.clock, restarted.alice, restarted.fight)
        clock.advance(by: 60)
        #expect(try await alice.event(.turnPassed, fight: fight).missedTurns == 1)
        let bob = try await Player.connect(restarted.bob, to: server.address)
        let view = try #require(try await bob.request(.fight(FightRef(fight: fight))).fightView)
        #expect(view.lastSequence == 5 && view.turn == alice.id && view.missedTurnsOpponent == 1)
        try await server.stop()
    }

    // MARK: Helpers

    /// A ring in which alice punched (bob's turn), the server stopped and, 100 s later, started
    /// again over the same file; alice is connected to it and has seen the restart's turn
    /// (sequence 4), bob is not.
    static func restartWithBobsTurn() async throws -> (
        server: TestServer, clock: TestClock, alice: Player, bob: Session, fight: FightID
    ) {
        let path = try TestServer.temporaryDatabase()
        let clock = TestClock()
        let ring = try await FightOverLoopbackTests.ring(clock: clock, databasePath: path)
        _ = try await ring.alice.punch(.jab, doing: 10, in: ring.fight, after: 2, clock: clock)
        _ = try await ring.bob.event(.punched, fight: ring.fight)
        let sessions = (ring.alice.client.session, ring.bob.client.session)
        try await ring.server.stop()
        clock.advance(by: 100)
        let server = try await TestServer.start(databasePath: path, clock: clock)
        let alice = try await Player.connect(sessions.0, to: server.address)
        // The restart's own turn, given before the server listens.
        let view = try #require(try await alice.request(.fight(FightRef(fight: ring.fight))).fightView)
        #expect(view.lastSequence == 4 && view.turn == sessions.1.fighter.id)
        return (server, clock, alice, sessions.1, ring.fight)
    }
}

extension Player {
    /// The next `presence` message about fight `fight`.
    func presence(in fight: FightID) async throws -> Presence {
        let message = try await next("presence in fight \(fight)") { message in
            if case .presence(let presence) = message.body { presence.fight == fight } else { false }
        }
        guard case .presence(let presence) = message.body else { throw TestFailure("not a presence") }
        return presence
    }
}
