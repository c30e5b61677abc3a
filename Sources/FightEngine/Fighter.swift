// MARK: - Fighter

/// A registered fighter: who they are, where they are, what opponents see of them, and their record.
public struct Fighter: Identifiable, Hashable, Sendable, Codable {
    /// The engine-assigned identifier.
    public var id: FighterID
    /// The unique handle, compared without regard to case.
    public var username: Username
    /// The name shown to others, 1–50 characters.
    public var displayName: String
    /// A free-text introduction, at most 300 characters.
    public var bio: String
    /// Where the fighter last said they are; `nil` until they share it (then they cannot be matched).
    public var location: Coordinate?
    /// Height, weight and reach, shown to opponents and used in the odds.
    public var profile: ProfileStats
    /// Wins, losses and draws.
    public var record: Record
    /// When the fighter registered.
    public var joinedAt: Timestamp

    /// Creates a fighter. The engine creates fighters through `Command.register`, which validates.
    public init(
        id: FighterID, username: Username, displayName: String, bio: String = "",
        location: Coordinate? = nil, profile: ProfileStats = ProfileStats(), record: Record = Record(),
        joinedAt: Timestamp
    ) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.bio = bio
        self.location = location
        self.profile = profile
        self.record = record
        self.joinedAt = joinedAt
    }
}

// MARK: - Username

/// A username: 3–20 ASCII letters, digits or underscores, unique regardless of case.
public struct Username: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The username as the fighter typed it (case kept for display).
    public let rawValue: String

    /// The lowercased form that uniqueness is decided on.
    public var key: String { rawValue.lowercased() }

    /// Validates a username.
    ///
    /// Letters are ASCII only, so "case-insensitive" has one meaning on every platform.
    public init(validating text: String) throws(FieldError) {
        let count = text.count
        guard (3...20).contains(count) else {
            throw FieldError(.username, expected: "3 to 20 characters", got: "\(count) characters")
        }
        if let bad = text.first(where: { !Self.isAllowed($0) }) {
            throw FieldError(.username, expected: "only letters A–Z, digits and underscore", got: "'\(bad)'")
        }
        rawValue = text
    }

    private static func isAllowed(_ character: Character) -> Bool {
        guard character.isASCII else { return false }
        return character.isLetter || character.isNumber || character == "_"
    }

    /// The username as typed.
    public var description: String { rawValue }
}

// MARK: - Profile and record

/// What opponents see of a fighter's build. Each value is optional: a fighter may keep it private.
public struct ProfileStats: Hashable, Sendable, Codable {
    /// Height in centimetres (50–280).
    public var heightCm: Int?
    /// Weight in kilograms (20–400).
    public var weightKg: Int?
    /// Reach (arm span) in centimetres (50–300).
    public var reachCm: Int?

    /// Creates profile stats.
    public init(heightCm: Int? = nil, weightKg: Int? = nil, reachCm: Int? = nil) {
        self.heightCm = heightCm
        self.weightKg = weightKg
        self.reachCm = reachCm
    }

    /// Checks that each given value is a plausible human measurement.
    public func validate() throws(FieldError) {
        try Self.check(heightCm, .heightCm, 50...280)
        try Self.check(weightKg, .weightKg, 20...400)
        try Self.check(reachCm, .reachCm, 50...300)
    }

    private static func check(_ value: Int?, _ field: Field, _ range: ClosedRange<Int>) throws(FieldError) {
        if let value, !range.contains(value) {
            throw FieldError(field, expected: "\(range.lowerBound)–\(range.upperBound)", got: "\(value)")
        }
    }
}

/// A fighter's record. Each finished fight changes both fighters' records exactly once.
public struct Record: Hashable, Sendable, Codable {
    /// Fights won.
    public var wins: Int
    /// Fights lost.
    public var losses: Int
    /// Fights drawn.
    public var draws: Int

    /// Creates a record.
    public init(wins: Int = 0, losses: Int = 0, draws: Int = 0) {
        self.wins = wins
        self.losses = losses
        self.draws = draws
    }

    /// All finished fights.
    public var fights: Int { wins + losses + draws }

    /// Counts the fight that ended with `result` for `fighter`, one of its two fighters.
    public mutating func count(_ result: FightResult, for fighter: FighterID) {
        switch result.winner {
        case nil: draws += 1
        case fighter: wins += 1
        default: losses += 1
        }
    }
}

// MARK: - Text fields

extension Fighter {
    /// Checks a display name: 1–50 characters, not only white space, and on one line with nothing
    /// invisible that steers the terminal: no control character (Unicode category Cc, NUL among
    /// them) and no line or paragraph separator (U+2028, U+2029).
    public static func validate(displayName: String) throws(FieldError) {
        guard (1...50).contains(displayName.count), !displayName.allSatisfy(\.isWhitespace) else {
            throw FieldError(
                .displayName, expected: "1 to 50 characters, not all blank", got: "\(displayName.count) characters")
        }
        try refuseControlCharacters(
            in: displayName, .displayName, allowing: [], expected: "no control characters or line breaks")
    }

    /// Checks a bio: at most 300 characters, and no control character (Unicode category Cc) or
    /// line or paragraph separator but newline and tab: it may have lines, broken one way, and
    /// cannot hide a NUL or move the cursor.
    public static func validate(bio: String) throws(FieldError) {
        guard bio.count <= 300 else {
            throw FieldError(.bio, expected: "at most 300 characters", got: "\(bio.count) characters")
        }
        try refuseControlCharacters(
            in: bio, .bio, allowing: ["\n", "\t"],
            expected: "no control characters or line separators but newline and tab")
    }

    /// Refuses the first scalar of `text` that is a control character or a line or paragraph
    /// separator, unless it is one of `allowed`; names it by code point, since it cannot be shown.
    private static func refuseControlCharacters(
        in text: String, _ field: Field, allowing allowed: Set<Unicode.Scalar>, expected: String
    ) throws(FieldError) {
        let refused: Set<Unicode.GeneralCategory> = [.control, .lineSeparator, .paragraphSeparator]
        guard
            let bad = text.unicodeScalars.first(where: {
                refused.contains($0.properties.generalCategory) && !allowed.contains($0)
            })
        else { return }
        let hex = String(bad.value, radix: 16, uppercase: true)
        throw FieldError(
            field, expected: expected, got: "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex)
    }
}
