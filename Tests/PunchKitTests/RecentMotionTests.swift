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
    /// interval, more than it holds so that it wraps; and the entries it still holds, oldest first.
    static func filledRing(_ random: inout SeededGenerator) -> (ring: RecentMotion, held: [Entry], last: Double) {
        var ring = RecentMotion(capacity: 64)
        var time = 0.0
        var entries: [Entry] = []
        for _ in 0..<Int(random.uniform(1...200)) {
            let interval = random.chance(0.1) ? 0 : random.uniform(0.001...0.02)
            time += interval
            let linear = Vector3(random.gaussian(), random.gaussian(), random.gaussian())
            ring.append(time: time, interval: interval, linear: linear)
            entries.append(Entry(time: time, interval: interval, linear: linear))
        }
        return (ring, Array(entries.suffix(64)), time)
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
        let end = random.uniform(0...last + 0.05)
        let start = end - random.uniform(0...0.8)
        let directionStart = end - random.uniform(0...0.6)

        var speed = 0.0, recentSpeed = 0.0, peak = 0.0, scale = 0.0
        var velocity = Vector3.zero, approach = Vector3.zero
        var count = 0, recentCount = 0
        for entry in held where entry.time < end && entry.time > start {
            count += 1
            scale += entry.linear.length * entry.interval
            approach += entry.linear * entry.interval
            let along = entry.linear.dot(direction)
            if entry.time > directionStart { recentCount += 1 }
            guard along < 0 else { continue }
            speed -= along * entry.interval
            if entry.time > directionStart { recentSpeed -= along * entry.interval }
            velocity += entry.linear * entry.interval
            peak = max(peak, -along)
        }

        let thrust = ring.thrust(against: direction, before: end, since: start, directionSince: directionStart)
        #expect(thrust.whole.count == count)
        #expect(thrust.recent.count == recentCount)
        #expect(thrust.recent.upperBound == thrust.whole.upperBound)
        #expect(thrust.peak == peak)
        #expect(Self.close(thrust.speed, speed, scale: scale))
        #expect(Self.close(thrust.recentSpeed, recentSpeed, scale: scale))
        #expect(Self.close(thrust.velocity, velocity, scale: scale))
        #expect(Self.close(thrust.approach, approach, scale: scale))

        // The early velocity: the entries against the direction, oldest first, until they have
        // built half the recent speed.
        var built = 0.0
        var early = Vector3.zero
        for entry in held where entry.time < end && entry.time > max(start, directionStart) {
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
        let end = random.uniform(0...last + 0.05)
        let start = end - random.uniform(0...0.3)
        var sum = Vector3.zero
        var duration = 0.0
        var scale = 0.0
        for entry in held where entry.time >= start && entry.time < end {
            sum += entry.linear * entry.interval
            duration += entry.interval
            scale += entry.linear.length * entry.interval
        }
        let expected = duration > 0 ? sum / duration : .zero
        #expect(Self.close(ring.meanAcceleration(from: start, to: end), expected, scale: scale / max(duration, 1e-300)))
    }

    /// Every way the window's ends fall: before the oldest entry, between two, on one (at it or
    /// after it), past the newest.
    @Test func windowEndsAreFoundByTime() {
        var ring = RecentMotion(capacity: 4)
        defer { ring.deallocate() }
        for time in [1.0, 2, 2, 3, 4, 5] { ring.append(time: time, interval: 1, linear: .zero) }
        // The ring holds 2, 3, 4, 5.
        #expect(ring.firstPosition(after: 0, including: false) == 0)
        #expect(ring.firstPosition(after: 2, including: true) == 0)
        #expect(ring.firstPosition(after: 2, including: false) == 1)
        #expect(ring.firstPosition(after: 3.5, including: false) == 2)
        #expect(ring.firstPosition(after: 5, including: true) == 3)
        #expect(ring.firstPosition(after: 5, including: false) == 4)
        ring.removeAll()
        #expect(ring.firstPosition(after: 0, including: true) == 0)
    }
}
