import PunchSimulator
import Testing

@testable import PunchKit

// MARK: - RecentMotion

@Suite struct RecentMotionTests {
    /// What `thrust(...)` must find, written the plain way: every entry the ring holds, oldest
    /// first, filtered by time, with the sums taken newest first as the scan takes them.
    struct Expected {
        var speed = 0.0
        var velocity = Vector3.zero
        var approach = Vector3.zero
        var peak = 0.0
        var recentSpeed = 0.0
        var count = 0
        var recentCount = 0

        init(
            _ entries: [RecentMotion.Entry], against direction: Vector3, before end: Double, since start: Double,
            directionSince directionStart: Double
        ) {
            for entry in entries.reversed() where entry.time < end && entry.time > start {
                count += 1
                approach += entry.linear * entry.interval
                let along = entry.linear.dot(direction)
                if entry.time > directionStart {
                    recentCount += 1
                    if along < 0 { recentSpeed -= along * entry.interval }
                }
                guard along < 0 else { continue }
                speed -= along * entry.interval
                velocity += entry.linear * entry.interval
                peak = max(peak, -along)
            }
        }
    }

    /// Random time-ordered entries, some at the same time, more than the ring holds so that it
    /// wraps, and random windows over them: the three runs of the scan find what the filter does.
    @Test(arguments: 0..<40 as Range<UInt64>)
    func theScanFindsWhatAFilterOverEveryEntryFinds(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var ring = RecentMotion(capacity: 64)
        defer { ring.deallocate() }
        var time = 0.0
        var entries: [RecentMotion.Entry] = []
        for _ in 0..<Int(random.uniform(1...200)) {
            let interval = random.chance(0.1) ? 0 : random.uniform(0.001...0.02)
            time += interval
            let linear = Vector3(random.gaussian(), random.gaussian(), random.gaussian())
            ring.append(time: time, interval: interval, linear: linear)
            entries.append(RecentMotion.Entry(time: time, interval: interval, linear: linear))
        }
        let held = Array(entries.suffix(64))
        let direction = Vector3(random.gaussian(), random.gaussian(), random.gaussian()).normalized
        let end = random.uniform(0...time + 0.05)
        let start = end - random.uniform(0...0.8)
        let directionStart = end - random.uniform(0...0.6)
        let expected = Expected(held, against: direction, before: end, since: start, directionSince: directionStart)

        let thrust = try #require(
            ring.thrust(
                against: direction, before: end, since: start, directionSince: directionStart,
                stopStrength: .infinity, sharpness: 1))
        #expect(thrust.speed == expected.speed)
        #expect(thrust.velocity == expected.velocity)
        #expect(thrust.approach == expected.approach)
        #expect(thrust.peak == expected.peak)
        #expect(thrust.recentSpeed == expected.recentSpeed)
        #expect(thrust.count == expected.count)
        #expect(thrust.recentCount == expected.recentCount)

        // A stop only as strong as the thrust's peak is not sharp against it at 1.5, however
        // early the scan gives up; at exactly 1 it is.
        if expected.peak > 0 {
            #expect(
                ring.thrust(
                    against: direction, before: end, since: start, directionSince: directionStart,
                    stopStrength: expected.peak, sharpness: 1.5) == nil)
            #expect(
                ring.thrust(
                    against: direction, before: end, since: start, directionSince: directionStart,
                    stopStrength: expected.peak, sharpness: 1) != nil)
        }
    }
}
