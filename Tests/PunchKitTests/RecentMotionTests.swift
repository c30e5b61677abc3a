import Testing

@testable import PunchKit

@Suite struct RecentMotionTests {
    func entry(time: Double) -> RecentMotion.Entry {
        .init(
            time: time, interval: 0.01, raw: Vector3(time, 0, 1), linear: .zero, magnitude: time, strength: 0,
            rotation: .zero, up: .zero)
    }

    @Test func looksBackFromTheNewestToATime() {
        var ring = RecentMotion()
        #expect(ring.isEmpty)
        #expect(ring.indices(since: 0).isEmpty)
        for index in 0..<10 { ring.append(entry(time: Double(index))) }
        #expect(ring.indices(since: 6.5) == 7..<10)
        #expect(ring.indices(since: 7) == 7..<10)
        #expect(ring.indices(since: -1) == 0..<10)
        #expect(ring.newest.time == 9)
        #expect(ring[3].magnitude == 3)
    }

    @Test func holdsOnlyTheLatestCapacityOnceItWraps() {
        var ring = RecentMotion()
        let count = 3 * RecentMotion.capacity + 5
        for index in 0..<count { ring.append(entry(time: Double(index))) }
        #expect(ring.startIndex == count - RecentMotion.capacity)
        #expect(ring.indices(since: 0) == ring.startIndex..<count)
        #expect(ring[ring.startIndex].time == Double(ring.startIndex))
        #expect(ring.newest.time == Double(count - 1))
    }

    @Test func isStrongestLooksAtTheEntriesSinceATimeOnly() {
        var ring = RecentMotion()
        #expect(ring.isStrongest(0, since: 0))
        let strengths = [0.5, 3.0, 1.0, 2.0, 1.5]
        for (index, strength) in strengths.enumerated() {
            var entry = entry(time: Double(index))
            entry.strength = strength
            ring.append(entry)
        }
        #expect(!ring.isStrongest(2.5, since: 1))  // entry 1 is stronger
        #expect(ring.isStrongest(2.5, since: 1.5))  // entry 1 is before the time
        #expect(ring.isStrongest(2.0, since: 2))  // as strong is not stronger
        #expect(!ring.isStrongest(1.9, since: 2))
        ring.removeAll()
        #expect(ring.isStrongest(0, since: -1))
    }

    @Test func isStrongestAgreesWithTheIndicesOnceItWraps() {
        var ring = RecentMotion()
        var generator = SystemRandomNumberGenerator()
        for index in 0..<(2 * RecentMotion.capacity + 37) {
            var entry = entry(time: Double(index) * 0.01)
            entry.strength = Double.random(in: 0..<3, using: &generator)
            ring.append(entry)
            let strength = Double.random(in: 0..<3, using: &generator)
            let since = ring.newest.time - Double.random(in: 0..<15, using: &generator)
            let expected = ring.indices(since: since).allSatisfy { ring[$0].strength <= strength }
            #expect(ring.isStrongest(strength, since: since) == expected)
        }
    }

    @Test func emptiedItKeepsNumbering() {
        var ring = RecentMotion()
        for index in 0..<5 { ring.append(entry(time: Double(index))) }
        ring.removeAll()
        #expect(ring.isEmpty)
        #expect(ring.indices(since: 0).isEmpty)
        ring.append(entry(time: 10))
        #expect(ring.endIndex == 6)
        #expect(ring.indices(since: 0) == 5..<6)
    }
}
