import FightClient
import FightEngine
import FightProtocol
import FightStoreTestSupport
import Testing

/// Two servers on one PostgreSQL database (issue 30): what they share through it, asked for by
/// `replay` (the pushes across servers are SharedDatabaseServersTests').
@Suite struct SharedDatabaseTests {
    @Test(
        .enabled(
            if: StoreBackend.available.contains(.postgres),
            "HITTHAT_POSTGRES_URL is not set: no PostgreSQL to share"))
    func twoServersShareFightsSessionsAndDeadlines() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let clock = TestClock()
        let a = try await TestServer.start(databasePath: database, clock: clock)
        let b = try await TestServer.start(databasePath: database, clock: clock)
        for server in [a, b] {
            let (status, body) = try await HTTPExchange.send(.GET, "/health", to: server.address)
            #expect(status == 200)
            #expect(try MessageCodec.decodeReply(body).body == .health(Health(status: "ok", database: "postgres")))
        }
        let alice = try await Player.join("alice", at: a)
        let bob = try await Player.join("bob", at: b)

        // Challenged on A, accepted on B, punched on A: one fight, one log.
        let fight = try #require(try await alice.command(.challenge(OpponentRef(opponent: bob.id))).event?.fight)
        #expect(try await bob.command(.accept(FightRef(fight: fight))).error == nil)
        let punched = try #require(try await alice.punch(.jab, doing: 30, in: fight, after: 2, clock: clock).event)
        #expect(punched.sequence == 3)
        let missed = try #require(try await bob.request(.replay(ReplayRequest(fight: fight, after: 2))).events)
        #expect(missed.map(\.kind) == [.punched] && missed.first?.staminaLeft == 70)

        // A session opened on A works on B.
        let aliceOnB = try await Player.connect(alice.client.session, to: b.address)

        // Both servers watch the deadline of bob's turn; it passes once.
        clock.advance(by: 61)
        let passed = try await Self.log(of: fight, from: bob) { $0.count == 4 }
        #expect(passed.last?.kind == .turnPassed && passed.last?.turn == alice.id)

        // The server the fight began on is gone; B still passes alice's turn when it lapses.
        try await a.stop()
        clock.advance(by: 61)
        let lapsed = try await bob.next("alice's turn passing") { message in
            guard case .event(let event) = message.body else { return false }
            return event.kind == .turnPassed && event.sequence == 5
        }
        guard case .event(let event) = lapsed.body else { throw TestFailure("not an event") }
        #expect(event.turn == bob.id && event.missedTurns == 1)
        let log = try await Self.log(of: fight, from: aliceOnB) { $0.count == 5 }
        #expect(log.map(\.sequence) == [1, 2, 3, 4, 5])
        try await b.stop()
    }

    /// Fight `fight`'s log as `player`'s server reads it, once `done` says it is complete (up to
    /// ten seconds: the other server may be committing it).
    static func log(
        of fight: FightID, from player: Player, until done: ([WireEvent]) -> Bool
    ) async throws -> [WireEvent] {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let events = try #require(try await player.request(.replay(ReplayRequest(fight: fight, after: 0))).events)
            if done(events) || ContinuousClock.now > deadline { return events }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
