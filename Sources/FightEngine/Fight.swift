// MARK: - Fight

/// One fight between two fighters, from challenge to result.
public struct Fight: Identifiable, Hashable, Sendable, Codable {
    /// The engine-assigned identifier.
    public var id: FightID
    /// The fighter who challenged (or whose quick-match room was joined); throws first.
    public var challenger: FighterID
    /// The other fighter.
    public var opponent: FighterID
    /// Where the fight is in its life.
    public var phase: Phase
    /// Stamina left, challenger's then opponent's.
    public var stamina: Both<Int>
    /// Punches thrown, challenger's then opponent's.
    public var punches: Both<Int>
    /// The sequence number of the fight's latest event (the first event is 1).
    public var lastSequence: Int
    /// Turns each fighter let lapse in a row since their last punch, challenger's then
    /// opponent's; at `Rules.missedTurnsToForfeit` the fighter loses by forfeit.
    public var missedTurns: Both<Int>
    /// The guard each fighter has taken up, challenger's then opponent's; `nil` until they take
    /// one. Kept out of the log until it blunts a punch (`punched`'s `bluntedBy`), so that the
    /// attacker cannot see it: a guard known is a guard beaten.
    public var guards: Both<Guard?>
    /// While a knockout's answer is due: how far past 0 the knockout went (its damage less the
    /// stamina it took). An answer that floors the knocker too wins if it goes further.
    public var knockoutMargin: Int?

    /// Creates a fight.
    public init(
        id: FightID, challenger: FighterID, opponent: FighterID, phase: Phase, stamina: Int, lastSequence: Int = 0
    ) {
        self.id = id
        self.challenger = challenger
        self.opponent = opponent
        self.phase = phase
        self.stamina = Both(stamina, stamina)
        self.punches = Both(0, 0)
        self.lastSequence = lastSequence
        self.missedTurns = Both(0, 0)
        self.guards = Both(nil, nil)
    }

    private enum CodingKeys: String, CodingKey {
        case id, challenger, opponent, phase, stamina, punches, lastSequence, missedTurns, guards, knockoutMargin
    }

    /// Decodes a fight; one saved before missed turns were counted has none counted, and one saved
    /// before guards no guard taken.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(FightID.self, forKey: .id)
        challenger = try container.decode(FighterID.self, forKey: .challenger)
        opponent = try container.decode(FighterID.self, forKey: .opponent)
        phase = try container.decode(Phase.self, forKey: .phase)
        stamina = try container.decode(Both<Int>.self, forKey: .stamina)
        punches = try container.decode(Both<Int>.self, forKey: .punches)
        lastSequence = try container.decode(Int.self, forKey: .lastSequence)
        missedTurns = try container.decodeIfPresent(Both<Int>.self, forKey: .missedTurns) ?? Both(0, 0)
        guards = try container.decodeIfPresent(Both<Guard?>.self, forKey: .guards) ?? Both(nil, nil)
        knockoutMargin = try container.decodeIfPresent(Int.self, forKey: .knockoutMargin)
    }

    /// Where a fight is in its life.
    public enum Phase: Hashable, Sendable, Codable {
        /// Waiting for the opponent to accept or decline until `expiresAt`.
        case challenged(expiresAt: Timestamp)
        /// Under way: `turn` may punch until `deadline` (exclusive), then the turn passes.
        case active(turn: Corner, deadline: Timestamp)
        /// Over, at `at`.
        case finished(Ending, at: Timestamp)
    }

    /// How a fight ended.
    public enum Ending: Hashable, Sendable, Codable {
        /// The challenge was declined.
        case declined
        /// The challenge was not answered in time.
        case expired
        /// The fight was fought to a result.
        case decided(FightResult)
    }

    /// Whether the fight still holds the pair (a challenge waiting, or a fight under way).
    public var isOpen: Bool {
        if case .finished = phase { false } else { true }
    }

    /// Whether the fight is being fought (accepted or matched, not over).
    public var isUnderWay: Bool {
        if case .active = phase { true } else { false }
    }

    /// The moment something happens without anyone acting: a challenge expiring or a turn passing.
    public var deadline: Timestamp? {
        switch phase {
        case .challenged(let expiresAt): expiresAt
        case .active(_, let deadline): deadline
        case .finished: nil
        }
    }

    /// The fighter in `corner`.
    public func fighter(in corner: Corner) -> FighterID {
        corner == .challenger ? challenger : opponent
    }

    /// The corner `fighter` fights from, or `nil` when they are not in this fight.
    public func corner(of fighter: FighterID) -> Corner? {
        fighter == challenger ? .challenger : fighter == opponent ? .opponent : nil
    }

    /// `fighter`'s corner, if a punch of theirs thrown at sequence `after` may land now, or why
    /// not: they are not in this fight, it moved on since `after` (`stale`), it is not under way,
    /// or it is the other's turn, in that order (a fighter looking at an old sequence learns first
    /// that it is old). A deadline that has passed is not looked at: the referee settles it first.
    public func cornerAwaitingPunch(by fighter: FighterID, after: Int) throws(Refusal) -> Corner {
        guard let corner = corner(of: fighter) else { throw .notInFight(fighter, id) }
        guard after == lastSequence else { throw .stale(id, lastSequence: lastSequence, after: after) }
        guard case .active(let turn, _) = phase else { throw .fightNotActive(id) }
        guard turn == corner else { throw .waitYourTurn(id) }
        return corner
    }

    /// Whether this fight is between `a` and `b`, in either order.
    public func isBetween(_ a: FighterID, _ b: FighterID) -> Bool {
        (challenger == a && opponent == b) || (challenger == b && opponent == a)
    }
}

// MARK: - Corners

/// Which side of a fight: the challenger's or the opponent's.
public enum Corner: String, Hashable, Sendable, Codable {
    /// The fighter who challenged (or whose room was joined).
    case challenger
    /// The fighter who was challenged (or joined the room).
    case opponent

    /// The other side.
    public var other: Corner { self == .challenger ? .opponent : .challenger }
}

/// A value for each corner.
public struct Both<Value: Hashable & Sendable & Codable>: Hashable, Sendable, Codable {
    /// The challenger's value.
    public var challenger: Value
    /// The opponent's value.
    public var opponent: Value

    /// Creates a pair of values, challenger's first.
    public init(_ challenger: Value, _ opponent: Value) {
        self.challenger = challenger
        self.opponent = opponent
    }

    /// The value for `corner`.
    public subscript(corner: Corner) -> Value {
        get { corner == .challenger ? challenger : opponent }
        set { if corner == .challenger { challenger = newValue } else { opponent = newValue } }
    }
}

// MARK: - Missed turns

extension Both where Value == Int {
    /// Missed-turn counts after `lapses` turns lapsed one after another, the first of them
    /// `first`'s: the turn goes back and forth, so `first` misses the odd ones, the other the even.
    func afterLapses(_ lapses: Int, startingWith first: Corner) -> Both<Int> {
        var counts = self
        counts[first] += (lapses + 1) / 2
        counts[first.other] += lapses / 2
        return counts
    }

    /// How many lapses in a row, the first of them `first`'s, bring a corner to `limit` missed
    /// turns: the first lapse at which one of the two reaches it.
    func lapsesUntil(_ limit: Int, startingWith first: Corner) -> Int {
        let firstNeeds = Swift.max(1, limit - self[first]), otherNeeds = Swift.max(1, limit - self[first.other])
        return Swift.min(2 * firstNeeds - 1, 2 * otherNeeds)
    }

    /// The counts after a step of the fight's log: a punch clears its thrower's count, a
    /// `turnPassed` adds its lapses. The same counting as the referee's, so a fight's counts can be
    /// told from its log alone. `corner` finds a fighter's corner in the fight.
    public func counting(_ change: FightEvent.Change, corner: (FighterID) -> Corner?) -> Both<Int> {
        var counts = self
        switch change {
        case .punched(let by, _, _, _, _, _, _):
            if let thrower = corner(by) { counts[thrower] = 0 }
        case .turnPassed(let lapses, let turn):
            // An odd number of lapses hands the turn to the other corner, an even one back.
            guard let next = corner(turn.fighter) else { break }
            counts = afterLapses(lapses, startingWith: lapses % 2 == 1 ? next.other : next)
        default:
            break
        }
        return counts
    }
}

// MARK: - Results

/// The result of a fight that was fought: who was in it, who won, and how it was decided.
public struct FightResult: Hashable, Sendable, Codable {
    /// The challenger.
    public var challenger: FighterID
    /// The opponent.
    public var opponent: FighterID
    /// The winner, or `nil` for a draw.
    public var winner: FighterID?
    /// How it was decided.
    public var decision: Decision

    /// Creates a result.
    public init(challenger: FighterID, opponent: FighterID, winner: FighterID?, decision: Decision) {
        self.challenger = challenger
        self.opponent = opponent
        self.winner = winner
        self.decision = decision
    }

    /// The loser, or `nil` for a draw.
    public var loser: FighterID? {
        winner.map { $0 == challenger ? opponent : challenger }
    }

    /// How a fight was decided.
    public enum Decision: String, Hashable, Sendable, Codable, CaseIterable {
        /// A punch took the loser's stamina to zero, and the answer it was owed (if any) did not
        /// take the winner's there, or did but by less; with no winner, both were knocked out by
        /// as much: a draw.
        case knockout
        /// The loser gave up.
        case forfeit
        /// Both fighters threw all their punches (or one had none left and the other let the turn
        /// lapse): the higher stamina won, equal stamina drew.
        case points
    }
}

/// Whose turn it is and until when.
public struct Turn: Hashable, Sendable, Codable {
    /// The fighter who may punch.
    public var fighter: FighterID
    /// When the turn passes if they do not (exclusive).
    public var deadline: Timestamp

    /// Creates a turn.
    public init(fighter: FighterID, deadline: Timestamp) {
        self.fighter = fighter
        self.deadline = deadline
    }
}

// MARK: - Quick-match rooms

/// A fighter waiting for anyone to fight ("fight anyone now").
public struct Room: Hashable, Sendable, Codable {
    /// The waiting fighter.
    public var fighter: FighterID
    /// When they started waiting; the oldest room is joined first.
    public var openedAt: Timestamp

    /// Creates a room.
    public init(fighter: FighterID, openedAt: Timestamp) {
        self.fighter = fighter
        self.openedAt = openedAt
    }
}
