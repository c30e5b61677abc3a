import FightEngine
import Testing

// MARK: - Seeded randomness

/// SplitMix64: the same numbers on every run, so a failing random case can be replayed.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Ring

/// A state, a referee and a clock the test moves by hand.
struct Ring {
    var state = FightState()
    var referee = Referee()
    var now = Timestamp(secondsSince1970: 1_800_000_000)

    /// Applies a command the test expects to be accepted.
    @discardableResult
    mutating func run(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Event] {
        switch referee.reduce(state, command, at: now) {
        case .success(let transition):
            state = transition.state
            return transition.events
        case .failure(let refusal):
            Issue.record("refused: \(refusal)", sourceLocation: sourceLocation)
            throw refusal
        }
    }

    /// Why the engine refuses `command` now (`nil` if it accepts it; the state is left as it was).
    func refusal(_ command: Command) -> Refusal? {
        guard case .failure(let refusal) = referee.reduce(state, command, at: now) else { return nil }
        return refusal
    }

    mutating func register(
        _ username: String, at location: Coordinate? = nil, profile: ProfileStats = ProfileStats()
    ) throws -> FighterID {
        let id = state.nextFighterID
        try run(
            .register(Registration(username: username, displayName: username, location: location, profile: profile)))
        return id
    }

    /// Registers two fighters (alice and bob, their names ending in `suffix`), challenges and
    /// accepts: a fight under way with the challenger to throw.
    mutating func startFight(named suffix: String = "") throws -> (
        fight: FightID, challenger: FighterID, opponent: FighterID
    ) {
        let a = try register("alice" + suffix), b = try register("bob" + suffix)
        let fight = state.nextFightID
        try run(.challenge(a, opponent: b))
        try run(.accept(fight, by: b))
        return (fight, a, b)
    }

    /// The last sequence of fight `id` as a client that saw everything up to now knows it: with
    /// the deadlines come settled, so that a punch thrown at it is not stale.
    func seen(_ id: FightID) -> Int {
        guard case .success(let settled) = referee.reduce(state, .settleDeadlines, at: now) else { return 0 }
        return settled.state.fights[id]?.lastSequence ?? 0
    }

    func fight(_ id: FightID) throws -> Fight { try #require(state.fights[id]) }
    func fighter(_ id: FighterID) throws -> Fighter { try #require(state.fighters[id]) }
}

extension Array where Element == Event {
    /// The fight events' changes, in order.
    var fightChanges: [FightEvent.Change] {
        compactMap { if case .fight(let event) = $0 { event.change } else { nil } }
    }
}
