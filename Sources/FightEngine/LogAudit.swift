// MARK: - LogAudit

/// Saved state checked against the event log it was built from.
///
/// The log is the truth: each fight's events must be numbered 1, 2, 3, … without a gap, each
/// punch must leave the other fighter with what the rules say (starting stamina minus the damage
/// landed, never below 0), and the saved fights, fighters' records and statistics must be what
/// the log adds up to. A store kept up to date command by command, across crashes and restarts,
/// passes; one that lost or doubled an event does not.
public struct LogAudit: Hashable, Sendable {
    /// Fights found in the log.
    public private(set) var fights = 0
    /// Events read.
    public private(set) var events = 0
    /// What does not add up, one sentence each; empty when everything does.
    public private(set) var problems: [String] = []

    /// Checks `fights`, `fighters` and `statistics` as saved against `log`, judged by `rules`.
    public init(log: [Event], fights saved: [Fight], fighters: [Fighter], statistics: Statistics, rules: Rules) {
        events = log.count
        var folded: [FightID: FoldedFight] = [:]
        var records: [FighterID: Record] = [:]
        for case .fight(let event) in log {
            if case .ended(let result) = event.change {
                for fighter in [result.challenger, result.opponent] {
                    records[fighter, default: Record()].count(result, for: fighter)
                }
            }
            if var fight = folded[event.fight] {
                problems += fight.apply(event)
                folded[event.fight] = fight
            } else if let fight = FoldedFight(starting: event, rules: rules) {
                folded[event.fight] = fight
            } else {
                problems.append("fight \(event.fight.rawValue): the log starts with sequence \(event.sequence), not a challenge or match")
            }
        }
        fights = folded.count

        let savedByID = Dictionary(saved.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (id, fight) in folded.sorted(by: { $0.key < $1.key }) {
            guard let stored = savedByID[id] else {
                problems.append("fight \(id.rawValue): in the log but not saved")
                continue
            }
            problems += fight.differences(from: stored).map { "fight \(id.rawValue): \($0)" }
        }
        for fight in saved where folded[fight.id] == nil {
            problems.append("fight \(fight.id.rawValue): saved but not in the log")
        }
        for fighter in fighters {
            let expected = records[fighter.id] ?? Record()
            if fighter.record != expected {
                problems.append(
                    "fighter \(fighter.id.rawValue): record \(Self.describe(fighter.record)), the log says \(Self.describe(expected))")
            }
        }
        if statistics != Statistics(rebuiltFrom: log) {
            problems.append("statistics: those kept as fights ended differ from those rebuilt from the log")
        }
    }

    private static func describe(_ record: Record) -> String {
        "\(record.wins)-\(record.losses)-\(record.draws)"
    }
}

// MARK: - One fight, from its log

/// What a fight's log adds up to: the corners, stamina, punches, missed turns, last sequence
/// and whether it ended.
private struct FoldedFight {
    let challenger: FighterID
    let opponent: FighterID
    var stamina: Both<Int>
    var punches = Both(0, 0)
    var missedTurns = Both(0, 0)
    var lastSequence: Int
    var isOpen = true

    init?(starting event: FightEvent, rules: Rules) {
        guard event.sequence == 1 else { return nil }
        switch event.change {
        case .challenged(let challenger, let opponent, _), .matched(let challenger, let opponent, _):
            self.challenger = challenger
            self.opponent = opponent
        default:
            return nil
        }
        stamina = Both(rules.startingStamina, rules.startingStamina)
        lastSequence = 1
    }

    /// Applies the next event; says what is wrong with it. After a gap the event is still
    /// applied, so that one lost event is reported once rather than as every event after it.
    mutating func apply(_ event: FightEvent) -> [String] {
        let place = "fight \(event.fight.rawValue) sequence \(event.sequence)"
        var found: [String] = []
        if event.sequence != lastSequence + 1 {
            found.append("fight \(event.fight.rawValue): sequence \(event.sequence) follows \(lastSequence)")
        }
        lastSequence = event.sequence
        if !isOpen { found.append("\(place): an event after the fight finished") }
        missedTurns = missedTurns.counting(event.change, corner: corner(of:))
        switch event.change {
        case .punched(let by, _, let damage, _, let staminaLeft, _, _):
            guard let corner = corner(of: by) else {
                return found + ["\(place): a punch by fighter \(by.rawValue), who is not in the fight"]
            }
            let target = corner.other
            stamina[target] = max(0, stamina[target] - damage)
            punches[corner] += 1
            if staminaLeft != stamina[target] {
                found.append("\(place): stamina left \(staminaLeft), expected \(stamina[target]) after \(damage) damage")
            }
        case .declined, .expired, .ended:
            isOpen = false
        case .challenged, .matched:
            found.append("\(place): a second start")
        case .accepted, .turnPassed:
            break
        }
        return found
    }

    private func corner(of fighter: FighterID) -> Corner? {
        fighter == challenger ? .challenger : fighter == opponent ? .opponent : nil
    }

    /// How the saved fight differs from what its log adds up to.
    func differences(from saved: Fight) -> [String] {
        var found: [String] = []
        if saved.challenger != challenger || saved.opponent != opponent { found.append("saved with other fighters") }
        if saved.stamina != stamina {
            found.append(
                "saved stamina \(saved.stamina.challenger)/\(saved.stamina.opponent), the log says \(stamina.challenger)/\(stamina.opponent)")
        }
        if saved.punches != punches {
            found.append(
                "saved punches \(saved.punches.challenger)/\(saved.punches.opponent), the log says \(punches.challenger)/\(punches.opponent)")
        }
        // The lapse that ends a fight by forfeit is told by its `ended` event alone, which does not
        // say why; so the counts are checked while the fight is open, where the next lapse is judged.
        if isOpen, saved.isOpen, saved.missedTurns != missedTurns {
            found.append(
                "saved missed turns \(saved.missedTurns.challenger)/\(saved.missedTurns.opponent), the log says \(missedTurns.challenger)/\(missedTurns.opponent)")
        }
        if saved.lastSequence != lastSequence {
            found.append("saved at sequence \(saved.lastSequence), the log ends at \(lastSequence)")
        }
        if saved.isOpen != isOpen { found.append(saved.isOpen ? "saved open, the log ended it" : "saved finished, the log did not end it") }
        return found
    }
}
