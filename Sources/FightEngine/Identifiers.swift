// MARK: - Identifiers

/// Identifies a fighter. Assigned by the engine in registration order, starting at 1.
public struct FighterID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The number behind the identifier.
    public var rawValue: Int64

    /// Wraps a number as a fighter identifier.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Wraps a number as a fighter identifier.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Orders identifiers by their numbers (the tie-break between equally near fighters).
    public static func < (lhs: FighterID, rhs: FighterID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The number, for messages.
    public var description: String { "fighter \(rawValue)" }
}

/// Identifies a fight (a challenge that may become a fight). Assigned by the engine, starting at 1.
public struct FightID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The number behind the identifier.
    public var rawValue: Int64

    /// Wraps a number as a fight identifier.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Wraps a number as a fight identifier.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Orders identifiers by their numbers.
    public static func < (lhs: FightID, rhs: FightID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The number, for messages.
    public var description: String { "fight \(rawValue)" }
}
