import FightClient
import FightEngine
import FightProtocol
import FightStore
import FightStoreTestSupport
import Foundation
import Testing

/// Two servers on one PostgreSQL database (issue 30), in this process: what one commits is pushed
/// live to the players on the other, once and in order; a logout on one closes the session on the
/// other; a fighter's messages are counted over both; a server starting beside another leaves its
/// turns alone; a server whose lease lapsed notes its fighters again.
@Suite(
    .enabled(
        if: StoreBackend.available.contains(.postgres), "HITTHAT_POSTGRES_URL is not set: no PostgreSQL to share"))
struct SharedDatabaseServersTests {
    /// Alice, on server `a`, challenges bob, on server `b`, and he accepts: each hears the other's
    /// event pushed across the servers. Alice has the first turn.
    static func fight(aliceOn a: TestServer, bobOn b: TestServer) async throws -> (Player, Player, FightID) {
        let alice = try await Player.join("alice", at: a)
        let bob = try await Player.join("bob", at: b)
        let fight = try #require(try await alice.command(.challenge(OpponentRef(opponent: bob.id))).event?.fight)
        #expect(try await bob.event(.challenged, fight: fight).challenger == alice.id)
        try #require(try await bob.command(.accept(FightRef(fight: fight))).error == nil)
        #expect(try await alice.event(.accepted, fight: fight).turn == alice.id)
        return (alice, bob, fight)
    }

    @Test func eventsCommittedOnOneServerArePushedToPlayersOnTheOtherOnce() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let clock = TestClock()
        let a = try await TestServer.start(databasePath: database, clock: clock)
        let b = try await TestServer.start(databasePath: database, clock: clock)
        // Each command on one server; its events reach the other player, pushed, not asked for.
        let (alice, bob, fight) = try await Self.fight(aliceOn: a, bobOn: b)
        let thrown = try #require(try await alice.punch(.jab, doing: 12, in: fight, after: 2, clock: clock).event)
        let seen = try await bob.event(.punched, fight: fight)
        #expect(seen.sequence == 3 && seen.staminaLeft == thrown.staminaLeft && seen.damage == 12)
        let answer = try #require(try await bob.punch(.hook, doing: 20, in: fight, after: 3, clock: clock).event)
        #expect(try await alice.event(.punched, fight: fight).sequence == answer.sequence)

        // A turn lapses: one server settles it, and both players hear it.
        clock.advance(by: 61)
        for player in [alice, bob] {
            let passed = try await player.event(.turnPassed, fight: fight)
            #expect(passed.sequence == 5 && passed.turn == bob.id && passed.missedTurns == 1)
        }

        // A fighter event reaches the fighter's connection on the other server.
        let aliceOnB = try await Player.connect(alice.client.session, to: b.address)
        try #require(try await alice.command(.move(Location(latitude: 48.85, longitude: 2.35))).error == nil)
        let moved = try await aliceOnB.event(.moved)
        #expect(moved.latitude == 48.85 && moved.longitude == 2.35)

        // Nothing came twice: every event of the fight was taken above, and none is left.
        try await Task.sleep(for: .milliseconds(300))
        for player in [alice, bob, aliceOnB] {
            #expect(player.taken { $0.event?.fight == fight } == [])
        }
        try await a.stop()
        try await b.stop()
    }

    /// Alice's punch sent to both servers at once (a client that reconnected to the other and
    /// sent it again): one lands and the other is `stale`, whichever commits first. Each server
    /// read the fight at sequence 2 before (its wind-up); only the engine's check of `after`,
    /// inside the transaction, sees the other's commit.
    @Test func aPunchSentToTwoServersAtOnceLandsOnce() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let clock = TestClock()
        let a = try await TestServer.start(databasePath: database, clock: clock)
        let b = try await TestServer.start(databasePath: database, clock: clock)
        let (alice, bob, fight) = try await Self.fight(aliceOn: a, bobOn: b)
        let aliceOnB = try await Player.connect(alice.client.session, to: b.address)
        for player in [alice, aliceOnB] {
            #expect(try await player.request(.windUp(WindUpRequest(fight: fight, after: 2))).error == nil)
        }
        clock.advance(milliseconds: 400)
        async let onA = alice.command(.punch(PunchRequest(fight: fight, kind: .jab, after: 2)))
        async let onB = aliceOnB.command(.punch(PunchRequest(fight: fight, kind: .jab, after: 2)))
        let outcomes = try await [onA, onB]
        #expect(outcomes.filter { $0.event?.kind == .punched }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0.error?.code == .stale }.count == 1, "\(outcomes)")
        #expect(try await bob.event(.punched, fight: fight).sequence == 3)
        let view = try #require(try await bob.request(.fight(FightRef(fight: fight))).fightView)
        #expect(view.lastSequence == 3 && view.punchesChallenger == 1)
        try await a.stop()
        try await b.stop()
    }

    @Test func aListenerCutOffCatchesUpBySequence() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let clock = TestClock()
        let a = try await TestServer.start(databasePath: database, clock: clock)
        let b = try await TestServer.start(databasePath: database, clock: clock)
        let (alice, bob, fight) = try await Self.fight(aliceOn: a, bobOn: b)

        // Both servers stop listening, and a punch lands before they listen again: committed by a
        // third party (a sensor's punch, through a store of the test's own), so that it commits
        // at once. Its announcement finds nobody; both servers read it from the log when they
        // listen again. A listener back before the commit (a busy machine) heard it instead: the
        // punches go on, turn about, until one was missed (at most twelve, the fight still on).
        let outsider = try await FightStore(location: StoreLocation(parsing: database))
        var missedAnnouncements = 0, punches = 0
        while punches < 4 || (missedAnnouncements == 0 && punches < 12) || punches % 2 == 1 {
            let puncher = punches % 2 == 0 ? alice : bob
            // Both listening again since the last cut (their backoff grows with each cut), then
            // both cut off. The bound is only there to fail rather than hang.
            let deadline = ContinuousClock.now + .seconds(120)
            while try await outsider.listeners() < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            // Read before the cut: the punch then commits in one round of statements, before the
            // listeners come back (a quarter of a second), even on a busy machine.
            let after = try #require(try await outsider.fight(fight)).lastSequence
            #expect(try await outsider.cutOffListeners() == 2)
            let events = try await outsider.execute(
                .punch(fight, by: puncher.id, after: after, kind: .jab, damage: 10), at: clock.now
            ).get()
            if try await outsider.listeners() == 0 { missedAnnouncements += 1 }
            punches += 1
            guard case .fight(let landed) = try #require(events.first) else { throw TestFailure("not a fight event") }
            for player in [alice, bob] {
                #expect(try await player.event(.punched, fight: fight).sequence == landed.sequence)
            }
        }
        #expect(missedAnnouncements > 0, "every listener came back before the punch: nothing was caught up")
        // Then on as before: alice's punch on A, pushed to bob on B.
        let thrown = try #require(
            try await alice.punch(.jab, doing: 8, in: fight, after: 2 + punches, clock: clock).event)
        #expect(try await bob.event(.punched, fight: fight).sequence == thrown.sequence)
        try await Task.sleep(for: .milliseconds(300))
        for player in [alice, bob] {
            #expect(player.taken { $0.event?.fight == fight } == [], "an event pushed twice")
        }
        try await a.stop()
        try await b.stop()
    }

    /// Alice on A, bob on B: each is there for the other. Alice's connection to B as well, closed,
    /// tells bob nothing (she is still on A); her last one closing tells him she went, and her
    /// coming back (to B) that she came. Bob's own second connection, to A, hears from A's
    /// `welcome` that she is there.
    @Test func aFighterOnTheOtherServerIsThere() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let clock = TestClock()
        let a = try await TestServer.start(databasePath: database, clock: clock)
        let b = try await TestServer.start(databasePath: database, clock: clock)
        let (alice, bob, fight) = try await Self.fight(aliceOn: a, bobOn: b)
        let began = clock.now
        #expect(
            try await alice.presence(in: fight) == Presence(fight: fight, fighter: bob.id, state: .connected, since: began))
        #expect(
            try await bob.presence(in: fight) == Presence(fight: fight, fighter: alice.id, state: .connected, since: began))

        let session = alice.client.session
        let aliceOnB = try await Player.connect(session, to: b.address)
        clock.advance(by: 3)
        await aliceOnB.close()
        clock.advance(by: 4)
        await alice.close()
        let gone = try await bob.presence(in: fight)
        #expect(gone.fighter == alice.id && gone.state == .known(.gone) && gone.since?.timestamp == clock.now)

        clock.advance(by: 5)
        let back = try await Player.connect(session, to: b.address)
        let came = try await bob.presence(in: fight)
        #expect(came.state == .known(.connected) && came.since?.timestamp == clock.now)
        let bobOnA = try await Player.connect(bob.client.session, to: a.address)
        guard case .welcome(let welcome) = try await bobOnA.request(.hello).body else { throw TestFailure("no welcome") }
        #expect(welcome.presence == [Presence(fight: fight, fighter: alice.id, state: .connected, since: clock.now)])

        // Nothing else was told: not alice's second connection, nor bob's.
        _ = try await bob.request(.fight(FightRef(fight: fight)))
        _ = try await back.request(.fight(FightRef(fight: fight)))
        for player in [bob, back] {
            #expect(player.taken { if case .presence = $0.body { true } else { false } }.isEmpty)
        }
        try await a.stop()
        try await b.stop()
    }

    /// A server whose lease lapses (its clock or its database stopped for longer than the lease)
    /// is taken for gone by the others: bob, on B, is told that alice, on A, went. When A renews
    /// its lease it notes every fighter connected to it again, and bob is told she is there. Each
    /// server has a clock of its own here, so that B's moves on while A's stands still.
    @Test func aServerWhoseLeaseLapsedNotesItsFightersAgain() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let clockA = TestClock(), clockB = TestClock()
        let a = try await TestServer.start(databasePath: database, clock: clockA)
        let b = try await TestServer.start(databasePath: database, clock: clockB)
        let (alice, bob, fight) = try await Self.fight(aliceOn: a, bobOn: b)
        #expect(try await bob.presence(in: fight).state == .known(.connected))
        // Longer than a lease (15 s) on B's clock: A's lease has lapsed there.
        clockB.advance(by: 16)
        let gone = try await bob.presence(in: fight)
        #expect(gone.fighter == alice.id && gone.state == .known(.gone))
        // A renews: alice, still connected to it, is noted again, and B tells bob.
        clockA.advance(by: 16)
        let back = try await bob.presence(in: fight)
        #expect(back.fighter == alice.id && back.state == .known(.connected))
        // Bob's server never lapsed for A: alice was told nothing.
        _ = try await alice.request(.fight(FightRef(fight: fight)))
        let toldGone = alice.taken { message in
            if case .presence(let presence) = message.body { presence.state != .known(.connected) } else { false }
        }
        #expect(toldGone.isEmpty)
        try await a.stop()
        try await b.stop()
    }

    @Test func aLogoutOnOneServerClosesTheSessionOnTheOther() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let clock = TestClock()
        let a = try await TestServer.start(databasePath: database, clock: clock)
        let b = try await TestServer.start(databasePath: database, clock: clock)
        let alice = try await Player.join("alice", at: a)
        let session = alice.client.session
        let aliceOnB = try await Player.connect(session, to: b.address)

        #expect(try await alice.request(.logout).body == .loggedOut)
        let told = try await aliceOnB.next("loggedOut") { $0.body == .loggedOut }
        #expect(told.ref == nil)
        _ = try await aliceOnB.closed()
        // B had the session as live; it refuses the token now.
        let late = try await Player.connect(session, to: b.address).request(.profile(ProfileRequest()))
        #expect(late.error?.code == .unauthorized)
        try await a.stop()
        try await b.stop()
    }

    @Test func aFighterIsHeldToOneMessageLimitOverBothServers() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        // The test clock stands still: the bucket does not refill, and what is allowed is the burst.
        let clock = TestClock()
        let burst = 10
        let a = try await TestServer.start(databasePath: database, clock: clock, messagesPerSecond: 1, messageBurst: burst)
        let b = try await TestServer.start(databasePath: database, clock: clock, messagesPerSecond: 1, messageBurst: burst)
        let onA = try await Player.join("alice", at: a)
        let onB = try await Player.connect(onA.client.session, to: b.address)  // each `hello` took one

        // Ten messages on each server at once.
        let replies = try await withThrowingTaskGroup(of: ServerMessage.self) { group in
            for player in [onA, onB] {
                for _ in 0..<10 { group.addTask { try await player.request(.profile(ProfileRequest())) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let limited = replies.filter { $0.error?.code == .rateLimited }
        #expect(replies.count - limited.count == burst - 2, "one bucket for both servers: the burst less the two hellos")
        #expect(limited.first?.error?.message.contains("on all their connections") == true)
        try await a.stop()
        try await b.stop()
    }

    @Test func aFighterIsHeldToOneMotionSampleLimitOverBothServers() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let clock = TestClock()
        let a = try await TestServer.start(
            databasePath: database, clock: clock, motionSamplesPerSecond: 100, motionSampleBurst: 100)
        let b = try await TestServer.start(
            databasePath: database, clock: clock, motionSamplesPerSecond: 100, motionSampleBurst: 100)
        let ring = try await FightOverLoopbackTests.ring(on: a, clock: clock)
        let aliceOnB = try await Player.connect(ring.alice.client.session, to: b.address)
        let rows = MotionTests.rest(seconds: 2)

        // 60 samples through A, then 60 through B: 120 of the fighter's 100, over the two.
        let first = try await ring.alice.client.send(
            .motion(MotionBatch(fight: ring.fight, after: 2, hold: 1, samples: Array(rows[0..<60]))))
        // A connection's messages are handled in order: once this is answered, A has taken the batch.
        _ = try await ring.alice.request(.fight(FightRef(fight: ring.fight)))
        let second = try await aliceOnB.request(
            .motion(MotionBatch(fight: ring.fight, after: 2, hold: 2, samples: Array(rows[60..<120]))))
        #expect(second.error?.code == .rateLimited && second.error?.field == "samples")
        #expect(ring.alice.taken { $0.ref == first }.isEmpty, "A took the first batch (a hold finding nothing yet)")
        try await a.stop()
        try await b.stop()
    }

    @Test func aServerStartingBesideAnotherLeavesItsTurnsAlone() async throws {
        let database = try TestServer.temporaryDatabase(.postgres)
        let clock = TestClock()
        let ring = try await FightOverLoopbackTests.ring(clock: clock, databasePath: database)
        let b = try await TestServer.start(databasePath: database, clock: clock)
        // Alice's turn runs on as A began it: B's start resumed nothing.
        let view = try #require(try await ring.bob.request(.fight(FightRef(fight: ring.fight))).fightView)
        #expect(view.lastSequence == 2 && view.turn == ring.alice.id)

        // Both stop (their leases given up): the next start finds the cluster was down, and resumes.
        try await b.stop()
        try await ring.server.stop()
        let c = try await TestServer.start(databasePath: database, clock: clock)
        let bob = try await Player.connect(ring.bob.client.session, to: c.address)
        let resumed = try #require(try await bob.request(.replay(ReplayRequest(fight: ring.fight, after: 2))).events)
        #expect(resumed.map(\.kind) == [.turnPassed] && resumed.first?.turn == ring.alice.id)
        try await c.stop()
    }
}
