// MARK: - Timestamp

/// A moment in time as whole seconds since 1970-01-01T00:00:00Z.
///
/// The engine never reads a clock: every command is applied at a `Timestamp` the caller passes in,
/// so each rule about time (turn timeouts, challenge expiry) is tested by choosing the moment.
public struct Timestamp: Hashable, Comparable, Sendable, Codable {
    /// Seconds since 1970-01-01T00:00:00Z (negative before it).
    public var secondsSince1970: Int64

    /// Creates a timestamp from seconds since 1970-01-01T00:00:00Z.
    public init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    /// Orders timestamps from earlier to later.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    /// The timestamp `seconds` later.
    public static func + (lhs: Timestamp, seconds: Int64) -> Timestamp {
        Timestamp(secondsSince1970: lhs.secondsSince1970 + seconds)
    }

    /// Seconds from `rhs` to `lhs`.
    public static func - (lhs: Timestamp, rhs: Timestamp) -> Int64 {
        lhs.secondsSince1970 - rhs.secondsSince1970
    }

    // Codable as a bare number, so stored events stay small and readable.

    /// Decodes a timestamp from a bare number of seconds.
    public init(from decoder: any Decoder) throws {
        secondsSince1970 = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes the timestamp as a bare number of seconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(secondsSince1970)
    }
}

// MARK: - ISO 8601

extension Timestamp {
    /// The timestamp in ISO 8601 extended format, in UTC: `2026-11-22T04:49:04Z`.
    public var iso8601: String {
        let secondsPerDay: Int64 = 86_400
        let days = secondsSince1970.floorDivided(by: secondsPerDay)
        let secondOfDay = secondsSince1970 - days * secondsPerDay
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        return "\(Self.padded(year, 4))-\(Self.padded(month, 2))-\(Self.padded(day, 2))T"
            + "\(Self.padded(secondOfDay / 3600, 2)):\(Self.padded(secondOfDay % 3600 / 60, 2)):"
            + "\(Self.padded(secondOfDay % 60, 2))Z"
    }

    /// Year, month and day of the proleptic Gregorian calendar for a count of days since 1970-01-01
    /// (Howard Hinnant's `civil_from_days`, exact for every representable day).
    static func civilDate(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSince1970 + 719_468  // days since 0000-03-01
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchBasedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * marchBasedMonth + 2) / 5 + 1
        let month = marchBasedMonth < 10 ? marchBasedMonth + 3 : marchBasedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

extension Int64 {
    /// Division rounding towards negative infinity, so dates before 1970 fall on the right day.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
