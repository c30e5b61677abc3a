import FightEngine
import FightProtocol
import Testing

/// "Nothing lands twice" over real connections, whatever comes between a punch's sending and its
/// commit: the engine checks the punch's `after` inside the store's transaction. (Two servers
/// racing for one punch: `SharedDatabaseServersTests`, on PostgreSQL.)
@Suite struct PunchRaceTests {
    /// Alice winds up, and her turn's deadline comes before her punch does: the punch is `stale`,
    /// whether the deadline service passed the turn first (waited for here) or the punch found
    /// the deadline in its own transaction (most likely when not waited for; either way the
    /// answer must be the same). The turn passes once, to bob, and nothing lands.
    @Test(arguments: [false, true])
    func aPunchAfterItsTurnsDeadlineIsStaleWhicheverComesFirst(waitingForTheDeadline: Bool) async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let wound = try await ring.alice.request(.windUp(WindUpRequest(fight: ring.fight, after: 2)))
        #expect(wound.error == nil)
        ring.clock.advance(milliseconds: 400)
        ring.clock.advance(by: Rules().turnTimeout)
        if waitingForTheDeadline {
            #expect(try await ring.alice.event(.turnPassed, fight: ring.fight).turn == ring.bob.id)
        }
        let late = try await ring.alice.command(.punch(PunchRequest(fight: ring.fight, kind: .jab, after: 2)))
        #expect(late.error?.code == .stale && late.error?.field == "after", "\(late)")

        // Bob hears the turn pass once the deadline service saves it; then the fight is at 3,
        // with no punch thrown.
        let passed = try await ring.bob.event(.turnPassed, fight: ring.fight)
        #expect(passed.sequence == 3 && passed.turn == ring.bob.id && passed.missedTurns == 1)
        let fight = try #require(try await ring.bob.request(.fight(FightRef(fight: ring.fight))).fightView)
        #expect(fight.lastSequence == 3 && fight.punchesChallenger == 0 && fight.staminaOpponent == 100)
        try await ring.server.stop()
    }

    /// A punch sent twice on two connections of one fighter (a client that reconnected and sent it
    /// again): it lands once, and the other is `stale`.
    @Test func aPunchSentTwiceOnTwoConnectionsLandsOnce() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let again = try await Player.connect(ring.alice.client.session, to: ring.server.address)
        for player in [ring.alice, again] {
            #expect(try await player.request(.windUp(WindUpRequest(fight: ring.fight, after: 2))).error == nil)
        }
        ring.clock.advance(milliseconds: 400)
        async let first = ring.alice.command(.punch(PunchRequest(fight: ring.fight, kind: .jab, after: 2)))
        async let second = again.command(.punch(PunchRequest(fight: ring.fight, kind: .jab, after: 2)))
        let outcomes = try await [first, second]
        #expect(outcomes.filter { $0.event?.kind == .punched }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0.error?.code == .stale }.count == 1, "\(outcomes)")
        let fight = try #require(try await ring.bob.request(.fight(FightRef(fight: ring.fight))).fightView)
        #expect(fight.lastSequence == 3 && fight.punchesChallenger == 1)
        try await ring.server.stop()
    }
}
