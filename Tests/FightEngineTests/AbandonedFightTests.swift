import FightEngine
import Foundation
import Testing

/// A fighter who lets `Rules.missedTurnsToForfeit` (3) turns in a row lapse loses by forfeit, so a
/// fight nobody punches in ends rather than passing its turn forever.
@Suite struct AbandonedFightTests {
    /// A ring that keeps every event, for the audit and the statistics rebuilt from it.
    struct LoggedRing {
        var ring = Ring()
        var log: [Event] = []
        let fight: FightID, challenger: FighterID, opponent: FighterID
        let start: Timestamp

        init() throws {
            fight = ring.state.nextFightID
            challenger = ring.state.nextFighterID
            opponent = FighterID(challenger.rawValue + 1)
            log += try ring.run(.register(Registration(username: "alice", displayName: "alice")))
            log += try ring.run(.register(Registration(username: "bob", displayName: "bob")))
            log += try ring.run(.challenge(challenger, opponent: opponent))
            log += try ring.run(.accept(fight, by: opponent))
            start = ring.now
        }

        /// Settles deadlines at `seconds` after the fight began; returns the fight's changes.
        @discardableResult
        mutating func settle(at seconds: Int64) throws -> [FightEvent.Change] {
            ring.now = start + seconds
            let events = try ring.run(.settleDeadlines)
            log += events
            return events.fightChanges
        }

        @discardableResult
        mutating func punch(_ by: FighterID, at seconds: Int64) throws -> [FightEvent.Change] {
            ring.now = start + seconds
            let events = try ring.run(.punch(fight, by: by, after: ring.seen(fight), kind: .jab, damage: 5))
            log += events
            return events.fightChanges
        }

        var audit: LogAudit {
            LogAudit(
                log: log, fights: Array(ring.state.fights.values), fighters: Array(ring.state.fighters.values),
                statistics: Statistics(rebuiltFrom: log), rules: ring.referee.rules)
        }
    }

    @Test func threeMissedTurnsInARowLoseByForfeit() throws {
        var logged = try LoggedRing()
        let (alice, bob, fight) = (logged.challenger, logged.opponent, logged.fight)
        // Alice never punches; Bob punches at once each time the turn comes back to him.
        #expect(
            try logged.settle(at: 60) == [
                .turnPassed(missedTurns: 1, turn: Turn(fighter: bob, deadline: logged.start + 120))
            ])
        try logged.punch(bob, at: 61)
        try logged.settle(at: 121)
        try logged.punch(bob, at: 122)
        #expect(try logged.ring.fight(fight).missedTurns == Both(2, 0))
        #expect(try logged.settle(at: 181) == [])
        let result = FightResult(challenger: alice, opponent: bob, winner: bob, decision: .forfeit)
        #expect(try logged.settle(at: 182) == [.ended(result)])
        #expect(try logged.ring.fight(fight).phase == .finished(.decided(result), at: logged.start + 182))
        #expect(try logged.ring.fight(fight).missedTurns == Both(3, 0))
        #expect(try logged.ring.fighter(alice).record == Record(losses: 1))
        #expect(try logged.ring.fighter(bob).record == Record(wins: 1))
        // Over is over: nothing more lapses, and nobody can punch.
        #expect(try logged.settle(at: 10_000) == [])
        #expect(logged.ring.refusal(.punch(fight, by: alice, after: logged.ring.seen(fight), kind: .jab, damage: 5)) == .fightNotActive(fight))
        #expect(try logged.ring.fighter(alice).record == Record(losses: 1))
        // The statistics are those of any forfeit, and the log adds up to what was saved.
        let statistics = Statistics(rebuiltFrom: logged.log)
        #expect(
            statistics[.fighter(bob)]
                == StatLine(qtyBattles: 1, qtyWins: 1, lastBattle: logged.start + 182, lastWin: logged.start + 182))
        #expect(statistics[.fighter(alice)] == StatLine(qtyBattles: 1, qtyWins: 0, lastBattle: logged.start + 182))
        #expect(logged.audit.problems == [])
    }

    @Test func aPunchClearsItsThrowersCount() throws {
        var logged = try LoggedRing()
        let (alice, bob, fight) = (logged.challenger, logged.opponent, logged.fight)
        try logged.settle(at: 60)  // Alice misses one
        try logged.punch(bob, at: 61)
        try logged.settle(at: 121)  // and two
        try logged.punch(bob, at: 122)
        try logged.punch(alice, at: 123)  // then punches: her count starts again
        #expect(try logged.ring.fight(fight).missedTurns == Both(0, 0))
        try logged.settle(at: 183)  // Bob misses one
        try logged.settle(at: 243)  // Alice misses one
        try logged.punch(bob, at: 244)
        #expect(try logged.ring.fight(fight).missedTurns == Both(1, 0))
        #expect(logged.audit.problems == [])
        try logged.settle(at: 304)
        try logged.punch(bob, at: 305)
        #expect(try logged.ring.fight(fight).isOpen, "two in a row since her punch, not three")
        #expect(
            try logged.settle(at: 365) == [
                .ended(FightResult(challenger: alice, opponent: bob, winner: bob, decision: .forfeit))
            ])
        #expect(logged.audit.problems == [])
    }

    /// Both away: the turn goes back and forth, Alice's lapses first (it was her turn), so she is
    /// the first to miss three, at the fifth lapse.
    @Test func whenBothAreAwayTheOneWhoHadTheTurnLoses() throws {
        var logged = try LoggedRing()
        let (alice, bob, fight) = (logged.challenger, logged.opponent, logged.fight)
        let start = logged.start
        #expect(
            try logged.settle(at: 250) == [
                .turnPassed(missedTurns: 4, turn: Turn(fighter: alice, deadline: start + 300))
            ])
        #expect(try logged.ring.fight(fight).missedTurns == Both(2, 2))
        #expect(logged.audit.problems == [])
        #expect(
            try logged.settle(at: 300) == [
                .ended(FightResult(challenger: alice, opponent: bob, winner: bob, decision: .forfeit))
            ])
        #expect(logged.audit.problems == [])
    }

    /// A server down for a day settles the fight in one go: the lapses before the forfeit are one
    /// `turnPassed`, then `ended` at the moment of the lapse that decided it.
    @Test func aLongIdleFightIsSettledInOneGoAtTheRightMoments() throws {
        var logged = try LoggedRing()
        let (alice, bob) = (logged.challenger, logged.opponent)
        let start = logged.start
        logged.ring.now = start + 86_400
        let events = try logged.ring.run(.settleDeadlines)
        logged.log += events
        #expect(
            events == [
                .fight(
                    FightEvent(
                        fight: logged.fight, sequence: 3, at: start + 240,
                        change: .turnPassed(missedTurns: 4, turn: Turn(fighter: alice, deadline: start + 300)))),
                .fight(
                    FightEvent(
                        fight: logged.fight, sequence: 4, at: start + 300,
                        change: .ended(FightResult(challenger: alice, opponent: bob, winner: bob, decision: .forfeit)))),
            ])
        #expect(logged.audit.problems == [])
    }

    @Test func theLimitIsARule() throws {
        var logged = try LoggedRing()
        logged.ring.referee.rules.missedTurnsToForfeit = 1
        let result = FightResult(
            challenger: logged.challenger, opponent: logged.opponent, winner: logged.opponent, decision: .forfeit)
        #expect(try logged.settle(at: 60) == [.ended(result)])
        #expect(Rules().missedTurnsToForfeit == 3)
        #expect(Rules(missedTurnsToForfeit: 0).missedTurnsToForfeit == 1)
    }

    /// The audit catches a saved count the log does not add up to.
    @Test func aSavedCountTheLogDoesNotGiveIsFound() throws {
        var logged = try LoggedRing()
        try logged.settle(at: 60)
        var fights = logged.ring.state.fights
        fights[logged.fight]?.missedTurns = Both(0, 0)
        let audit = LogAudit(
            log: logged.log, fights: Array(fights.values), fighters: Array(logged.ring.state.fighters.values),
            statistics: Statistics(rebuiltFrom: logged.log), rules: logged.ring.referee.rules)
        #expect(audit.problems == ["fight \(logged.fight.rawValue): saved missed turns 0/0, the log says 1/0"])
    }

    /// A fight saved before missed turns were counted has none counted.
    @Test func aFightSavedWithoutCountsReadsAsNoneMissed() throws {
        let logged = try LoggedRing()
        let fight = try logged.ring.fight(logged.fight)
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(fight)) as? [String: Any])
        #expect(object.removeValue(forKey: "missedTurns") != nil)
        let decoded = try JSONDecoder().decode(Fight.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(decoded == fight)
    }
}

/// A server that was down costs nobody a turn: on its return every turn under way starts afresh.
@Suite struct ServerRestartTests {
    @Test func aRestartGivesTheFighterWithTheTurnAWholeTurnAndCountsNoMiss() throws {
        var logged = try AbandonedFightTests.LoggedRing()
        let (alice, bob, fight) = (logged.challenger, logged.opponent, logged.fight)
        try logged.punch(alice, at: 10)  // Bob's turn until 70 s
        try logged.settle(at: 20)
        // The server was down from 20 s to 400 s: six of Bob's deadlines went by unseen.
        logged.ring.now = logged.start + 400
        let resumed = try logged.ring.run(.resumeTurns)
        logged.log += resumed
        #expect(resumed.fightChanges == [.turnPassed(missedTurns: 0, turn: Turn(fighter: bob, deadline: logged.start + 460))])
        // Nothing lapses now, nor until the new deadline; then one miss, as ever.
        #expect(try logged.settle(at: 401) == [])
        #expect(try logged.settle(at: 459) == [])
        #expect(try logged.ring.fight(fight).missedTurns == Both(0, 0))
        #expect(
            try logged.settle(at: 460) == [
                .turnPassed(missedTurns: 1, turn: Turn(fighter: alice, deadline: logged.start + 520))
            ])
        #expect(logged.audit.problems == [])
        // Without the resume, the same settle would have ended the fight by forfeit.
        var unresumed = try AbandonedFightTests.LoggedRing()
        try unresumed.punch(unresumed.challenger, at: 10)
        #expect(try unresumed.settle(at: 400).contains { if case .ended = $0 { true } else { false } })
    }

    /// The fighter who had the turn at the restart, back (their client reconnected), gets it
    /// afresh from then; only their own turn, and only while it is under way.
    @Test func aFighterBackAfterTheOutageHasTheirTurnAfreshOnlyIfItIsStillTheirs() throws {
        var logged = try AbandonedFightTests.LoggedRing()
        let (alice, bob, fight) = (logged.challenger, logged.opponent, logged.fight)
        try logged.punch(alice, at: 10)  // Bob's turn
        logged.ring.now = logged.start + 400
        logged.log += try logged.ring.run(.resumeTurns)  // Bob's until 460
        let owed = try logged.ring.fight(fight).lastSequence
        logged.ring.now = logged.start + 407
        #expect(try logged.ring.run(.resumeTurn(fight, of: alice, after: owed)).isEmpty, "not alice's turn: nothing")
        let resumed = try logged.ring.run(.resumeTurn(fight, of: bob, after: owed))
        logged.log += resumed
        #expect(
            resumed.fightChanges == [
                .turnPassed(missedTurns: 0, turn: Turn(fighter: bob, deadline: logged.start + 467))
            ])
        #expect(try logged.ring.fight(fight).missedTurns == Both(0, 0))
        // Given once: the fight moved on from the sequence owed (a server asking again, another
        // server's resume, a punch), so nothing more.
        logged.ring.now = logged.start + 408
        #expect(try logged.ring.run(.resumeTurn(fight, of: bob, after: owed)).isEmpty, "resumed twice")
        // Once the turn has lapsed, it is alice's: bob is not given hers, and the lapse counts.
        logged.ring.now = logged.start + 470
        let late = try logged.ring.run(.resumeTurn(fight, of: bob, after: owed + 1))
        logged.log += late
        #expect(
            late.fightChanges == [.turnPassed(missedTurns: 1, turn: Turn(fighter: alice, deadline: logged.start + 527))]
        )
        #expect(logged.audit.problems == [])
        // Someone outside the fight is refused as for any command on it.
        let carol = try logged.ring.register("carol")
        #expect(logged.ring.refusal(.resumeTurn(fight, of: carol, after: logged.ring.seen(fight))) == .notInFight(carol, fight))
    }

    @Test func aChallengeOrAFinishedFightIsLeftAsItWas() throws {
        var ring = Ring()
        let alice = ring.state.nextFighterID
        _ = try ring.run(.register(Registration(username: "alice", displayName: "alice")))
        _ = try ring.run(.register(Registration(username: "bob", displayName: "bob")))
        let challenge = ring.state.nextFightID
        _ = try ring.run(.challenge(alice, opponent: FighterID(alice.rawValue + 1)))
        #expect(try ring.run(.resumeTurns).isEmpty, "a challenge waits for its answer as before")
        #expect(try ring.run(.resumeTurn(challenge, of: alice, after: ring.seen(challenge))).isEmpty)
        var over = try AbandonedFightTests.LoggedRing()
        _ = try over.ring.run(.forfeit(over.fight, by: over.opponent))
        let finished = try over.ring.fight(over.fight)
        #expect(try over.ring.run(.resumeTurns).isEmpty, "a fight over stays over")
        #expect(try over.ring.run(.resumeTurn(over.fight, of: over.challenger, after: over.ring.seen(over.fight))).isEmpty)
        #expect(try over.ring.fight(over.fight) == finished)
    }
}
