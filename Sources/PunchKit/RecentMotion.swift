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
        // Neither can overflow: both stay within the capacity.
        next = (next &+ 1) & mask
        if count <= mask { count &+= 1 }
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

    /// What the acceleration opposite to `direction` built between `start` and `end`, or nil as
    /// soon as it pushed harder than a stop of `stopStrength` is sharp against (see
    /// `DetectorConfiguration.stopSharpness`): most stretches looked at are not punches, and
    /// this lets them go without the whole look back.
    /// The direction comes only from the samples after `directionStart`: what came earlier (a
    /// wind-up, the body's sway) would pull it off.
    ///
    /// The ring is in time order, so the look back goes in three runs, newest first: the samples
    /// from `end` on, skipped; those after `directionStart`, which also give the direction; and
    /// the rest back to `start`. No sample then tests the times it cannot fail. What only a
    /// punch needs is left to `earlyVelocity(of:against:)` and `curve(of:against:)`.
    func thrust(
        against direction: Vector3, before end: Double, since start: Double, directionSince directionStart: Double,
        stopStrength: Double, sharpness: Double
    ) -> Thrust? {
        var index = next
        var remaining = count
        while remaining > 0 && entries[(index &- 1) & mask].time >= end {
            index = (index &- 1) & mask
            remaining &-= 1
        }
        let skipped = count &- remaining
        var thrust = Thrust()
        thrust.newest = index
        // The sums are locals, not the result's fields, so that they stay in registers.
        var speed = 0.0
        var velocity = Vector3.zero
        var approach = Vector3.zero
        var peak = 0.0
        // Two runs: the recent samples, which give the direction, then the rest back to `start`.
        for run in 0..<2 {
            let limit = run == 0 ? max(start, directionStart) : start
            while remaining > 0 {
                let entry = entries[(index &- 1) & mask]
                guard entry.time > limit else { break }
                index = (index &- 1) & mask
                remaining &-= 1
                approach += entry.linear * entry.interval
                let along = entry.linear.dot(direction)
                guard along < 0 else { continue }
                speed -= along * entry.interval
                velocity += entry.linear * entry.interval
                guard -along > peak else { continue }
                peak = -along
                // The peak only grows: once the stop is not sharp against it, it never will be.
                guard stopStrength >= sharpness * peak else { return nil }
            }
            if run == 0 {
                // Every sample so far was a recent one: the speed so far is theirs.
                thrust.recentCount = count &- remaining &- skipped
                thrust.recentSpeed = speed
            }
        }
        thrust.count = count &- remaining &- skipped
        thrust.speed = speed
        thrust.velocity = velocity
        thrust.approach = approach
        thrust.peak = peak
        return thrust
    }

    /// The velocity that the first half of the recent part of `thrust` built, before the wrist
    /// had turned much, which gives the thrust's direction.
    func earlyVelocity(of thrust: Thrust, against direction: Vector3) -> Vector3 {
        var velocity = Vector3.zero
        var built = 0.0
        let half = thrust.recentSpeed / 2
        var index = (thrust.newest &- thrust.recentCount) & mask
        var remaining = thrust.recentCount
        while remaining > 0 && built < half {
            let entry = entries[index]
            index = (index &+ 1) & mask
            remaining &-= 1
            let along = entry.linear.dot(direction)
            guard along < 0 else { continue }
            built -= along * entry.interval
            velocity += entry.linear * entry.interval
        }
        return velocity
    }

    /// How `thrust` curved: its straightness (the length of its velocity over the length of
    /// its path: 1 when all its acceleration pointed one way) and its earliest acceleration.
    /// The path costs a square root a sample, so only a hook's test asks for it.
    func curve(of thrust: Thrust, against direction: Vector3) -> (straightness: Double, onset: Vector3) {
        var pathLength = 0.0
        var onset = Vector3.zero
        var index = thrust.newest
        for _ in 0..<thrust.count {
            index = (index &- 1) & mask
            let entry = entries[index]
            guard entry.linear.dot(direction) < 0 else { continue }
            pathLength += entry.linear.length * entry.interval
            onset = entry.linear
        }
        return (pathLength > 0 ? thrust.velocity.length / pathLength : 1, onset)
    }
}

/// The thrust found before a stop.
struct Thrust {
    /// The speed built against the stop, in g·s.
    var speed = 0.0
    /// The summed acceleration, in g·s: the velocity the thrust built.
    var velocity = Vector3.zero
    /// The summed acceleration of every sample looked at, opposing or not, in g·s: the velocity
    /// with which the hand came into the stop.
    var approach = Vector3.zero
    /// The strongest push of the thrust against the stop's direction, in g.
    var peak = 0.0
    /// The speed built against the stop since the direction window began, in g·s.
    var recentSpeed = 0.0
    /// Where the thrust lies in the ring: the index after its newest sample, how many samples
    /// it has, and how many of those, the newest, came since the direction window began.
    var newest = 0
    var count = 0
    var recentCount = 0
}
