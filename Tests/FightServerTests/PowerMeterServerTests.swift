import FightEngine
import FightProtocol
import Testing

/// The power meter and guards over a real connection: the server times a keyboard punch on its
/// own clock, and keeps a guard from the attacker.
@Suite struct PowerMeterServerTests {
    /// Alice winds up, the server's monotonic clock moves to the top of the sweep, and her
    /// uppercut lands at its ceiling: the damage is the server's measure of the time, not a
    /// number she sent. Bob's jab stopped at once lands the floor.
    @Test func theServerTimesTheMeterOnItsOwnClock() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let meter = Rules().meter
        let reply = try await ring.alice.request(.windUp(WindUpRequest(fight: ring.fight, after: 2)))
        guard case .meter(let started) = reply.body else { throw TestFailure("no meter: \(reply)") }
        #expect(started.fight == ring.fight && started.after == 2 && started.meter == meter)
        ring.clock.advance(milliseconds: meter.sweepMilliseconds / 2)
        let top = try #require(
            try await ring.alice.command(.punch(PunchRequest(fight: ring.fight, kind: .uppercut, after: 2))).event)
        #expect(top.kind == .punched && top.damage == meter.uppercut.ceiling && top.staminaLeft == 100 - top.damage!)

        _ = try await ring.bob.request(.windUp(WindUpRequest(fight: ring.fight, after: 3)))
        let rushed = try #require(
            try await ring.bob.command(.punch(PunchRequest(fight: ring.fight, kind: .jab, after: 3))).event)
        #expect(rushed.damage == meter.floor)
        try await ring.server.stop()
    }

    /// A punch without damage needs a wind-up of the same fighter at the same sequence, once: a
    /// second punch does not reuse it, and a wind-up is refused out of turn or at an old sequence.
    @Test func aMeterPunchNeedsItsOwnWindUp() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let unwound = try await ring.alice.command(.punch(PunchRequest(fight: ring.fight, kind: .jab, after: 2)))
        #expect(unwound.error?.reason == .known(.notWoundUp))
        let outOfTurn = try await ring.bob.request(.windUp(WindUpRequest(fight: ring.fight, after: 2)))
        #expect(outOfTurn.error?.reason == .known(.waitYourTurn))
        let stale = try await ring.alice.request(.windUp(WindUpRequest(fight: ring.fight, after: 1)))
        #expect(stale.error?.code == .stale)

        _ = try await ring.alice.request(.windUp(WindUpRequest(fight: ring.fight, after: 2)))
        // A wind-up at sequence 2 stops no punch thrown at another.
        let elsewhere = try await ring.alice.command(.punch(PunchRequest(fight: ring.fight, kind: .jab, after: 1)))
        #expect(elsewhere.error?.code == .stale)
        #expect(try await ring.alice.command(.punch(PunchRequest(fight: ring.fight, kind: .jab, after: 2))).event != nil)
        _ = try await ring.bob.punch(.jab, doing: 8, in: ring.fight, after: 3, clock: ring.clock)
        let again = try await ring.alice.command(.punch(PunchRequest(fight: ring.fight, kind: .jab, after: 4)))
        #expect(again.error?.reason == .known(.notWoundUp), "a wind-up stops one punch only")
        let fight = try #require(try await ring.alice.request(.fight(FightRef(fight: ring.fight))).fightView)
        #expect(fight.lastSequence == 4 && fight.punchesChallenger == 1)
        try await ring.server.stop()
    }

    /// Bob's guard is his: his `fight` shows it, alice's does not, no event tells her; it shows
    /// only when it halves her hook, on the `punched` event both see.
    @Test func aGuardIsHiddenUntilItBluntsAPunch() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let raised = try await ring.bob.request(.raiseGuard(GuardRequest(fight: ring.fight, guard: .high)))
        #expect(raised.fightView?.ownGuard == .high)
        let seenByAlice = try #require(try await ring.alice.request(.fight(FightRef(fight: ring.fight))).fightView)
        #expect(seenByAlice.ownGuard == nil && seenByAlice.lastSequence == 2, "no guard and no event for alice")

        let hook = try #require(
            try await ring.alice.punch(.hook, doing: 40, in: ring.fight, after: 2, clock: ring.clock).event)
        #expect(hook.damage == 20 && hook.bluntedBy == .high && hook.staminaLeft == 80)
        let seenByBob = try await ring.bob.event(.punched, fight: ring.fight)
        #expect(seenByBob.bluntedBy == .high && seenByBob.damage == 20)

        // A guard in a fight one is not in is refused as the engine refuses it.
        let carol = try await Player.join("carol", at: ring.server)
        let intruder = try await carol.request(.raiseGuard(GuardRequest(fight: ring.fight, guard: .low)))
        #expect(intruder.error?.reason == .known(.notInFight))
        try await ring.server.stop()
    }
}
