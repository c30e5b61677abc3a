// MARK: - GravityTracker

/// Follows the direction of gravity in the device's frame while the device is calm.
///
/// A punch lasts a fraction of a second, while a grip changes slowly, so the estimate follows the
/// reading with a time constant of a few tenths of a second, and only while the reading is close
/// to it in magnitude and direction. During a punch it is frozen, so the punch is measured against
/// the gravity of the moment before it. A long stretch of motion still lets it drift slowly, so a
/// new grip taken while moving is picked up in the end.
public struct GravityTracker: Sendable {
    /// The time constant while calm, in seconds.
    public var calmTimeConstant: Double = 0.25
    /// The time constant after a long stretch of motion, in seconds.
    public var movingTimeConstant: Double = 0.5
    /// How long motion lasts before the slow adaptation starts, in seconds.
    public var motionPatience: Double = 1.0
    /// How far, in g, a reading may be from the estimate and still count as calm.
    public var calmDeviation: Double = 0.5 { didSet { squareLimits() } }
    /// How far, in g, a reading's magnitude may be from the estimate's and still count as calm.
    public var calmMagnitudeDeviation: Double = 0.15 { didSet { squareLimits() } }

    /// The current estimate, in g, device frame (about 1 g long when the source includes gravity).
    @inlinable public var estimate: Vector3 { current }
    /// Whether the estimate has been seeded by a first reading.
    @inlinable public var isSeeded: Bool { seeded }

    // Usable from inlined code: `update(with:interval:)` runs in the caller's loop, every sample.
    @usableFromInline var current: Vector3 = .zero
    @usableFromInline var seeded = false
    @usableFromInline var motionTime = 0.0
    /// The last reading, for `update(with:interval:)`; the detector keeps its own.
    @usableFromInline var previousReading = Vector3.zero
    /// Whether the source includes gravity, so that the estimate says which way is up: whether
    /// the first reading was nearer 1 g than 0.
    ///
    /// Not the estimate's length: when the grip turns over, the estimate crosses to the new
    /// gravity in a straight line, through lengths far below 1 g, and judged by its length it
    /// would stop looking for gravity halfway and stay there.
    public private(set) var seesGravity = false
    // The limits squared, as the tests on every sample compare them; `quietSquared` is the
    // smaller of the two.
    @usableFromInline var calmDeviationSquared = 0.0
    @usableFromInline var calmMagnitudeDeviationSquared = 0.0
    @usableFromInline var quietSquared = 0.0

    /// Creates a tracker with the default time constants.
    public init() { squareLimits() }

    private mutating func squareLimits() {
        calmDeviationSquared = calmDeviation * calmDeviation
        calmMagnitudeDeviationSquared = calmMagnitudeDeviation * calmMagnitudeDeviation
        quietSquared = min(calmDeviationSquared, calmMagnitudeDeviationSquared)
    }

    /// Takes one reading (g) that came `interval` seconds after the previous one.
    public mutating func update(with reading: Vector3, interval: Double) {
        guard seeded else {
            seed(reading)
            return
        }
        let deviation = reading - current
        update(
            with: reading, after: previousReading, deviation: deviation, deviationSquared: deviation.lengthSquared,
            interval: interval)
        previousReading = reading
    }

    /// Takes one reading after the first, with the reading before it, and what the caller has
    /// worked out already: its deviation from the estimate (reading − estimate) and that
    /// deviation's squared length. The detector works them out anyway, for every sample, so it
    /// passes them in and keeps the previous reading itself.
    @inlinable @inline(__always)
    mutating func update(
        with reading: Vector3, after previous: Vector3, deviation: Vector3, deviationSquared: Double, interval: Double
    ) {
        let timeConstant: Double
        // A reading within both limits of the estimate is calm: its length differs from the
        // estimate's by no more than its distance. That settles most calm readings without their
        // lengths.
        if deviationSquared < quietSquared
            || (deviationSquared < calmDeviationSquared
                && lengthsDiffer(
                    squared: reading.lengthSquared, current.lengthSquared, byLessThan: calmMagnitudeDeviation))
        {
            motionTime = 0
            timeConstant = calmTimeConstant
        } else {
            motionTime += interval
            // After a long stretch of motion, the grip may have changed: take readings that
            // have gravity's length and hardly move, which is gravity seen from the new grip.
            // Every other reading during motion is mostly the motion, and would pull the
            // estimate off.
            // Compared as squares: a square root stalls the loop that runs this every sample.
            guard motionTime > motionPatience,
                lengthsDiffer(squared: reading.lengthSquared, seesGravity ? 1 : 0, byLessThan: calmMagnitudeDeviation),
                (reading - previous).lengthSquared < calmMagnitudeDeviationSquared
            else { return }
            timeConstant = movingTimeConstant
        }
        let weight = min(1, interval / timeConstant)
        current += deviation * weight
    }

    /// Whether two lengths p, q ≥ 0, given as their squares a = p², b = q², differ by less than
    /// δ = `limit`, without square roots, since this runs on every sample:
    /// (p − q)² < δ² ⟺ 2pq > a + b − δ², so either the right side is negative or 4ab > (a + b − δ²)².
    @inlinable @inline(__always)
    func lengthsDiffer(squared a: Double, _ b: Double, byLessThan limit: Double) -> Bool {
        let c = a + b - limit * limit
        return c < 0 || 4 * a * b > c * c
    }

    @usableFromInline
    mutating func seed(_ reading: Vector3) {
        current = reading
        previousReading = reading
        seesGravity = reading.lengthSquared > 0.25
        seeded = true
    }
}
