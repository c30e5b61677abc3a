import FightEngine
import FightProtocol

// MARK: - FightFollower

/// A client's copy of its fights, kept up to date from the events the server pushes.
///
/// Events are applied in sequence order, each once: an event already seen is a duplicate (a replay
/// overlapping a push) and is dropped; an event past a gap is held back and the gap is reported so
/// the client can ask for a `replay`. A fight first heard of by an event is reported too, so the
/// client can ask for its state (`fight`), since events alone do not say a fight's starting stamina.
public struct FightFollower: Sendable {
    /// The fights as last known, by identifier.
    public private(set) var fights: [FightID: FightView] = [:]
    /// Fights heard of by an event whose state has not come yet.
    public private(set) var awaitingState: Set<FightID> = []

    /// Follows no fight yet.
    public init() {}

    /// What the client should ask the server for after an event.
    public enum Need: Hashable, Sendable {
        /// Nothing: the event was applied or was a duplicate.
        case nothing
        /// The fight's state: it was not known.
        case state(fight: FightID)
        /// The events after `after`: some are missing.
        case replay(fight: FightID, after: Int)

        /// The request that meets the need.
        public var request: ClientRequest? {
            switch self {
            case .nothing: nil
            case .state(let fight): .fight(FightRef(fight: fight))
            case .replay(let fight, let after): .replay(ReplayRequest(fight: fight, after: after))
            }
        }
    }

    /// Takes a fight's state as the server sent it, unless what is known is newer.
    public mutating func update(_ view: FightView) {
        awaitingState.remove(view.id)
        if let known = fights[view.id], known.lastSequence > view.lastSequence { return }
        fights[view.id] = view
    }

    /// Applies a fight event (fighter events are not about fights: `.nothing`).
    public mutating func apply(_ event: WireEvent) -> Need {
        guard let id = event.fight, let sequence = event.sequence else { return .nothing }
        guard var view = fights[id] else {
            awaitingState.insert(id)
            return .state(fight: id)
        }
        if sequence <= view.lastSequence { return .nothing }
        if sequence > view.lastSequence + 1 { return .replay(fight: id, after: view.lastSequence) }
        view.apply(event)
        fights[id] = view
        return .nothing
    }

    /// What to ask for on a new connection, given the fights the server says are open (`welcome`).
    /// Missed events are replayed rather than skipped over by taking the new state, in the fights
    /// still open and in those that ended while away; fights heard of but not known are asked for.
    public mutating func catchUp(openFights: [FightView]) -> [Need] {
        var needs: [Need] = []
        var open: Set<FightID> = []
        for view in openFights where open.insert(view.id).inserted {
            if let known = fights[view.id] {
                if known.lastSequence < view.lastSequence {
                    needs.append(.replay(fight: view.id, after: known.lastSequence))
                }
            } else {
                update(view)
            }
        }
        for view in fights.values where view.phase != .finished && !open.contains(view.id) {
            needs.append(.replay(fight: view.id, after: view.lastSequence))
        }
        needs += awaitingState.sorted().map { .state(fight: $0) }
        return needs
    }
}

extension FightView {
    /// The view after `event`, the next event of this fight.
    mutating func apply(_ event: WireEvent) {
        lastSequence = event.sequence ?? lastSequence
        switch event.kind {
        case .accepted, .matched, .turnPassed:
            countMissedTurns(event)
            phase = .active
            expiresAt = nil
            turn = event.turn
            deadline = event.deadline
        case .punched:
            if event.by == challenger {
                staminaOpponent = event.staminaLeft ?? staminaOpponent
                punchesChallenger += 1
            } else {
                staminaChallenger = event.staminaLeft ?? staminaChallenger
                punchesOpponent += 1
            }
            turn = event.turn
            deadline = event.deadline
            countMissedTurns(event)
        case .declined, .expired, .ended:
            phase = .finished
            missedTurns = nil
            switch event.kind {
            case .declined: ending = .known(.declined)
            case .expired: ending = .known(.expired)
            default: ending = event.decision.map(OpenEnum.init)
            }
            winner = event.winner
            finishedAt = event.at
            turn = nil
            deadline = nil
            expiresAt = nil
        default:
            break
        }
    }

    /// The missed turns after `event`, counted by the engine's own rule, so that the client's
    /// count is the server's.
    private mutating func countMissedTurns(_ event: WireEvent) {
        guard let change = event.fightChange else { return }
        missedTurns = (missedTurns ?? Both(0, 0)).counting(change, corner: corner(of:))
    }
}
