import FightClient
import FightEngine
import FightProtocol
import Testing

/// A client's copy of its fights, fed the events the referee makes: in order, duplicated, with a
/// gap, before the fight is known, and across a reconnect.
@Suite struct FightFollowerTests {
    /// Fights under way between registered fighters, and the events each made, as the server sends them.
    struct Bout {
        var state = FightState()
        let referee = Referee()
        var now = Timestamp(secondsSince1970: 1_800_000_000)
        var events: [FightID: [WireEvent]] = [:]
        var fight = FightID(rawValue: 0)

        /// Alice has challenged Bob, who accepted: `fight` is under way.
        init() throws {
            fight = try start()
        }

        /// Starts another fight between two new fighters.
        mutating func start() throws -> FightID {
            let challenger = try register(), opponent = try register()
            let fight = state.nextFightID
            try run(.challenge(challenger, opponent: opponent))
            try run(.accept(fight, by: opponent))
            return fight
        }

        mutating func register() throws -> FighterID {
            let id = state.nextFighterID
            let name = "fighter\(id.rawValue)"
            try run(.register(Registration(username: name, displayName: name)))
            return id
        }

        mutating func run(_ command: Command) throws {
            let transition = try referee.reduce(state, command, at: now).get()
            state = transition.state
            for case .fight(let event) in transition.events {
                events[event.fight, default: []].append(WireEvent(event))
            }
        }

        mutating func punch(_ damage: Int, in fight: FightID? = nil) throws {
            let fight = fight ?? self.fight
            let turn = try #require(try view(fight).turn)
            try run(.punch(fight, by: turn, after: seen(fight), kind: .jab, damage: damage))
        }

        /// Fight `id`'s last sequence: what a punch thrown now is thrown at.
        func seen(_ id: FightID) -> Int { state.fights[id]?.lastSequence ?? 0 }

        func view(_ fight: FightID? = nil) throws -> FightView {
            FightView(try #require(state.fights[fight ?? self.fight]))
        }
        func events(_ fight: FightID? = nil) -> [WireEvent] { events[fight ?? self.fight] ?? [] }
    }

    @Test func eventsInOrderGiveTheServersState() throws {
        var bout = try Bout()
        var follower = FightFollower()
        follower.update(try bout.view())
        let known = bout.events().count
        for damage in [30, 20, 40, 35] { try bout.punch(damage) }
        for event in bout.events()[known...] { #expect(follower.apply(event) == .nothing) }
        #expect(follower.fights[bout.fight] == (try bout.view()))
    }

    @Test func aDuplicateIsDroppedAndAGapAskedFor() throws {
        var bout = try Bout()
        var follower = FightFollower()
        let known = try bout.view()
        follower.update(known)
        let first = bout.events().count
        for damage in [30, 20, 40] { try bout.punch(damage) }
        let events = bout.events()
        #expect(follower.apply(events[first]) == .nothing)
        #expect(follower.apply(events[first]) == .nothing, "applied once")
        #expect(follower.apply(events[first + 2]) == .replay(fight: known.id, after: known.lastSequence + 1))
        #expect(follower.fights[known.id]?.punchesChallenger == 1, "the event past the gap is not applied")
    }

    @Test func aFightHeardOfFirstByAnEventAwaitsItsState() throws {
        var bout = try Bout()
        var follower = FightFollower()
        let event = try #require(bout.events().last)
        #expect(follower.apply(event) == .state(fight: bout.fight))
        #expect(follower.awaitingState == [bout.fight])
        #expect(follower.apply(event).request == .fight(FightRef(fight: bout.fight)))
        follower.update(try bout.view())
        #expect(follower.awaitingState.isEmpty)
        try bout.punch(10)
        #expect(follower.apply(try #require(bout.events().last)) == .nothing)
    }

    @Test func aReconnectReplaysWhatWasMissedInOpenAndEndedFightsAndAsksForUnknownOnes() throws {
        var bout = try Bout()
        let going = bout.fight, ended = try bout.start()
        var follower = FightFollower()
        follower.update(try bout.view(going))
        follower.update(try bout.view(ended))
        let seen = (going: try bout.view(going).lastSequence, ended: try bout.view(ended).lastSequence)
        try bout.punch(30, in: going)
        // Five punches knock out the one who threw second, and the sixth is their answer.
        for _ in 0..<6 { try bout.punch(40, in: ended) }
        #expect(try bout.view(ended).phase == .finished)
        var unknown = WireEvent(kind: .punched, at: bout.now)
        unknown.fight = FightID(99)
        unknown.sequence = 3
        #expect(follower.apply(unknown) == .state(fight: FightID(99)))

        let needs = follower.catchUp(openFights: [try bout.view(going)])
        #expect(
            Set(needs) == [
                .replay(fight: going, after: seen.going),
                .replay(fight: ended, after: seen.ended),
                .state(fight: FightID(99)),
            ])
        #expect(follower.fights[going]?.lastSequence == seen.going, "missed events are replayed, not skipped")
    }

    /// Turns let lapse are counted from the events as the server counts them: a punch clears its
    /// thrower's count, a `turnPassed` adds its lapses, a turn started afresh adds none.
    @Test func missedTurnsAreCountedAsTheServerCountsThem() throws {
        var bout = try Bout()
        var follower = FightFollower()
        follower.update(try bout.view())
        let known = bout.events().count
        let start = bout.now
        // Each lapses once, the challenger punches, then the opponent's turn lapses twice in a
        // row (the challenger's once in between).
        for seconds: Int64 in [60, 120, 240] {
            bout.now = start + seconds
            try bout.run(.settleDeadlines)
            if seconds == 120 { try bout.punch(10) }
        }
        try bout.run(.resumeTurns)
        for event in bout.events()[known...] { _ = follower.apply(event) }
        let view = try #require(follower.fights[bout.fight])
        #expect(view == (try bout.view()))
        #expect(view.missedTurns == Both(1, 2))
        // Over, the fight has no count to show: its last lapse is told by `ended` alone.
        try bout.run(.forfeit(bout.fight, by: view.challenger))
        for event in bout.events().suffix(1) { _ = follower.apply(event) }
        #expect(follower.fights[bout.fight] == (try bout.view()))
        #expect(follower.fights[bout.fight]?.missedTurns == nil)
    }

    @Test func aReconnectTakesTheStateOfOpenFightsItDidNotKnow() throws {
        let bout = try Bout()
        var follower = FightFollower()
        #expect(follower.catchUp(openFights: [try bout.view()]) == [])
        #expect(follower.fights[bout.fight] == (try bout.view()))
    }
}
