import FightEngine
import FightProtocol
import FightServer
import Testing

/// The rules `welcome` states are the ones the server was started with and enforces, not numbers
/// of the protocol's own.
@Suite struct StatedRulesTests {
    /// A server started with rules of its own states them, and a fight on it keeps to them: the
    /// turn's deadline is the stated turn length away, and a wind-up answers the stated meter.
    @Test func welcomeStatesTheRulesTheServerEnforces() async throws {
        var rules = Rules(turnTimeout: 17, punchesPerFighter: 9, matchRadiusKm: 12.5, missedTurnsToForfeit: 5)
        rules.meter.sweepMilliseconds = 1200
        rules.meter.jab.ceiling = 33
        let reconnect = ReconnectBackoff(firstMilliseconds: 400, longestMilliseconds: 3000)
        let clock = TestClock()
        let server = try await TestServer.start(clock: clock, rules: rules, reconnect: reconnect)
        let ring = try await FightOverLoopbackTests.ring(on: server, clock: clock)
        guard case .welcome(let welcome) = try await ring.alice.request(.hello).body else { throw TestFailure("no welcome") }
        let stated = welcome.rules
        #expect(stated.turnSeconds == 17 && stated.punchesPerFighter == 9 && stated.missedTurnsToForfeit == 5)
        #expect(stated.matchRadiusKm == 12.5 && stated.startingStamina == rules.startingStamina)
        #expect(stated.meter.sweepMilliseconds == 1200 && stated.meter.jab.ceiling == 33)
        #expect(stated.reconnect == reconnect)
        #expect(stated.motion.samplesPerBatch == MotionLimits.samplesPerBatch && stated.motion.holdSeconds == MotionLimits.holdSeconds)

        let fight = try #require(welcome.openFights.first { $0.id == ring.fight })
        #expect(fight.deadline?.timestamp == Timestamp(secondsSince1970: clock.now.secondsSince1970 + stated.turnSeconds))
        let reply = try await ring.alice.request(.windUp(WindUpRequest(fight: ring.fight, after: 2)))
        guard case .meter(let started) = reply.body else { throw TestFailure("no meter: \(reply)") }
        #expect(started.meter == stated.meter)
        try await server.stop()
    }
}
