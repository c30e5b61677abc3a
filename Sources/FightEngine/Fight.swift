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
    public enum Decision: String, Hashable, Sendable, Codable {
        /// A punch took the loser's stamina to zero.
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
