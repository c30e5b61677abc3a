// MARK: - RecentMotion

/// A fixed ring of the latest samples' acceleration with gravity removed, for looking back
/// from a stop to the thrust before it. It never grows: at very high rates it covers less time.
///
/// Its buffer is allocated once and written in place every sample, with neither an array's bounds
/// check nor its check for a copy sharing it: the one detector that owns the ring cannot be
/// copied, and frees the buffer with `deallocate()`. That sole owner is also why it may be sent.
@usableFromInline struct RecentMotion: @unchecked Sendable {
    @usableFromInline struct Entry: Sendable {
        @usableFromInline var time: Double
        @usableFromInline var interval: Double
        @usableFromInline var linear: Vector3

        @inlinable init(time: Double, interval: Double, linear: Vector3) {
            self.time = time
            self.interval = interval
            self.linear = linear
        }
    }

    // Usable from inlined code: `append` runs in the caller's loop, every sample.
    @usableFromInline let entries: UnsafeMutablePointer<Entry>
    /// The capacity less one: the capacity is a power of two, so wrapping is a mask.
    @usableFromInline let mask: Int
    @usableFromInline var next = 0
    @usableFromInline var count = 0

    /// Creates a ring of at least `capacity` entries.
    init(capacity: Int) {
        var size = 1
        while size < capacity { size *= 2 }
        entries = .allocate(capacity: size)
        entries.initialize(repeating: Entry(time: 0, interval: 0, linear: .zero), count: size)
        mask = size - 1
    }

    /// Frees the buffer; the ring is not used after.
    func deallocate() { entries.deallocate() }

    @inlinable @inline(__always)
    mutating func append(time: Double, interval: Double, linear: Vector3) {
        entries[next] = Entry(time: time, interval: interval, linear: linear)
        next = (next + 1) & mask
        count = min(count + 1, mask + 1)
    }

    @usableFromInline mutating func removeAll() { count = 0 }

    /// The mean acceleration of the samples in `start..<end`, or zero when there are none.
    func meanAcceleration(from start: Double, to end: Double) -> Vector3 {
        var sum = Vector3.zero
        var duration = 0.0
        var index = next
        for _ in 0..<count {
            index = (index - 1) & mask
            let entry = entries[index]
            if entry.time >= end { continue }
            if entry.time < start { break }
            sum += entry.linear * entry.interval
            duration += entry.interval
        }
        return duration > 0 ? sum / duration : .zero
    }

    /// What the acceleration opposite to `direction` built between `start` and `end`.
    /// The direction comes only from the samples after `directionStart`: what came earlier (a
    /// wind-up, the body's sway) would pull it off.
    /// The length of the path, for how straight the thrust was, costs a square root a sample and
    /// is summed only when `measuringPath`.
    func thrust(
        against direction: Vector3, before end: Double, since start: Double, directionSince directionStart: Double,
        measuringPath: Bool
    ) -> Thrust {
        var thrust = Thrust()
        var index = next
        var oldest = next
        var looked = 0
        var recentSpeed = 0.0
        for _ in 0..<count {
            index = (index - 1) & mask
            let entry = entries[index]
            if entry.time >= end { continue }
            if entry.time <= start { break }
            thrust.approach += entry.linear * entry.interval
            let along = entry.linear.dot(direction)
            if entry.time > directionStart {
                oldest = index
                looked += 1
                if along < 0 { recentSpeed -= along * entry.interval }
            }
            guard along < 0 else { continue }
            thrust.speed -= along * entry.interval
            thrust.velocity += entry.linear * entry.interval
            if measuringPath { thrust.pathLength += entry.linear.length * entry.interval }
            thrust.peak = max(thrust.peak, -along)
            thrust.onset = entry.linear
        }
        // The first half of the thrust, before the wrist has turned much, gives its direction.
        var built = 0.0
        index = oldest
        for _ in 0..<looked where built < recentSpeed / 2 {
            let entry = entries[index]
            index = (index + 1) & mask
            let along = entry.linear.dot(direction)
            guard along < 0 else { continue }
            built -= along * entry.interval
            thrust.earlyVelocity += entry.linear * entry.interval
        }
        return thrust
    }
}

/// The thrust found before a stop.
struct Thrust {
    /// The speed built against the stop, in g·s.
    var speed = 0.0
    /// The summed acceleration, in g·s: the velocity the thrust built.
    var velocity = Vector3.zero
    /// The summed length of the acceleration, in g·s.
    var pathLength = 0.0
    /// The summed acceleration of every sample looked at, opposing or not, in g·s: the velocity
    /// with which the hand came into the stop.
    var approach = Vector3.zero
    /// The strongest push of the thrust against the stop's direction, in g.
    var peak = 0.0
    /// The velocity built by the first half of the thrust, in g·s.
    var earlyVelocity = Vector3.zero
    /// The earliest acceleration of the thrust, in g.
    var onset = Vector3.zero

    /// How straight the thrust was: 1 when all its acceleration pointed one way.
    var straightness: Double { pathLength > 0 ? velocity.length / pathLength : 1 }
}
