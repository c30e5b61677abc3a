import FightEngine
import Testing

@Suite struct TimestampTests {
    /// Dates whose second counts are well known: the epoch, the second before it, a leap day,
    /// the billennium and the 32-bit rollover.
    static let knownDates: [(Int64, String)] = [
        (0, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_000_000_000, "2001-09-09T01:46:40Z"),
        (2_147_483_648, "2038-01-19T03:14:08Z"),
    ]

    @Test(arguments: knownDates)
    func formatsISO8601(seconds: Int64, expected: String) {
        #expect(Timestamp(secondsSince1970: seconds).iso8601 == expected)
    }

    @Test(arguments: knownDates)
    func parsesISO8601(seconds: Int64, text: String) {
        #expect(Timestamp(iso8601: text) == Timestamp(secondsSince1970: seconds))
    }

    /// Moments from year 0 to 9999, 29 days and 7 seconds apart (so every day of the month and
    /// time of day comes up), read back as written: before 1582 too, where Foundation's calendar
    /// turns Julian (a fuzzer's find).
    @Test func readsBackWhatItWrites() throws {
        let first = try #require(Timestamp(iso8601: "0000-01-01T00:00:00Z")).secondsSince1970
        let last = try #require(Timestamp(iso8601: "9999-12-31T23:59:59Z")).secondsSince1970
        let wrong = stride(from: first, through: last, by: 29 * 86_400 + 7).map { Timestamp(secondsSince1970: $0) }.filter {
            Timestamp(iso8601: $0.iso8601) != $0
        }
        #expect(wrong.isEmpty)
        #expect(Timestamp(iso8601: "1013-11-22T05:06:00Z")?.iso8601 == "1013-11-22T05:06:00Z")
    }

    @Test(arguments: [
        ("2026-11-22T06:00:00+01:00", "2026-11-22T05:00:00Z"),
        ("2026-11-21T23:30:00-05:30", "2026-11-22T05:00:00Z"),
        ("2026-11-22T05:00:00.999Z", "2026-11-22T05:00:00Z"),
    ])
    func readsOffsetsAndFractions(text: String, utc: String) {
        #expect(Timestamp(iso8601: text)?.iso8601 == utc)
    }

    @Test(arguments: [
        "", "2026-11-22", "2026-11-22T05:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-11-22T24:00:00Z", "2026-11-22T05:60:00Z", "2026-11-22T05:00:60Z", "2026-11-22T05:00:00.Z",
        "2026-11-22T05:00:00+0100", "2026-11-22T05:00:00Zjunk", "+2026-11-22T05:00:00Z", "２０２６-11-22T05:00:00Z",
    ])
    func refusesWhatIsNotATime(_ text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test func arithmeticAndOrder() {
        let t = Timestamp(secondsSince1970: 100)
        #expect(t + 60 == Timestamp(secondsSince1970: 160))
        #expect((t + 60) - t == 60)
        #expect(t < t + 1)
    }
}
