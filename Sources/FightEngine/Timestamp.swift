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

    /// Parses what `iso8601` writes, `2026-11-22T04:49:04Z`, and the same moment written with a
    /// fraction of a second (dropped) or an offset (`+01:00`); `nil` for anything else.
    ///
    /// The inverse of `iso8601` in the same proleptic Gregorian calendar: Foundation's parser
    /// switches to the Julian calendar before 1582, so a time written here came back days off.
    public init?(iso8601 text: some StringProtocol) {
        var scanner = Array(text.utf8)[...]
        func number(_ digits: Int) -> Int64? {
            guard scanner.count >= digits else { return nil }
            var value: Int64 = 0
            for byte in scanner.prefix(digits) {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            scanner = scanner.dropFirst(digits)
            return value
        }
        func skip(_ character: Unicode.Scalar) -> Bool {
            guard scanner.first == UInt8(ascii: character) else { return false }
            scanner = scanner.dropFirst()
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), (1...12).contains(month), skip("-"),
            let day = number(2), (1...Self.daysIn(month: month, year: year)).contains(day), skip("T"),
            let hour = number(2), hour < 24, skip(":"), let minute = number(2), minute < 60, skip(":"),
            let second = number(2), second < 60
        else { return nil }
        if skip(".") {
            guard number(1) != nil else { return nil }
            while number(1) != nil {}
        }
        var offset: Int64 = 0
        if !skip("Z") {
            let sign: Int64 = skip("+") ? 1 : skip("-") ? -1 : 0
            guard sign != 0, let hours = number(2), hours < 24, skip(":"), let minutes = number(2), minutes < 60
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard scanner.isEmpty else { return nil }
        let days = Self.daysSince1970(year: year, month: month, day: day)
        self.init(secondsSince1970: days * 86_400 + hour * 3600 + minute * 60 + second - offset)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`,
    /// the inverse of `civilDate`).
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = marchYear.floorDivided(by: 400)
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
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
