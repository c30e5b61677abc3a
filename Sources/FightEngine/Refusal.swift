// MARK: - Refusal

/// Why the engine refused a command. A refused command changes nothing and emits no events.
public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// A field of the command is malformed.
    case invalid(FieldError)
    /// Another fighter already has this username (compared without case).
    case usernameTaken(String)
    /// No fighter has this identifier.
    case unknownFighter(FighterID)
    /// No fight has this identifier.
    case unknownFight(FightID)
    /// A fighter tried to challenge themselves.
    case cannotChallengeSelf
    /// The two fighters already have an open (challenged or active) fight.
    case pairAlreadyFighting(FightID)
    /// The fighter is not one of the two in this fight.
    case notInFight(FighterID, FightID)
    /// Only the challenged fighter may accept or decline.
    case notTheChallenged(FighterID, FightID)
    /// The challenge was not answered in time.
    case challengeExpired(FightID)
    /// The fight is no longer a pending challenge (already accepted, declined or finished).
    case challengeNotPending(FightID)
    /// The fight is not under way (still a challenge, or already finished).
    case fightNotActive(FightID)
    /// It is the other fighter's turn.
    case waitYourTurn(FightID)
    /// The fight moved on since the sequence the punch was thrown at (`after`): a turn passed, or
    /// this very punch landed already. Checked after the fight is brought up to now, so a turn
    /// whose deadline came counts as passed.
    case stale(FightID, lastSequence: Int, after: Int)
    /// The fighter already has a quick-match room open.
    case alreadyWaiting(FighterID)
    /// The fighter has no quick-match room to leave.
    case notWaiting(FighterID)
    /// The fighter has not shared a location, so nobody can be measured against them.
    case noLocation(FighterID)

    /// A sentence for the fighter.
    public var description: String {
        switch self {
        case .invalid(let error): "\(error)"
        case .usernameTaken(let name): "the username \(name) is taken"
        case .unknownFighter(let id): "there is no \(id)"
        case .unknownFight(let id): "there is no \(id)"
        case .cannotChallengeSelf: "you cannot challenge yourself"
        case .pairAlreadyFighting(let id): "you already have an open fight with this fighter (\(id))"
        case .notInFight(let fighter, let fight): "\(fighter) is not in \(fight)"
        case .notTheChallenged(let fighter, let fight):
            "only the challenged fighter may answer \(fight), not \(fighter)"
        case .challengeExpired(let id): "the challenge (\(id)) has expired"
        case .challengeNotPending(let id): "\(id) is not waiting for an answer"
        case .fightNotActive(let id): "\(id) is not under way"
        case .waitYourTurn: "wait your turn"
        case .stale(_, let lastSequence, let after):
            "after: the fight is at sequence \(lastSequence), the punch was thrown at \(after); replay and throw again"
        case .alreadyWaiting: "you are already waiting for a quick match"
        case .notWaiting: "you are not waiting for a quick match"
        case .noLocation(let id): "\(id) has not shared a location"
        }
    }
}

// MARK: - Field errors

/// A command field whose value breaks a rule.
public enum Field: String, Hashable, Sendable, Codable {
    /// `Registration.username`.
    case username
    /// A display name.
    case displayName
    /// A bio.
    case bio
    /// A coordinate's latitude.
    case latitude
    /// A coordinate's longitude.
    case longitude
    /// `ProfileStats.heightCm`.
    case heightCm
    /// `ProfileStats.weightKg`.
    case weightKg
    /// `ProfileStats.reachCm`.
    case reachCm
    /// A punch's damage.
    case damage
}

/// A malformed field: which one, what was expected, and what was given.
public struct FieldError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field at fault.
    public var field: Field
    /// The rule the value should follow.
    public var expected: String
    /// What the value was.
    public var got: String

    /// Creates a field error.
    public init(_ field: Field, expected: String, got: String) {
        self.field = field
        self.expected = expected
        self.got = got
    }

    /// For example "username: expected 3 to 20 characters, got 2 characters".
    public var description: String { "\(field.rawValue): expected \(expected), got \(got)" }
}
