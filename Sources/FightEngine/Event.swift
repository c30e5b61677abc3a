// MARK: - Event

/// Something that happened. Events are the log: fights, records and statistics can be rebuilt
/// from them, and clients follow them.
public enum Event: Hashable, Sendable, Codable {
    /// A change to a fighter outside any fight.
    case fighter(FighterEvent)
    /// A step in one fight.
    case fight(FightEvent)

    /// When it happened.
    public var at: Timestamp {
        switch self {
        case .fighter(let event): event.at
        case .fight(let event): event.at
        }
    }
}

/// A change to a fighter outside any fight.
public struct FighterEvent: Hashable, Sendable, Codable {
    /// The fighter.
    public var fighter: FighterID
    /// When it happened.
    public var at: Timestamp
    /// What happened.
    public var change: Change

    /// Creates a fighter event.
    public init(fighter: FighterID, at: Timestamp, change: Change) {
        self.fighter = fighter
        self.at = at
        self.change = change
    }

    /// What happened to the fighter.
    public enum Change: Hashable, Sendable, Codable {
        /// The fighter registered, as shown.
        case registered(Fighter)
        /// The fighter replaced their display name, bio and profile stats.
        case profileUpdated(displayName: String, bio: String, profile: ProfileStats)
        /// The fighter moved.
        case moved(Coordinate)
        /// The fighter opened a quick-match room.
        case openedRoom
        /// The fighter closed their quick-match room without a match.
        case leftRoom
    }
}

/// A step in one fight, numbered from 1 within the fight.
public struct FightEvent: Hashable, Sendable, Codable {
    /// The fight.
    public var fight: FightID
    /// The event's place in the fight's log: 1, 2, 3, … without gaps.
    public var sequence: Int
    /// When it happened.
    public var at: Timestamp
    /// What happened.
    public var change: Change

    /// Creates a fight event.
    public init(fight: FightID, sequence: Int, at: Timestamp, change: Change) {
        self.fight = fight
        self.sequence = sequence
        self.at = at
        self.change = change
    }

    /// What happened in the fight.
    public enum Change: Hashable, Sendable, Codable {
        /// `challenger` challenged `opponent`; the challenge lapses at `expiresAt`.
        case challenged(challenger: FighterID, opponent: FighterID, expiresAt: Timestamp)
        /// `opponent` joined `challenger`'s quick-match room; the fight is under way.
        case matched(challenger: FighterID, opponent: FighterID, turn: Turn)
        /// The challenge was accepted; the fight is under way.
        case accepted(turn: Turn)
        /// The challenge was declined.
        case declined
        /// The challenge lapsed unanswered.
        case expired
        /// A punch landed with `damage`; `bluntedBy` is the defender's guard when it halved the
        /// punch (`nil` when none did); `turn` is who punches next (`nil` when it ended the fight);
        /// `clipped` is `true` when the sensor that measured it was at its full scale at the stop
        /// (the swing was harder than measured), `nil` otherwise.
        case punched(
            by: FighterID, kind: PunchType, damage: Int, bluntedBy: Guard?, staminaLeft: Int, turn: Turn?,
            clipped: Bool? = nil)
        /// The fighter whose turn it was let the deadline pass `missedTurns` times in a row.
        case turnPassed(missedTurns: Int, turn: Turn)
        /// The fight ended; both records changed.
        case ended(FightResult)

        /// The fight's challenger and opponent, when this change is the one that makes the fight
        /// (a challenge, a room joined).
        public var corners: Both<FighterID>? {
            switch self {
            case .challenged(let challenger, let opponent, _), .matched(let challenger, let opponent, _):
                Both(challenger, opponent)
            case .accepted, .declined, .expired, .punched, .turnPassed, .ended: nil
            }
        }

        /// Whether this change starts the fighting (a challenge accepted, a room joined).
        public var beginsFight: Bool {
            switch self {
            case .matched, .accepted: true
            case .challenged, .declined, .expired, .punched, .turnPassed, .ended: false
            }
        }
    }
}
