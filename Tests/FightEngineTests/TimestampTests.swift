import FightEngine
import Testing

@Suite struct TimestampTests {
    // Dates whose second counts are well known: the epoch, the second before it, a leap day,
    // the billennium and the 32-bit rollover.
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_000_000_000, "2001-09-09T01:46:40Z"),
        (2_147_483_648, "2038-01-19T03:14:08Z"),
    ])
    func formatsISO8601(seconds: Int64, expected: String) {
        #expect(Timestamp(secondsSince1970: seconds).iso8601 == expected)
    }

    @Test func arithmeticAndOrder() {
        let t = Timestamp(secondsSince1970: 100)
        #expect(t + 60 == Timestamp(secondsSince1970: 160))
        #expect((t + 60) - t == 60)
        #expect(t < t + 1)
    }
}
