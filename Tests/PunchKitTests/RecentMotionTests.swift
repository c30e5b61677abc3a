import PunchSimulator
import Testing

@testable import PunchKit

// MARK: - RecentMotion

@Suite struct RecentMotionTests {
    struct Entry {
        var time: Double
        var interval: Double
        var linear: Vector3
    }

    /// A ring filled with random time-ordered entries, some at the same time and some with no
    /// interval, often more than it holds so that it wraps; and the entries it still holds,
    /// oldest first, with their indices.
    static func filledRing(_ random: inout SeededGenerator) -> (ring: RecentMotion, held: [(Int, Entry)], last: Double) {
        var ring = RecentMotion()
        var time = 0.0
        var entries: [Entry] = []
        for _ in 0..<Int(random.uniform(1...3 * Double(RecentMotion.capacity))) {
            let interval = random.chance(0.1) ? 0 : random.uniform(0.001...0.02)
            time += interval
            let linear = Vector3(random.gaussian(), random.gaussian(), random.gaussian())
            ring.append(time: time, interval: interval, linear: linear)
            entries.append(Entry(time: time, interval: interval, linear: linear))
        }
        let held = Array(entries.enumerated().suffix(RecentMotion.capacity))
        #expect(ring.startIndex == held[0].0 && ring.endIndex == entries.count)
        return (ring, held, time)
    }

    /// Sums taken in another order agree to within rounding of the sum of the terms' sizes.
    static func close(_ a: Double, _ b: Double, scale: Double) -> Bool { abs(a - b) <= 1e-12 * max(scale, 1) }
    static func close(_ a: Vector3, _ b: Vector3, scale: Double) -> Bool {
        close(a.x, b.x, scale: scale) && close(a.y, b.y, scale: scale) && close(a.z, b.z, scale: scale)
    }

    /// The look back for a thrust, two entries at a time over at most two runs of the buffers,
    /// finds what a plain filter over every entry finds.
    @Test(arguments: 0..<60 as Range<UInt64>)
    func theThrustIsWhatAFilterOverEveryEntryFinds(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let (ring, held, last) = Self.filledRing(&random)
        defer { ring.deallocate() }
        let direction = Vector3(random.gaussian(), random.gaussian(), random.gaussian()).normalized
        // The stop's peak: mostly among the newest entries, sometimes one the ring no longer holds.
        let peakIndex = max(ring.endIndex - Int(random.uniform(1...40)), random.chance(0.1) ? held[0].0 - 5 : 0)
        let end = held.first { $0.0 >= peakIndex }!.1.time
        let start = end - random.uniform(0...8)
        let directionStart = end - random.uniform(0...6)

        var speed = 0.0, recentSpeed = 0.0, peak = 0.0, scale = 0.0, pathLength = 0.0
        var velocity = Vector3.zero, approach = Vector3.zero
        var count = 0, recentCount = 0
        for (_, entry) in held where entry.time < end && entry.time > start {
            count += 1
            scale += entry.linear.length * entry.interval
            approach += entry.linear * entry.interval
            let along = entry.linear.dot(direction)
            if entry.time > directionStart { recentCount += 1 }
            guard along < 0 else { continue }
            speed -= along * entry.interval
            if entry.time > directionStart { recentSpeed -= along * entry.interval }
            velocity += entry.linear * entry.interval
            pathLength += entry.linear.length * entry.interval
            peak = max(peak, -along)
        }

        let thrust = ring.thrust(against: direction, before: peakIndex, since: start, directionSince: directionStart)
        #expect(thrust.whole.count == count)
        #expect(thrust.recent.count == recentCount)
        #expect(thrust.recent.upperBound == thrust.whole.upperBound)
        #expect(thrust.peak == peak)
        #expect(Self.close(thrust.speed, speed, scale: scale))
        #expect(Self.close(thrust.recentSpeed, recentSpeed, scale: scale))
        #expect(Self.close(thrust.approach, approach, scale: scale))
        let curve = ring.curve(of: thrust, against: direction)
        if pathLength > 0 {
            #expect(abs(curve.straightness - velocity.length / pathLength) <= 1e-9)
        } else {
            #expect(curve.straightness == 1)
        }

        // The early velocity: the entries against the direction, oldest first, until they have
        // built half the recent speed.
        var built = 0.0
        var early = Vector3.zero
        for (_, entry) in held where entry.time < end && entry.time > max(start, directionStart) {
            guard built < thrust.recentSpeed / 2 else { break }
            let along = entry.linear.dot(direction)
            guard along < 0 else { continue }
            built -= along * entry.interval
            early += entry.linear * entry.interval
        }
        #expect(Self.close(ring.earlyVelocity(of: thrust, against: direction), early, scale: scale))
    }

    /// The mean acceleration over a window is what the entries in it give, weighted by interval.
    @Test(arguments: 0..<40 as Range<UInt64>)
    func theMeanIsWhatAFilterOverEveryEntryFinds(seed: UInt64) {
        var random = SeededGenerator(seed: seed &+ 1000)
        let (ring, held, last) = Self.filledRing(&random)
        defer { ring.deallocate() }
        // The entries up to the newest or one a little before it, as a stretch begins there.
        let end = max(ring.startIndex, ring.endIndex - Int(random.uniform(0...10)))
        let start = held.last!.1.time - random.uniform(0...3)
        var sum = Vector3.zero
        var duration = 0.0
        var scale = 0.0
        for (index, entry) in held where entry.time >= start && index < end {
            sum += entry.linear * entry.interval
            duration += entry.interval
            scale += entry.linear.length * entry.interval
        }
        let expected = duration > 0 ? sum / duration : .zero
        #expect(Self.close(ring.meanAcceleration(since: start, before: end), expected, scale: scale / max(duration, 1e-300)))
    }

    /// Every way a window's start falls: before the first entry searched, between two, on one (at
    /// it or after it), past the last; and in a ring that has wrapped.
    @Test func windowStartsAreFoundByTime() {
        var ring = RecentMotion()
        defer { ring.deallocate() }
        for time in [1.0, 2, 2, 3, 4, 5] { ring.append(time: time, interval: 1, linear: .zero) }
        let all = ring.startIndex..<ring.endIndex
        #expect(all == 0..<6)
        #expect(ring.firstIndex(after: 0, including: false, in: all) == 0)
        #expect(ring.firstIndex(after: 2, including: true, in: all) == 1)
        #expect(ring.firstIndex(after: 2, including: false, in: all) == 3)
        #expect(ring.firstIndex(after: 3.5, including: false, in: all) == 4)
        #expect(ring.firstIndex(after: 5, including: true, in: all) == 5)
        #expect(ring.firstIndex(after: 5, including: false, in: all) == 6)
        #expect(ring.firstIndex(after: 0, including: true, in: 2..<4) == 2)
        #expect(ring.firstIndex(after: 9, including: true, in: 2..<4) == 4)
        #expect(ring.firstIndex(after: 9, including: true, in: 3..<3) == 3)

        // Wrapped: the ring holds the newest `capacity` entries, from 6 on, entry i at time i + 4.
        for index in 6..<(6 + RecentMotion.capacity) { ring.append(time: Double(index + 4), interval: 1, linear: .zero) }
        let held = ring.startIndex..<ring.endIndex
        #expect(held == 6..<(6 + RecentMotion.capacity))
        #expect(ring.time(at: 6) == 10)
        #expect(ring.firstIndex(after: 10, including: true, in: held) == 6)
        #expect(ring.firstIndex(after: 10, including: false, in: held) == 7)
        #expect(ring.firstIndex(after: 500.5, including: false, in: held) == 497)
        #expect(ring.firstIndex(after: 10_000, including: false, in: held) == held.upperBound)

        ring.removeAll()
        #expect(ring.startIndex == ring.endIndex)
        #expect(ring.firstIndex(after: 0, including: true, in: ring.startIndex..<ring.endIndex) == ring.endIndex)
    }
}
