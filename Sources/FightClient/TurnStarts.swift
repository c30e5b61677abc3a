import FightEngine
import FightProtocol

// MARK: - TurnStarts

/// When a player's turn began in fights whose state is still on its way.
///
/// An event that introduces a fight (`matched`) may give the player the turn before the client
/// knows the fight: its state is asked for and arrives later. The turn began with the event, so a
/// punch the player made in between belongs to it; but only if the state, when it comes, is still
/// at that event. Otherwise the fight moved on (or was learnt another way, say after a reconnect)
/// and the turn, if the player has it, began when the state came.
///
/// Generic over the instant so the rule is tested without a clock.
public struct TurnStarts<Instant: Sendable>: Sendable {
    private var heard: [FightID: (sequence: Int?, at: Instant)] = [:]

    /// Remembers nothing yet.
    public init() {}

    /// Notes `event`, received at `instant`, if it gave `player` the turn in a fight whose state
    /// the follower still needs (`need` is what `FightFollower.apply` said of it).
    public mutating func note(_ event: WireEvent, need: FightFollower.Need, player: FighterID?, at instant: Instant) {
        guard case .state(let fight) = need, let turn = event.turn, turn == player else { return }
        heard[fight] = (event.sequence, instant)
    }

    /// When the turn began in the fight whose state `view` arrived at `received`: when the event
    /// that gave it was received, if the state is still at that event; else on arrival.
    public mutating func began(_ view: FightView, received: Instant) -> Instant {
        guard let noted = heard.removeValue(forKey: view.id), noted.sequence == view.lastSequence else {
            return received
        }
        return noted.at
    }
}
