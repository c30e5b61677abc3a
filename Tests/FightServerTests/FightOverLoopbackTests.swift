import FightClient
import FightEngine
import FightProtocol
import FightStoreTestSupport
import Testing

/// Whole fights between clients over loopback, against a real server on a free port.
@Suite struct FightOverLoopbackTests {
    /// Two fighters a little over a kilometre apart in Paris, with an accepted fight: alice's turn.
    struct Ring {
        let server: TestServer
        let clock: TestClock
        let alice: Player
        let bob: Player
        let fight: FightID
    }

    static func ring(clock: TestClock = TestClock(), databasePath: String? = nil) async throws -> Ring {
        try await ring(on: try await TestServer.start(databasePath: databasePath, clock: clock), clock: clock)
    }

    /// Alice and bob in a fight under way on `server`, alice to throw at sequence 2.
    static func ring(on server: TestServer, clock: TestClock) async throws -> Ring {
        let alice = try await Player.join("alice", at: server)
        let bob = try await Player.join("bob", at: server)
        try #require(try await alice.command(.move(Location(latitude: 48.8566, longitude: 2.3522))).error == nil)
        try #require(try await bob.command(.move(Location(latitude: 48.8606, longitude: 2.3376))).error == nil)
        let challenged = try #require(try await alice.command(.challenge(OpponentRef(opponent: bob.id))).event)
        let fight = try #require(challenged.fight)
        #expect(try await bob.event(.challenged, fight: fight).challenger == alice.id)
        try #require(try await bob.command(.accept(FightRef(fight: fight))).error == nil)
        #expect(try await alice.event(.accepted, fight: fight).turn == alice.id)
        return Ring(server: server, clock: clock, alice: alice, bob: bob, fight: fight)
    }

    @Test func twoPlayersFindEachOtherAndFightToAKnockout() async throws {
        let clock = TestClock()
        let server = try await TestServer.start(clock: clock)
        let alice = try await Player.join("alice", at: server)
        let bob = try await Player.join("bob", at: server)
        _ = try await alice.command(.move(Location(latitude: 48.8566, longitude: 2.3522)))
        _ = try await bob.command(.move(Location(latitude: 48.8606, longitude: 2.3376)))

        // The versus screen shows bob, about 1.2 km away (measured on a map), even odds for newcomers.
        guard case .opponent(let shown) = try await alice.request(.nextOpponent).body, let matchup = shown.matchup
        else {
            Issue.record("no opponent shown")
            return
        }
        #expect(matchup.opponent.id == bob.id)
        #expect(matchup.opponent.latitude == nil, "an opponent's location is not shown")
        #expect((1.0...1.3).contains(matchup.distanceKm))
        #expect(abs(matchup.winChance - 0.5) < 1e-9)
        // Backing down moves on; nobody else is there.
        guard case .opponent(let next) = try await alice.request(.backDown).body else { throw TestFailure("no reply") }
        #expect(next.matchup == nil)

        let fight = try #require(
            try await alice.command(.challenge(OpponentRef(opponent: bob.id))).event?.fight)
        _ = try await bob.event(.challenged, fight: fight)
        _ = try await bob.command(.accept(FightRef(fight: fight)))
        _ = try await alice.event(.accepted, fight: fight)

        // Uppercuts of 50, 10, 50 off the power meter (no guard up): bob's stamina reaches 0 on
        // alice's second punch, and bob answers it, down, with 10 more.
        var after = 2
        for (puncher, watcher, damage) in [(alice, bob, 50), (bob, alice, 10), (alice, bob, 50), (bob, alice, 10)] {
            let landed = try #require(
                try await puncher.punch(.uppercut, doing: damage, in: fight, after: after, clock: clock).event)
            #expect(landed.kind == .punched && landed.damage == damage)
            let seen = try await watcher.event(.punched, fight: fight)
            #expect(seen.sequence == landed.sequence && seen.staminaLeft == landed.staminaLeft)
            after = try #require(landed.sequence)
        }
        for player in [alice, bob] {
            let ended = try await player.event(.ended, fight: fight)
            #expect(ended.winner == alice.id && ended.decision == .known(.knockout))
        }

        // A forfeit after the end changes nothing: records and statistics count the fight once.
        #expect(try await bob.command(.forfeit(FightRef(fight: fight))).error?.reason == .known(.fightNotActive))
        let aliceCard = try #require(try await alice.request(.profile(ProfileRequest())).profileCard)
        let bobCard = try #require(try await bob.request(.profile(ProfileRequest())).profileCard)
        #expect((aliceCard.wins, aliceCard.losses) == (1, 0))
        #expect((bobCard.wins, bobCard.losses) == (0, 1))
        // Bob's card as alice sees it: the record, not the location.
        let bobSeen = try #require(
            try await alice.request(.profile(ProfileRequest(fighter: bob.id))).profileCard)
        #expect(bobSeen.losses == 1 && bobSeen.latitude == nil && bobCard.latitude != nil)
        guard
            case .statistics(let stats) = try await alice.request(
                .statistics(StatisticsRequest(versus: bob.id))
            ).body
        else {
            throw TestFailure("no statistics")
        }
        #expect((stats.fighter.qtyBattles, stats.fighter.qtyWins) == (1, 1))
        #expect((stats.overall.qtyBattles, stats.overall.qtyWins) == (1, 1))
        #expect((stats.versus?.qtyBattles, stats.versus?.qtyWins) == (1, 1))
        guard case .statistics(let bobStats) = try await bob.request(.statistics(StatisticsRequest())).body else {
            throw TestFailure("no statistics")
        }
        #expect((bobStats.fighter.qtyBattles, bobStats.fighter.qtyWins) == (1, 0))
        guard case .history(let history) = try await bob.request(.history).body else { throw TestFailure("no history") }
        #expect(history.fights.map(\.id) == [fight])
        #expect(history.fights.first?.ending == .known(.knockout))
        try await server.stop()
    }

    @Test func healthNamesTheDatabase() async throws {
        let server = try await TestServer.start(clock: TestClock())
        let (status, body) = try await HTTPExchange.send(.GET, "/health", to: server.address)
        #expect(status == 200)
        #expect(try MessageCodec.decodeReply(body).body == .health(Health(status: "ok", database: "sqlite")))
        try await server.stop()
    }

    @Test func quickMatchPairsTheSecondWithTheFirst() async throws {
        let server = try await TestServer.start(clock: TestClock())
        let alice = try await Player.join("alice", at: server)
        let bob = try await Player.join("bob", at: server)
        #expect(try await alice.command(.quickMatch).event?.kind == .openedRoom)
        let matched = try #require(try await bob.command(.quickMatch).event)
        #expect(
            matched.kind == .matched && matched.challenger == alice.id && matched.turn == alice.id)
        #expect(try await alice.event(.matched).fight == matched.fight)
        try await server.stop()
    }

    @Test func theServerPassesATurnWhenItsDeadlineComes() async throws {
        let ring = try await Self.ring()
        ring.clock.advance(by: 61)
        for player in [ring.alice, ring.bob] {
            let passed = try await player.event(.turnPassed, fight: ring.fight)
            #expect(passed.turn == ring.bob.id && passed.missedTurns == 1)
        }
        try await ring.server.stop()
    }

    @Test func aReconnectingClientGetsWhatItMissedOnce() async throws {
        let ring = try await Self.ring()
        let bobSession = ring.bob.client.session
        await ring.bob.close()
        _ = try await ring.alice.punch(.uppercut, doing: 30, in: ring.fight, after: 2, clock: ring.clock)

        let bob = try await Player.connect(bobSession, to: ring.server.address)
        guard case .welcome(let welcome) = try await bob.request(.hello).body else { throw TestFailure("no welcome") }
        let open = try #require(welcome.openFights.first { $0.id == ring.fight })
        #expect(open.lastSequence == 3 && open.turn == bob.id && open.staminaOpponent == 70)
        guard case .events(let missed) = try await bob.request(.replay(ReplayRequest(fight: ring.fight, after: 2))).body
        else {
            throw TestFailure("no events")
        }
        #expect(missed.events.map(\.sequence) == [3])
        #expect(missed.events.first?.kind == .punched && missed.events.first?.damage == 30)
        // The punch bob throws back lands once, at the sequence he saw.
        _ = try await bob.punch(.jab, doing: 8, in: ring.fight, after: 3, clock: ring.clock)
        #expect(try await ring.alice.event(.punched, fight: ring.fight).sequence == 4)
        try await ring.server.stop()
    }

    @Test(arguments: StoreBackend.available)
    func aRestartedServerResumesTheFight(backend: StoreBackend) async throws {
        let path = try TestServer.temporaryDatabase(backend)
        let clock = TestClock()
        let ring = try await Self.ring(clock: clock, databasePath: path)
        // Two uppercuts at the ceiling floor a fighter: the second, after the restart, does.
        let (ceiling, start) = (Rules().meter.uppercut.ceiling, Rules().startingStamina)
        try #require(2 * ceiling >= start)
        _ = try await ring.alice.punch(.uppercut, doing: ceiling, in: ring.fight, after: 2, clock: clock)
        _ = try await ring.bob.event(.punched, fight: ring.fight)
        let sessions = (ring.alice.client.session, ring.bob.client.session)
        try await ring.server.stop()

        let server = try await TestServer.start(databasePath: path, clock: clock)
        let alice = try await Player.connect(sessions.0, to: server.address)
        let bob = try await Player.connect(sessions.1, to: server.address)
        let fight = try #require(try await bob.request(.fight(FightRef(fight: ring.fight))).fightView)
        // The restart started bob's turn afresh (event 4), and his coming back once more (event 5):
        // a whole turn from then, none missed.
        #expect(
            fight.phase == .active && fight.turn == bob.id && fight.staminaOpponent == start - ceiling
                && fight.lastSequence == 5)
        let resumed = try #require(try await bob.request(.replay(ReplayRequest(fight: ring.fight, after: 3))).events)
        #expect(resumed.map(\.kind) == [.turnPassed, .turnPassed])
        #expect(resumed.allSatisfy { $0.missedTurns == 0 && $0.turn == bob.id })
        _ = try await bob.punch(.jab, doing: 8, in: ring.fight, after: 5, clock: clock)
        _ = try await alice.punch(.uppercut, doing: ceiling, in: ring.fight, after: 6, clock: clock)
        _ = try await bob.punch(.jab, doing: 8, in: ring.fight, after: 7, clock: clock)  // his answer
        #expect(try await bob.event(.ended, fight: ring.fight).winner == alice.id)
        try await server.stop()
    }
}
