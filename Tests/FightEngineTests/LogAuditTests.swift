import FightEngine
import Testing

/// The audit of saved state against the log: a log and state the referee made add up; a log or
/// a state with anything lost, doubled or changed does not, and the problem names the fight.
@Suite struct LogAuditTests {
    func audit(_ ring: Ring, log: [Event], fights: [Fight]? = nil, fighters: [Fighter]? = nil) -> LogAudit {
        LogAudit(
            log: log, fights: fights ?? Array(ring.state.fights.values),
            fighters: fighters ?? Array(ring.state.fighters.values), statistics: Statistics(rebuiltFrom: log),
            rules: ring.referee.rules)
    }

    /// Two fights, every event kept: one to a knockout, one still going.
    func wholeLog() throws -> (ring: Ring, log: [Event], fights: (ended: FightID, going: FightID)) {
        var ring = Ring()
        var log: [Event] = []
        let alice = ring.state.nextFighterID
        log += try ring.run(.register(Registration(username: "alice", displayName: "alice")))
        let bob = ring.state.nextFighterID
        log += try ring.run(.register(Registration(username: "bob", displayName: "bob")))
        let ended = ring.state.nextFightID
        log += try ring.run(.challenge(alice, opponent: bob))
        log += try ring.run(.accept(ended, by: bob))
        let carol = ring.state.nextFighterID
        log += try ring.run(.register(Registration(username: "carol", displayName: "carol")))
        let going = ring.state.nextFightID
        log += try ring.run(.challenge(carol, opponent: alice))
        log += try ring.run(.accept(going, by: alice))
        log += try ring.run(.punch(going, by: carol, after: ring.seen(going), kind: .uppercut, damage: 30))
        log += try ring.run(.punch(ended, by: alice, after: ring.seen(ended), kind: .jab, damage: 35))
        log += try ring.run(.punch(ended, by: bob, after: ring.seen(ended), kind: .jab, damage: 5))
        log += try ring.run(.punch(ended, by: alice, after: ring.seen(ended), kind: .jab, damage: 35))
        log += try ring.run(.punch(ended, by: bob, after: ring.seen(ended), kind: .hook, damage: 5))
        log += try ring.run(.punch(ended, by: alice, after: ring.seen(ended), kind: .jab, damage: 35))
        // Three jabs of 35 knock out 100 stamina; bob answers, down.
        log += try ring.run(.punch(ended, by: bob, after: ring.seen(ended), kind: .jab, damage: 5))
        #expect(try !ring.fight(ended).isOpen)
        return (ring, log, (ended, going))
    }

    @Test func whatTheRefereeMadeAddsUp() throws {
        let (ring, log, _) = try wholeLog()
        let audit = audit(ring, log: log)
        #expect(audit.problems == [])
        #expect(audit.fights == 2)
        #expect(audit.events == log.count)
    }

    @Test func aLostPunchIsAGapAndAStaminaMismatch() throws {
        let (ring, log, fights) = try wholeLog()
        let firstPunch = try #require(
            log.firstIndex {
                if case .fight(let event) = $0, event.fight == fights.ended, case .punched = event.change { true } else { false }
            })
        var lost = log
        lost.remove(at: firstPunch)
        let problems = audit(ring, log: lost).problems
        #expect(problems.contains { $0.hasPrefix("fight \(fights.ended.rawValue): sequence") && $0.contains("follows") })
    }

    @Test func aChangedStaminaIsFound() throws {
        let (ring, log, fights) = try wholeLog()
        let changed = log.map { event -> Event in
            guard case .fight(var fightEvent) = event, fightEvent.fight == fights.going,
                case .punched(let by, let kind, let damage, let bluntedBy, let left, let turn, let clipped) =
                    fightEvent.change
            else { return event }
            fightEvent.change = .punched(
                by: by, kind: kind, damage: damage, bluntedBy: bluntedBy, staminaLeft: left + 1, turn: turn,
                clipped: clipped)
            return .fight(fightEvent)
        }
        let problems = audit(ring, log: changed).problems
        #expect(problems.contains { $0.hasPrefix("fight \(fights.going.rawValue) sequence 3: stamina left 71, expected 70") })
    }

    @Test func savedStateThatDiffersFromTheLogIsFound() throws {
        let (ring, log, fights) = try wholeLog()
        var savedFights = Array(ring.state.fights.values)
        let index = try #require(savedFights.firstIndex { $0.id == fights.going })
        savedFights[index].stamina.opponent = 100
        var savedFighters = Array(ring.state.fighters.values)
        savedFighters[0].record.wins += 1
        let problems = audit(ring, log: log, fights: savedFights, fighters: savedFighters).problems
        #expect(problems.contains { $0.hasPrefix("fight \(fights.going.rawValue): saved stamina 100/100, the log says 100/70") })
        #expect(problems.contains { $0.hasPrefix("fighter \(savedFighters[0].id.rawValue): record") })
        #expect(problems.count == 2)
    }

    @Test func statisticsThatDifferFromTheLogAreFound() throws {
        let (ring, log, _) = try wholeLog()
        let audit = LogAudit(
            log: log, fights: Array(ring.state.fights.values), fighters: Array(ring.state.fighters.values),
            statistics: Statistics(), rules: ring.referee.rules)
        #expect(audit.problems.count == 1)
        #expect(audit.problems.first?.hasPrefix("statistics:") == true)
    }
}
