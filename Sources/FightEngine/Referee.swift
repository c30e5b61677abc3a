// MARK: - Referee

/// The fight engine's reducer: applies a command to a state at a given moment.
public struct Referee: Hashable, Sendable {
    /// The numbers the rules use.
    public var rules: Rules

    /// Creates a referee with the given rules.
    public init(rules: Rules = Rules()) {
        self.rules = rules
    }

    /// Applies `command` at `now`: the new state and the events, or why the command is refused
    /// (then nothing changed).
    ///
    /// Before a command touches a fight, the fight is brought up to `now`: an unanswered challenge
    /// past its lifetime expires, a turn past its deadline passes. Those events come first in the
    /// transition, stamped with the moment they happened, not with `now`.
    public func reduce(_ state: FightState, _ command: Command, at now: Timestamp) -> Result<Transition, Refusal> {
        var draft = Draft(state: state, rules: rules, now: now)
        do {
            try draft.apply(command)
            return .success(Transition(state: draft.state, events: draft.events))
        } catch {
            return .failure(error)
        }
    }
}

// MARK: - Draft

/// A state being changed by one command, with the events so far.
struct Draft {
    var state: FightState
    let rules: Rules
    let now: Timestamp
    var events: [Event] = []

    mutating func apply(_ command: Command) throws(Refusal) {
        switch command {
        case .register(let registration): try register(registration)
        case .updateProfile(let id, let displayName, let bio, let profile):
            try updateProfile(id, displayName: displayName, bio: bio, profile: profile)
        case .move(let id, let coordinate): try move(id, to: coordinate)
        case .challenge(let challenger, let opponent): try challenge(challenger, opponent)
        case .accept(let fight, let by): try answer(fight, by: by, accepting: true)
        case .decline(let fight, let by): try answer(fight, by: by, accepting: false)
        case .punch(let fight, let by, let after, let kind, let damage, let clipped):
            try punch(fight, by: by, after: after, kind: kind, strength: .measured(damage: damage, clipped: clipped))
        case .timedPunch(let fight, let by, let after, let kind, let milliseconds):
            try punch(
                fight, by: by, after: after, kind: kind, strength: .meter(stoppedAfterMilliseconds: milliseconds))
        case .raiseGuard(let fight, let by, let stance): try raiseGuard(stance, in: fight, by: by)
        case .forfeit(let fight, let by): try forfeit(fight, by: by)
        case .quickMatch(let id): try quickMatch(id)
        case .leaveQuickMatch(let id): try leaveQuickMatch(id)
        case .settleDeadlines:
            for id in state.fights.keys.sorted() { settle(id) }
        case .resumeTurns:
            for id in state.fights.keys.sorted() { resumeTurn(id) }
        case .resumeTurn(let id, let fighter, let after): try resumeTurn(id, of: fighter, after: after)
        }
    }

    // MARK: - Lookups

    func fighter(_ id: FighterID) throws(Refusal) -> Fighter {
        guard let fighter = state.fighters[id] else { throw .unknownFighter(id) }
        return fighter
    }

    func fight(_ id: FightID) throws(Refusal) -> Fight {
        guard let fight = state.fights[id] else { throw .unknownFight(id) }
        return fight
    }

    // MARK: - Emitting

    mutating func emit(_ fighter: FighterID, _ change: FighterEvent.Change) {
        events.append(.fighter(FighterEvent(fighter: fighter, at: now, change: change)))
    }

    /// Records a step of `fight` and stores the fight.
    mutating func emit(_ fight: inout Fight, at moment: Timestamp? = nil, _ change: FightEvent.Change) {
        fight.lastSequence += 1
        events.append(
            .fight(FightEvent(fight: fight.id, sequence: fight.lastSequence, at: moment ?? now, change: change)))
        state.fights[fight.id] = fight
    }
}

// MARK: - Fighters

extension Draft {
    mutating func register(_ registration: Registration) throws(Refusal) {
        let username: Username
        do {
            username = try Username(validating: registration.username)
            try Fighter.validate(displayName: registration.displayName)
            try Fighter.validate(bio: registration.bio)
            try registration.location?.validate()
            try registration.profile.validate()
        } catch {
            throw .invalid(error)
        }
        if state.fighters.values.contains(where: { $0.username.key == username.key }) {
            throw .usernameTaken(registration.username)
        }
        let fighter = Fighter(
            id: state.nextFighterID, username: username, displayName: registration.displayName,
            bio: registration.bio, location: registration.location, profile: registration.profile, joinedAt: now)
        state.fighters[fighter.id] = fighter
        state.nextFighterID = FighterID(fighter.id.rawValue + 1)
        emit(fighter.id, .registered(fighter))
    }

    mutating func updateProfile(
        _ id: FighterID, displayName: String, bio: String, profile: ProfileStats
    ) throws(Refusal) {
        var fighter = try fighter(id)
        do {
            try Fighter.validate(displayName: displayName)
            try Fighter.validate(bio: bio)
            try profile.validate()
        } catch {
            throw .invalid(error)
        }
        fighter.displayName = displayName
        fighter.bio = bio
        fighter.profile = profile
        state.fighters[id] = fighter
        emit(id, .profileUpdated(displayName: displayName, bio: bio, profile: profile))
    }

    mutating func move(_ id: FighterID, to coordinate: Coordinate) throws(Refusal) {
        var fighter = try fighter(id)
        do { try coordinate.validate() } catch { throw .invalid(error) }
        fighter.location = coordinate
        state.fighters[id] = fighter
        emit(id, .moved(coordinate))
    }
}
