// MARK: - Statistics

/// The counters the original apps kept for a fighter, an ordered pair of fighters, or everyone.
public struct StatLine: Hashable, Sendable, Codable {
    /// Fights fought to a result (declined and expired challenges are not battles).
    public var qtyBattles: Int
    /// Of those, fights won (overall: fights that had a winner rather than a draw).
    public var qtyWins: Int
    /// When the latest battle ended.
    public var lastBattle: Timestamp?
    /// When the latest win was.
    public var lastWin: Timestamp?

    /// Creates a line; the defaults are "never fought".
    public init(qtyBattles: Int = 0, qtyWins: Int = 0, lastBattle: Timestamp? = nil, lastWin: Timestamp? = nil) {
        self.qtyBattles = qtyBattles
        self.qtyWins = qtyWins
        self.lastBattle = lastBattle
        self.lastWin = lastWin
    }

    /// The line after one more battle at `at`, won or not.
    ///
    /// "Last" is the latest moment, not the latest recorded: a turn that lapsed long ago can end a
    /// fight in the log after a newer one, and the result must not depend on that order.
    public func recording(battleAt at: Timestamp, won: Bool) -> StatLine {
        var line = self
        line.qtyBattles += 1
        line.lastBattle = Swift.max(lastBattle ?? at, at)
        if won {
            line.qtyWins += 1
            line.lastWin = Swift.max(lastWin ?? at, at)
        }
        return line
    }
}

/// Whose statistics a line holds.
public enum StatScope: Hashable, Sendable, Codable {
    /// Every fight.
    case overall
    /// One fighter's fights.
    case fighter(FighterID)
    /// `fighter`'s fights against `opponent` (wins counted for `fighter`).
    case pair(FighterID, versus: FighterID)
}

/// Statistics for every fighter, every ordered pair and overall, built from the fight log.
public struct Statistics: Hashable, Sendable {
    /// Every line that has at least one battle.
    public private(set) var lines: [StatScope: StatLine] = [:]

    /// No battles yet.
    public init() {}

    /// Statistics with the given lines (a store reading its saved copy).
    public init(lines: [StatScope: StatLine]) {
        self.lines = lines
    }

    /// Statistics rebuilt from a log alone.
    public init(rebuiltFrom events: some Sequence<Event>) {
        for event in events { record(event) }
    }

    /// The line for `scope` (all zero if it never fought).
    public subscript(scope: StatScope) -> StatLine {
        lines[scope] ?? StatLine()
    }

    /// Counts `event` if it ended a fight; every other event changes nothing.
    public mutating func record(_ event: Event) {
        for entry in Self.entries(for: event) {
            lines[entry.scope] = self[entry.scope].recording(battleAt: entry.at, won: entry.won)
        }
    }

    /// The lines one event changes and how: five for a fight's end (overall, each fighter, each
    /// ordered pair), none for anything else. A store applies these to its saved lines.
    public static func entries(for event: Event) -> [(scope: StatScope, won: Bool, at: Timestamp)] {
        guard case .fight(let fightEvent) = event, case .ended(let result) = fightEvent.change else { return [] }
        let (a, b, at) = (result.challenger, result.opponent, fightEvent.at)
        return [
            (.overall, result.winner != nil, at),
            (.fighter(a), result.winner == a, at),
            (.fighter(b), result.winner == b, at),
            (.pair(a, versus: b), result.winner == a, at),
            (.pair(b, versus: a), result.winner == b, at),
        ]
    }
}
