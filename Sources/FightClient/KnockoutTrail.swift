import FightEngine
import FightProtocol

// MARK: - KnockoutTrail

/// How far past 0 each knockout went, worked out from the fights' events: the server sends a
/// stamina that stops at 0 (`staminaLeft`), but an answered knockout is decided by the blow that
/// went further past it, so the screen must say by how much. A punch's margin is its damage less
/// the stamina it took, which the events before it tell.
///
/// Events come live, or replayed after a reconnect or a restart; each is taken once, in sequence.
public struct KnockoutTrail: Hashable, Sendable {
    /// Each fight's staminas as the events left them, by fighter.
    private var stamina: [FightID: [FighterID: Int]] = [:]
    /// The last sequence taken of each fight.
    private var taken: [FightID: Int] = [:]
    /// How far past 0 each fighter was knocked, by fight: set by the punch that took them to 0.
    public private(set) var pastZero: [FightID: [FighterID: Int]] = [:]

    /// Knows nothing yet.
    public init() {}

    /// Takes `event`, the next of its fight; `before` is the fight as it stood before it (its
    /// staminas are where a trail begins when the events before were not seen), `startingStamina`
    /// each fighter's at the fight's first event.
    public mutating func take(_ event: WireEvent, before: FightView?, startingStamina: Int) {
        guard let fight = event.fight, let sequence = event.sequence else { return }
        if let last = taken[fight], sequence <= last { return }
        // A fight's first event starts it afresh; a trail joined later starts from the state.
        if sequence == 1 {
            stamina[fight] = [:]
            pastZero[fight] = nil
        } else if taken[fight] == nil || (taken[fight] ?? 0) < sequence - 1 {
            guard let before, before.lastSequence == sequence - 1 else {
                // Not the state just before: nothing to count from, so nothing said.
                taken[fight] = sequence
                stamina[fight] = nil
                return
            }
            stamina[fight] = [before.challenger: before.staminaChallenger, before.opponent: before.staminaOpponent]
        }
        taken[fight] = sequence
        guard event.kind == .punched, let by = event.by, let damage = event.damage, let left = event.staminaLeft,
            let target = before.flatMap({ $0.challenger == by ? $0.opponent : $0.challenger })
                ?? stamina[fight]?.keys.first(where: { $0 != by })
        else { return }
        guard let had = stamina[fight]?[target] ?? (stamina[fight] != nil ? startingStamina : nil) else { return }
        if left == 0 { pastZero[fight, default: [:]][target] = damage - had }
        stamina[fight, default: [:]][target] = left
    }

    /// How far past 0 `fighter` was knocked in `fight`, if they were and it is known.
    public func pastZero(of fighter: FighterID, in fight: FightID) -> Int? { pastZero[fight]?[fighter] }
}

// MARK: - The answer, in words

extension ScreenModel {
    /// What the knockout's answer needs, for the fight's lines: `down`, knocked `margin` past 0,
    /// answers with one last punch against `standing`, who has `left`. The answer floors them
    /// and wins by going further past 0 than `margin`, draws at as far; anything less loses.
    static func answerNeeds(margin: Int, left: Int, answeringIsMe: Bool) -> String {
        let draw = left + margin
        return answeringIsMe
            ? "they have \(left) left: \(draw + 1)+ wins (further past 0), \(draw) draws, less loses"
            : "you have \(left) left: their \(draw + 1)+ wins, \(draw) draws, less and you win"
    }

    /// The knockout line of an `ended` event, with how far past 0 the blows went when known: a
    /// double knockout is decided by that, and a player floored first who loses wants to see it.
    func knockoutLine(_ event: WireEvent) -> String {
        guard let view = event.fight.flatMap({ fights[$0] }) else {
            return event.winner.map { "*** KNOCKOUT *** \(name($0)) won" } ?? "*** DOUBLE KNOCKOUT *** a draw"
        }
        let past = { (who: FighterID) in trail.pastZero(of: who, in: view.id) }
        guard let winner = event.winner else {
            let how = past(view.challenger).map { "\($0)" } ?? "as far"
            return "*** DOUBLE KNOCKOUT *** both \(how) past 0: a draw"
        }
        let loser = winner == view.challenger ? view.opponent : view.challenger
        switch (past(loser), past(winner)) {
        case (let blow?, let answer?):
            return "*** KNOCKOUT *** \(name(winner)) won: \(blow) past 0 beats \(answer)"
        case (let blow?, nil):
            return "*** KNOCKOUT *** \(name(winner)) won (\(name(loser)) \(blow) past 0)"
        default:
            return "*** KNOCKOUT *** \(name(winner)) won"
        }
    }
}

/// A fight event's place: its fight and sequence, which no other event of the fight shares.
struct FightEventKey: Hashable, Sendable {
    var fight: FightID
    var sequence: Int
}
