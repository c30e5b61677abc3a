// MARK: - FightFollower

/// A client's copy of its fights, kept up to date from the events the server pushes.
///
/// Events are applied in sequence order, each once: an event already seen is a duplicate (a replay
/// overlapping a push) and is dropped; an event past a gap is held back and the gap is reported so
/// the client can ask for a `replay`. A fight first heard of by an event is reported too, so the
/// client can ask for its state (`fight`), since events alone do not say a fight's starting stamina.
public struct FightFollower: Sendable {
    /// The fights as last known, by identifier.
    public private(set) var fights: [Int64: FightView] = [:]

    /// Follows no fight yet.
    public init() {}

    /// What the client should ask the server for after an event.
    public enum Need: Hashable, Sendable {
        /// Nothing: the event was applied or was a duplicate.
        case nothing
        /// The fight's state: it was not known.
        case state(fight: Int64)
        /// The events after `after`: some are missing.
        case replay(fight: Int64, after: Int)
    }

    /// Takes a fight's state as the server sent it, unless what is known is newer.
    public mutating func update(_ view: FightView) {
        if let known = fights[view.id], known.lastSequence > view.lastSequence { return }
        fights[view.id] = view
    }

    /// Applies a fight event (fighter events are not about fights: `.nothing`).
    public mutating func apply(_ event: WireEvent) -> Need {
        guard let id = event.fight, let sequence = event.sequence else { return .nothing }
        guard var view = fights[id] else { return .state(fight: id) }
        if sequence <= view.lastSequence { return .nothing }
        if sequence > view.lastSequence + 1 { return .replay(fight: id, after: view.lastSequence) }
        view.apply(event)
        fights[id] = view
        return .nothing
    }
}

extension FightView {
    /// The view after `event`, the next event of this fight.
    mutating func apply(_ event: WireEvent) {
        lastSequence = event.sequence ?? lastSequence
        switch event.kind {
        case "accepted", "matched", "turnPassed":
            phase = "active"
            expiresAt = nil
            turn = event.turn
            deadline = event.deadline
        case "punched":
            if event.by == challenger {
                staminaOpponent = event.staminaLeft ?? staminaOpponent
                punchesChallenger += 1
            } else {
                staminaChallenger = event.staminaLeft ?? staminaChallenger
                punchesOpponent += 1
            }
            turn = event.turn
            deadline = event.deadline
        case "declined", "expired", "ended":
            phase = "finished"
            ending = event.decision ?? event.kind
            winner = event.winner
            finishedAt = event.at
            turn = nil
            deadline = nil
            expiresAt = nil
        default:
            break
        }
    }
}
