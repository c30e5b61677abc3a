// MARK: - RecentMotion

/// A fixed ring of the latest samples' acceleration with gravity removed, for looking back
/// from a stop to the thrust before it. It never grows: at very high rates it covers less time.
///
/// Each quantity (times, intervals, x, y, z) has an array of its own, so that a look back sums
/// two entries at a time with vector instructions and no branch per entry: the look back is most
/// of what deciding a stop costs, and at 400 Hz it covers 200 entries. The times only grow along
/// the ring, so a look back finds where its window begins by binary search; where it ends, the
/// detector knows already (the entry of the stop's peak, or the newest).
///
/// Entries are numbered in the order they came, from 0, and the number never goes back, so the
/// detector can keep an entry's index and find it again.
///
/// Its buffer is allocated once and written in place every sample, with neither an array's bounds
/// check nor its check for a copy sharing it: the one detector that owns the ring cannot be
/// copied, and frees the buffer with `deallocate()`. That sole owner is also why it may be sent.
@usableFromInline struct RecentMotion: @unchecked Sendable {
    /// How many entries the ring holds: a power of two, so that wrapping is a mask; and fixed,
    /// so that where each quantity's array begins is a constant in the code that writes every
    /// sample, not an address worked out five times a sample.
    @usableFromInline static var capacity: Int { 1024 }
    @usableFromInline static var mask: Int { capacity - 1 }

    // Usable from inlined code: `append` runs in the caller's loop, every sample.
    /// The times, then the intervals, x, y and z, each `capacity` long.
    @usableFromInline let storage: UnsafeMutablePointer<Double>
    /// The number the next entry gets: how many were ever appended.
    @usableFromInline var endIndex = 0
    /// The first entry since the ring was last emptied.
    var firstIndex = 0

    init() {
        storage = .allocate(capacity: 5 * Self.capacity)
        storage.initialize(repeating: 0, count: 5 * Self.capacity)
    }

    /// Frees the buffer; the ring is not used after.
    func deallocate() { storage.deallocate() }

    @inlinable @inline(__always)
    mutating func append(time: Double, interval: Double, linear: Vector3) {
        let slot = endIndex & Self.mask
        storage[slot] = time
        storage[Self.capacity &+ slot] = interval
        storage[2 &* Self.capacity &+ slot] = linear.x
        storage[3 &* Self.capacity &+ slot] = linear.y
        storage[4 &* Self.capacity &+ slot] = linear.z
        endIndex &+= 1
    }

    /// Forgets every entry; the numbering goes on.
    mutating func removeAll() { firstIndex = endIndex }

    // MARK: - Entries

    /// The oldest entry the ring still holds; `endIndex` when it holds none.
    var startIndex: Int { max(firstIndex, endIndex &- Self.capacity) }

    var times: UnsafeMutablePointer<Double> { storage }
    var intervals: UnsafeMutablePointer<Double> { storage + Self.capacity }
    var xs: UnsafeMutablePointer<Double> { storage + 2 &* Self.capacity }
    var ys: UnsafeMutablePointer<Double> { storage + 3 &* Self.capacity }
    var zs: UnsafeMutablePointer<Double> { storage + 4 &* Self.capacity }

    /// The time of the entry at `index`, which the ring holds.
    func time(at index: Int) -> Double { times[index & Self.mask] }

    /// The first of the entries at `indices` later than `limit`, or at it too when `including`;
    /// `indices.upperBound` when there is none.
    func firstIndex(after limit: Double, including: Bool, in indices: Range<Int>) -> Int {
        guard !indices.isEmpty else { return indices.upperBound }
        func isBefore(_ index: Int) -> Bool {
            let time = time(at: index)
            return including ? time < limit : time <= limit
        }
        var base = indices.lowerBound
        var size = indices.count
        while size > 1 {
            let half = size >> 1
            if isBefore(base &+ half) { base &+= half }
            size &-= half
        }
        return isBefore(base) ? base &+ 1 : base
    }

    // MARK: - Looking back

    /// The mean acceleration of the entries from the first at or after `start` up to `end`
    /// (not included), or zero when they lasted no time.
    func meanAcceleration(since start: Double, before end: Int) -> Vector3 {
        var sums = MeanLanes()
        accumulate(firstIndex(after: start, including: true, in: startIndex..<end)..<end, into: &sums)
        let duration = sums.duration.sum()
        guard duration > 0 else { return .zero }
        return Vector3(sums.x.sum(), sums.y.sum(), sums.z.sum()) / duration
    }

    /// What the acceleration opposite to `direction` built in the entries after `start` and
    /// before the stop's peak at `peak` (those at the peak's time too are not before it). The
    /// direction comes only from the entries after `directionStart`: what came earlier (a
    /// wind-up, the body's sway) would pull it off. What only a punch needs is left to
    /// `earlyVelocity(of:against:)` and `curve(of:against:)`.
    func thrust(
        against direction: Vector3, before peak: Int, since start: Double, directionSince directionStart: Double
    ) -> Thrust {
        let held = startIndex
        // The peak is among the newest entries, unless the ring was emptied or has wrapped since.
        var newest = max(peak, held)
        if newest < endIndex {
            let peakTime = time(at: newest)
            while newest > held && time(at: newest &- 1) >= peakTime { newest &-= 1 }
        }
        let recentStart = firstIndex(after: max(start, directionStart), including: false, in: held..<newest)
        let oldest = firstIndex(after: start, including: false, in: held..<recentStart)
        var sums = ThrustLanes(direction)
        accumulate(recentStart..<newest, into: &sums)
        let recentSpeed = sums.speed.sum()
        accumulate(oldest..<recentStart, into: &sums)
        return Thrust(
            speed: sums.speed.sum(), approach: Vector3(sums.x.sum(), sums.y.sum(), sums.z.sum()),
            peak: -min(sums.lowest[0], sums.lowest[1]), recentSpeed: recentSpeed,
            recent: recentStart..<newest, whole: oldest..<newest)
    }

    /// The velocity that the first half of the recent part of `thrust` built, before the wrist
    /// had turned much, which gives the thrust's direction.
    func earlyVelocity(of thrust: Thrust, against direction: Vector3) -> Vector3 {
        let half = thrust.recentSpeed / 2
        let opposing = Opposing(direction)
        var built = 0.0
        var velocity = Vector3.zero
        var index = thrust.recent.lowerBound
        while index < thrust.recent.upperBound && built < half {
            let slot = index & Self.mask
            // Two entries at once while together they stay short of half the speed; the entry
            // that may reach it is taken alone, beside one that adds nothing.
            if index &+ 1 < thrust.recent.upperBound && slot < Self.mask {
                let both = opposing.push(entries(at: slot))
                if built - both.gain.sum() < half {
                    built -= both.gain.sum()
                    velocity += Vector3(both.x.sum(), both.y.sum(), both.z.sum())
                    index &+= 2
                    continue
                }
            }
            let one = opposing.push(entry(alone: slot))
            built -= one.gain[0]
            velocity += Vector3(one.x[0], one.y[0], one.z[0])
            index &+= 1
        }
        return velocity
    }

    /// How `thrust` curved: its straightness (the length of its velocity against `direction`
    /// over the length of its path: 1 when all its acceleration pointed one way) and its
    /// earliest acceleration. The path costs a square root a sample, so only a hook's test asks
    /// for it.
    func curve(of thrust: Thrust, against direction: Vector3) -> (straightness: Double, onset: Vector3) {
        var pathLength = 0.0
        var velocity = Vector3.zero
        var onset: Vector3?
        for index in thrust.whole {
            let slot = index & Self.mask
            let linear = Vector3(xs[slot], ys[slot], zs[slot])
            guard linear.dot(direction) < 0 else { continue }
            pathLength += linear.length * intervals[slot]
            velocity += linear * intervals[slot]
            if onset == nil { onset = linear }
        }
        return (pathLength > 0 ? velocity.length / pathLength : 1, onset ?? .zero)
    }

    // MARK: - Sums

    /// Adds the entries at `indices` into `lanes`, two at a time.
    private func accumulate<Lanes: EntryLanes>(_ indices: Range<Int>, into lanes: inout Lanes) {
        guard !indices.isEmpty else { return }
        // At most two runs of slots: the ring may wrap within the window.
        let first = indices.lowerBound & Self.mask
        let firstEnd = min(first &+ indices.count, Self.capacity)
        add(slots: first, to: firstEnd, into: &lanes)
        add(slots: 0, to: indices.count &- (firstEnd &- first), into: &lanes)
    }

    @inline(__always)
    private func add<Lanes: EntryLanes>(slots start: Int, to end: Int, into lanes: inout Lanes) {
        var slot = start
        while slot &+ 2 <= end {
            lanes.add(entries(at: slot))
            slot &+= 2
        }
        if slot < end { lanes.add(entry(alone: slot)) }
    }

    /// The entries at `slot` and the one after it.
    @inline(__always)
    private func entries(at slot: Int) -> EntryPair {
        func pair(_ buffer: UnsafeMutablePointer<Double>) -> SIMD2<Double> {
            UnsafeRawPointer(buffer + slot).loadUnaligned(as: SIMD2<Double>.self)
        }
        return EntryPair(interval: pair(intervals), x: pair(xs), y: pair(ys), z: pair(zs))
    }

    /// The entry at `slot` alone, beside one with no interval and no acceleration, which adds
    /// nothing to any sum.
    @inline(__always)
    private func entry(alone slot: Int) -> EntryPair {
        EntryPair(
            interval: SIMD2(intervals[slot], 0), x: SIMD2(xs[slot], 0), y: SIMD2(ys[slot], 0), z: SIMD2(zs[slot], 0))
    }
}

// MARK: - Lanes

/// Sums over entries kept in two lanes, each summing every other entry, so that two entries are
/// added at once. Each look back keeps only the sums it needs: the loop over its entries is
/// most of what it costs.
private protocol EntryLanes {
    /// Adds two entries (or one, beside one with no interval and no acceleration).
    mutating func add(_ entries: EntryPair)
}

/// Two entries of the ring, a lane each.
private struct EntryPair {
    var interval, x, y, z: SIMD2<Double>
}

/// How long the entries lasted and the velocity they built, for a mean.
private struct MeanLanes: EntryLanes {
    var duration = SIMD2<Double>.zero
    var x = SIMD2<Double>.zero, y = SIMD2<Double>.zero, z = SIMD2<Double>.zero

    @inline(__always)
    mutating func add(_ entries: EntryPair) {
        duration += entries.interval
        x += entries.x * entries.interval
        y += entries.y * entries.interval
        z += entries.z * entries.interval
    }
}

/// What entries push against a direction, the entries against it picked by a mask, not a branch.
private struct Opposing {
    let dx, dy, dz: SIMD2<Double>

    init(_ direction: Vector3) {
        dx = SIMD2(repeating: direction.x)
        dy = SIMD2(repeating: direction.y)
        dz = SIMD2(repeating: direction.z)
    }

    /// Each entry's acceleration along the direction.
    @inline(__always)
    func along(_ entries: EntryPair) -> SIMD2<Double> {
        entries.x * dx + entries.y * dy + entries.z * dz
    }

    /// The velocity each entry built along the direction if it points against it (at most 0:
    /// minus the speed it built), and 0 if not.
    @inline(__always)
    func gain(along: SIMD2<Double>, interval: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2.zero.replacing(with: along, where: along .< 0) * interval
    }

    /// What two entries push against the direction: the velocity each built along it, and its
    /// velocity, 0 for one that does not point against it.
    @inline(__always)
    func push(_ entries: EntryPair) -> (gain: SIMD2<Double>, x: SIMD2<Double>, y: SIMD2<Double>, z: SIMD2<Double>) {
        let along = along(entries)
        let opposing = along .< 0
        return (
            gain(along: along, interval: entries.interval),
            SIMD2.zero.replacing(with: entries.x * entries.interval, where: opposing),
            SIMD2.zero.replacing(with: entries.y * entries.interval, where: opposing),
            SIMD2.zero.replacing(with: entries.z * entries.interval, where: opposing)
        )
    }
}

/// The speed the entries built against a direction, the velocity they built (opposing or not)
/// and the strongest acceleration against the direction.
private struct ThrustLanes: EntryLanes {
    let opposing: Opposing
    /// The speed built against the direction: minus the sum of the gains.
    var speed = SIMD2<Double>.zero
    var x = SIMD2<Double>.zero, y = SIMD2<Double>.zero, z = SIMD2<Double>.zero
    /// The least acceleration along the direction, never above 0.
    var lowest = SIMD2<Double>.zero

    init(_ direction: Vector3) { opposing = Opposing(direction) }

    @inline(__always)
    mutating func add(_ entries: EntryPair) {
        x += entries.x * entries.interval
        y += entries.y * entries.interval
        z += entries.z * entries.interval
        let along = opposing.along(entries)
        speed -= opposing.gain(along: along, interval: entries.interval)
        lowest = lowest.replacing(with: along, where: along .< lowest)
    }
}

// MARK: - Thrust

/// The thrust found before a stop.
struct Thrust {
    /// The speed built against the stop, in g·s.
    var speed: Double
    /// The summed acceleration of every entry looked at, opposing or not, in g·s: the velocity
    /// with which the hand came into the stop.
    var approach: Vector3
    /// The strongest push of the thrust against the stop's direction, in g.
    var peak: Double
    /// The speed built against the stop since the direction window began, in g·s.
    var recentSpeed: Double
    /// The ring's entries since the direction window began, and of the whole look back.
    var recent: Range<Int>
    var whole: Range<Int>
}
