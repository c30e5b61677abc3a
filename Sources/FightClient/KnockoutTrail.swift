import FightEngine
import FightProtocol

// MARK: - KnockoutTrail

/// How far past 0 each knockout went, worked out from the fights' events: the server sends a
/// stamina that stops at 0 (`staminaLeft`), but an answered knockout is decided by the blow that
/// went further past it, so the screen must say by how much. A punch's margin is its damage less
/// the stamina it took, which the punches before it tell, counted from the fight's start (once its
/// first event is in) or from a state the screen saw just before one of them.
///
/// Events come live, or replayed after a reconnect or a restart, in any order: a replay of the
/// whole fight may come after the events that followed it, so the margins are worked out again
/// from what is known each time.
public struct KnockoutTrail: Hashable, Sendable {
    /// A punch as the trail needs it.
    private struct Punch: Hashable, Sendable {
        var by: FighterID
        var damage: Int
        var left: Int
    }

    /// Where a fight's count begins: after `sequence`, with these staminas.
    private struct Start: Hashable, Sendable {
        var sequence: Int
        var stamina: [FighterID: Int]
    }

    /// Each fight's punches, by sequence.
    private var punches: [FightID: [Int: Punch]] = [:]
    /// Each fight's two fighters, once known.
    private var fighters: [FightID: [FighterID]] = [:]
    /// Where each fight's count begins.
    private var starts: [FightID: Start] = [:]
    /// How far past 0 each fighter was knocked, by fight: set by the punch that took them to 0.
    public private(set) var pastZero: [FightID: [FighterID: Int]] = [:]

    /// Knows nothing yet.
    public init() {}

    /// Takes `event`; `before` is the fight as the screen knew it before the message that brought
    /// the event (a count may begin from it if it is the state just before), `startingStamina`
    /// each fighter's at the fight's start.
    public mutating func take(_ event: WireEvent, before: FightView?, startingStamina: Int) {
        guard let fight = event.fight, let sequence = event.sequence else { return }
        if let before { fighters[fight] = [before.challenger, before.opponent] }
        if let challenger = event.challenger, let opponent = event.opponent { fighters[fight] = [challenger, opponent] }
        let both = fighters[fight] ?? []
        if sequence == 1, both.count == 2 {
            starts[fight] = Start(sequence: 0, stamina: [both[0]: startingStamina, both[1]: startingStamina])
        } else if starts[fight] == nil, let before, before.lastSequence == sequence - 1 {
            starts[fight] = Start(
                sequence: before.lastSequence,
                stamina: [before.challenger: before.staminaChallenger, before.opponent: before.staminaOpponent])
        }
        if event.kind == .punched, let by = event.by, let damage = event.damage, let left = event.staminaLeft {
            punches[fight, default: [:]][sequence] = Punch(by: by, damage: damage, left: left)
        }
        count(fight)
    }

    /// Works the fight's margins out again from where its count begins.
    private mutating func count(_ fight: FightID) {
        guard let start = starts[fight], let both = fighters[fight], both.count == 2 else { return }
        var stamina = start.stamina
        var margins: [FighterID: Int] = [:]
        for (sequence, punch) in (punches[fight] ?? [:]).sorted(by: { $0.key < $1.key }) where sequence > start.sequence {
            let target = punch.by == both[0] ? both[1] : both[0]
            guard let had = stamina[target] else { return }
            if punch.left == 0 { margins[target] = punch.damage - had }
            stamina[target] = punch.left
        }
        pastZero[fight] = margins.isEmpty ? nil : margins
    }

    /// How far past 0 `fighter` was knocked in `fight`, if they were and it is known.
    public func pastZero(of fighter: FighterID, in fight: FightID) -> Int? { pastZero[fight]?[fighter] }
}

// MARK: - The answer, in words

extension ScreenModel {
    /// What the knockout's answer needs, for the fight's lines: the one down, knocked `margin`
    /// past 0, answers with one last punch against the other, who has `left`. The answer floors
    /// them and wins by going further past 0 than `margin`, draws at as far; anything less loses.
    /// `most` is the most a punch can land (the highest ceiling): past it, no answer can.
    static func answerNeeds(margin: Int, left: Int, most: Int, answeringIsMe: Bool) -> String {
        let draw = left + margin
        let standing = answeringIsMe ? "they have \(left) left: " : "you have \(left) left: "
        guard draw <= most else {
            return standing + "no punch lands \(draw) (the most is \(most)), so the knockout stands"
        }
        let wins = draw + 1 <= most ? "\(draw + 1)+ wins, " : ""
        return answeringIsMe
            ? standing + "\(wins)\(draw) draws, less loses (after their guard)"
            : standing + "their \(wins)\(draw) draws, less and you win"
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
