// MARK: - RecentMotion

/// A fixed ring of the latest samples' acceleration with gravity removed, for looking back
/// from a stop to the thrust before it. It never grows: at very high rates it covers less time.
///
/// Each quantity (times, intervals, x, y, z) has an array of its own, so that a look back sums
/// two entries at a time with vector instructions and no branch per entry: the look back is most
/// of what deciding a stop costs, and at 400 Hz it covers 200 entries. The times only grow along
/// the ring, so a look back first finds its window's ends by binary search.
///
/// Its buffer is allocated once and written in place every sample, with neither an array's bounds
/// check nor its check for a copy sharing it: the one detector that owns the ring cannot be
/// copied, and frees the buffer with `deallocate()`. That sole owner is also why it may be sent.
@usableFromInline struct RecentMotion: @unchecked Sendable {
    // Usable from inlined code: `append` runs in the caller's loop, every sample.
    /// The times, then the intervals, x, y and z, each `capacity` long: one pointer to load,
    /// where five would be five loads a sample.
    @usableFromInline let storage: UnsafeMutablePointer<Double>
    /// The capacity less one: the capacity is a power of two, so wrapping is a mask.
    @usableFromInline let mask: Int
    /// Where the next entry goes.
    @usableFromInline var next = 0
    @usableFromInline var count = 0

    /// Creates a ring of at least `capacity` entries.
    init(capacity: Int) {
        var size = 1
        while size < capacity { size *= 2 }
        storage = .allocate(capacity: 5 * size)
        storage.initialize(repeating: 0, count: 5 * size)
        mask = size - 1
    }

    /// Frees the buffer; the ring is not used after.
    func deallocate() { storage.deallocate() }

    @inlinable var times: UnsafeMutablePointer<Double> { storage }
    @inlinable var intervals: UnsafeMutablePointer<Double> { storage + (mask &+ 1) }
    @inlinable var xs: UnsafeMutablePointer<Double> { storage + 2 &* (mask &+ 1) }
    @inlinable var ys: UnsafeMutablePointer<Double> { storage + 3 &* (mask &+ 1) }
    @inlinable var zs: UnsafeMutablePointer<Double> { storage + 4 &* (mask &+ 1) }

    @inlinable @inline(__always)
    mutating func append(time: Double, interval: Double, linear: Vector3) {
        times[next] = time
        intervals[next] = interval
        xs[next] = linear.x
        ys[next] = linear.y
        zs[next] = linear.z
        // Neither can overflow: both stay within the capacity.
        next = (next &+ 1) & mask
        if count <= mask { count &+= 1 }
    }

    @usableFromInline mutating func removeAll() { count = 0 }

    // MARK: - Positions

    // A position counts the entries the ring holds from the oldest, 0, to the newest, count − 1;
    // it stays put until the next append.

    /// Where in the buffers the entry at `position` is.
    func slot(_ position: Int) -> Int { (next &- count &+ position) & mask }

    /// The position of the first entry later than `limit`, or at it too when `including`;
    /// `count` when there is none.
    ///
    /// The search halves the range a fixed number of times for a given count, so only the
    /// comparisons themselves, not the loop, depend on the times.
    func firstPosition(after limit: Double, including: Bool) -> Int {
        guard count > 0 else { return 0 }
        func isBefore(_ position: Int) -> Bool {
            let time = times[slot(position)]
            return including ? time < limit : time <= limit
        }
        var base = 0
        var size = count
        while size > 1 {
            let half = size >> 1
            if isBefore(base &+ half) { base &+= half }
            size &-= half
        }
        return isBefore(base) ? base &+ 1 : base
    }

    // MARK: - Looking back

    /// The mean acceleration of the samples in `start..<end`, or zero when there are none.
    func meanAcceleration(from start: Double, to end: Double) -> Vector3 {
        let first = firstPosition(after: start, including: true)
        let sums = sums(over: first..<max(first, firstPosition(after: end, including: true)), against: .zero)
        return sums.duration > 0 ? sums.velocity / sums.duration : .zero
    }

    /// What the acceleration opposite to `direction` built in the samples after `start` and
    /// before `end`. The direction comes only from the samples after `directionStart`: what came
    /// earlier (a wind-up, the body's sway) would pull it off. What only a punch needs is left to
    /// `earlyVelocity(of:against:)` and `curve(of:against:)`.
    func thrust(
        against direction: Vector3, before end: Double, since start: Double, directionSince directionStart: Double
    ) -> Thrust {
        let newest = firstPosition(after: end, including: true)
        let recentStart = min(firstPosition(after: max(start, directionStart), including: false), newest)
        let oldest = min(firstPosition(after: start, including: false), recentStart)
        let recent = sums(over: recentStart..<newest, against: direction)
        let whole = recent + sums(over: oldest..<recentStart, against: direction)
        return Thrust(
            speed: whole.speed, velocity: whole.opposing, approach: whole.velocity, peak: whole.peak,
            recentSpeed: recent.speed, recent: recentStart..<newest, whole: oldest..<newest)
    }

    /// The velocity that the first half of the recent part of `thrust` built, before the wrist
    /// had turned much, which gives the thrust's direction.
    func earlyVelocity(of thrust: Thrust, against direction: Vector3) -> Vector3 {
        let half = thrust.recentSpeed / 2
        let lanes = SumLanes(direction)
        var built = 0.0
        var velocity = Vector3.zero
        var position = thrust.recent.lowerBound
        while position < thrust.recent.upperBound && built < half {
            let slot = slot(position)
            // Two entries at once while together they stay short of half the speed; the entry
            // that may reach it is taken alone, beside one that adds nothing.
            if position &+ 1 < thrust.recent.upperBound && slot < mask {
                let both = lanes.against(
                    interval: pair(intervals, slot), x: pair(xs, slot), y: pair(ys, slot), z: pair(zs, slot))
                if built - both.gain.sum() < half {
                    built -= both.gain.sum()
                    velocity += Vector3(both.x.sum(), both.y.sum(), both.z.sum())
                    position &+= 2
                    continue
                }
            }
            let one = lanes.against(
                interval: SIMD2(intervals[slot], 0), x: SIMD2(xs[slot], 0), y: SIMD2(ys[slot], 0),
                z: SIMD2(zs[slot], 0))
            built -= one.gain[0]
            velocity += Vector3(one.x[0], one.y[0], one.z[0])
            position &+= 1
        }
        return velocity
    }

    /// How `thrust` curved: its straightness (the length of its velocity over the length of
    /// its path: 1 when all its acceleration pointed one way) and its earliest acceleration.
    /// The path costs a square root a sample, so only a hook's test asks for it.
    func curve(of thrust: Thrust, against direction: Vector3) -> (straightness: Double, onset: Vector3) {
        var pathLength = 0.0
        var onset: Vector3?
        for position in thrust.whole {
            let slot = slot(position)
            let linear = Vector3(xs[slot], ys[slot], zs[slot])
            guard linear.dot(direction) < 0 else { continue }
            pathLength += linear.length * intervals[slot]
            if onset == nil { onset = linear }
        }
        return (pathLength > 0 ? thrust.velocity.length / pathLength : 1, onset ?? .zero)
    }

    // MARK: - Sums

    /// The sums of the entries at `positions` against `direction` (zero for none).
    func sums(over positions: Range<Int>, against direction: Vector3) -> WindowSums {
        var lanes = SumLanes(direction)
        guard !positions.isEmpty else { return lanes.total }
        // At most two runs of slots: the ring may wrap within the window.
        let first = slot(positions.lowerBound)
        let firstEnd = min(first &+ positions.count, mask &+ 1)
        add(slots: first, to: firstEnd, into: &lanes)
        add(slots: 0, to: positions.count &- (firstEnd &- first), into: &lanes)
        return lanes.total
    }

    @inline(__always)
    private func add(slots start: Int, to end: Int, into lanes: inout SumLanes) {
        var slot = start
        while slot &+ 2 <= end {
            lanes.add(interval: pair(intervals, slot), x: pair(xs, slot), y: pair(ys, slot), z: pair(zs, slot))
            slot &+= 2
        }
        if slot < end {
            // The last entry alone, beside one that adds nothing.
            lanes.add(
                interval: SIMD2(intervals[slot], 0), x: SIMD2(xs[slot], 0), y: SIMD2(ys[slot], 0),
                z: SIMD2(zs[slot], 0))
        }
    }

    /// The two entries at `slot` and the one after it.
    @inline(__always)
    private func pair(_ buffer: UnsafeMutablePointer<Double>, _ slot: Int) -> SIMD2<Double> {
        UnsafeRawPointer(buffer + slot).loadUnaligned(as: SIMD2<Double>.self)
    }
}

// MARK: - WindowSums

/// What a run of the ring's entries adds up to against a direction.
struct WindowSums {
    /// How long the entries lasted, in s.
    var duration = 0.0
    /// Their summed acceleration, in g·s: the velocity they built.
    var velocity = Vector3.zero
    /// The summed acceleration of the entries that point against the direction, in g·s.
    var opposing = Vector3.zero
    /// The speed those built against the direction, in g·s.
    var speed = 0.0
    /// The strongest acceleration against the direction, in g (0 when none opposes it).
    var peak = 0.0

    static func + (a: WindowSums, b: WindowSums) -> WindowSums {
        WindowSums(
            duration: a.duration + b.duration, velocity: a.velocity + b.velocity, opposing: a.opposing + b.opposing,
            speed: a.speed + b.speed, peak: max(a.peak, b.peak))
    }
}

/// `WindowSums` kept in two lanes, each summing every other entry, so that two entries are
/// added at once and the entries against the direction are picked by a mask, not a branch.
private struct SumLanes {
    let dx, dy, dz: SIMD2<Double>
    var duration = SIMD2<Double>.zero
    var vx = SIMD2<Double>.zero, vy = SIMD2<Double>.zero, vz = SIMD2<Double>.zero
    var ox = SIMD2<Double>.zero, oy = SIMD2<Double>.zero, oz = SIMD2<Double>.zero
    var speed = SIMD2<Double>.zero
    /// The least acceleration along the direction, never above 0.
    var lowest = SIMD2<Double>.zero

    init(_ direction: Vector3) {
        dx = SIMD2(repeating: direction.x)
        dy = SIMD2(repeating: direction.y)
        dz = SIMD2(repeating: direction.z)
    }

    /// What two entries push against the direction: the velocity each built along it (at most
    /// 0: minus the speed) and its velocity, both 0 for one that does not point against it; and
    /// each one's acceleration along it.
    @inline(__always)
    func against(interval: SIMD2<Double>, x: SIMD2<Double>, y: SIMD2<Double>, z: SIMD2<Double>) -> (
        gain: SIMD2<Double>, x: SIMD2<Double>, y: SIMD2<Double>, z: SIMD2<Double>, along: SIMD2<Double>
    ) {
        let along = x * dx + y * dy + z * dz
        let opposing = along .< 0
        return (
            SIMD2.zero.replacing(with: along, where: opposing) * interval,
            SIMD2.zero.replacing(with: x * interval, where: opposing),
            SIMD2.zero.replacing(with: y * interval, where: opposing),
            SIMD2.zero.replacing(with: z * interval, where: opposing), along
        )
    }

    @inline(__always)
    mutating func add(interval: SIMD2<Double>, x: SIMD2<Double>, y: SIMD2<Double>, z: SIMD2<Double>) {
        duration += interval
        vx += x * interval
        vy += y * interval
        vz += z * interval
        let pushed = against(interval: interval, x: x, y: y, z: z)
        speed -= pushed.gain
        ox += pushed.x
        oy += pushed.y
        oz += pushed.z
        lowest = lowest.replacing(with: pushed.along, where: pushed.along .< lowest)
    }

    var total: WindowSums {
        WindowSums(
            duration: duration.sum(), velocity: Vector3(vx.sum(), vy.sum(), vz.sum()),
            opposing: Vector3(ox.sum(), oy.sum(), oz.sum()), speed: speed.sum(), peak: -min(lowest[0], lowest[1]))
    }
}

// MARK: - Thrust

/// The thrust found before a stop.
struct Thrust {
    /// The speed built against the stop, in g·s.
    var speed: Double
    /// The summed acceleration against the stop, in g·s: the velocity the thrust built.
    var velocity: Vector3
    /// The summed acceleration of every sample looked at, opposing or not, in g·s: the velocity
    /// with which the hand came into the stop.
    var approach: Vector3
    /// The strongest push of the thrust against the stop's direction, in g.
    var peak: Double
    /// The speed built against the stop since the direction window began, in g·s.
    var recentSpeed: Double
    /// The ring's positions since the direction window began, and of the whole look back.
    var recent: Range<Int>
    var whole: Range<Int>
}
