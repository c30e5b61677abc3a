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
    public var calmDeviation: Double = 0.5
    /// How far, in g, a reading's magnitude may be from the estimate's and still count as calm.
    public var calmMagnitudeDeviation: Double = 0.15

    /// The current estimate, in g, device frame (about 1 g long when the source includes gravity).
    public private(set) var estimate: Vector3 = .zero
    /// Whether the estimate has been seeded by a first reading.
    public private(set) var isSeeded = false
    private var motionTime = 0.0
    private var previousReading = Vector3.zero

    /// Creates a tracker with the default time constants.
    public init() {}

    /// Whether the estimate is long enough to say which way is up (the source includes gravity).
    public var seesGravity: Bool { estimate.lengthSquared > 0.25 }

    /// Takes one reading (g) that came `interval` seconds after the previous one.
    @inline(__always)
    public mutating func update(with reading: Vector3, interval: Double) {
        guard isSeeded else {
            seed(reading)
            return
        }
        defer { previousReading = reading }
        let readingSquared = reading.lengthSquared
        let deviationSquared = (reading - estimate).lengthSquared
        let timeConstant: Double
        if deviationSquared < calmDeviation * calmDeviation
            && lengthsDiffer(squared: readingSquared, estimate.lengthSquared, byLessThan: calmMagnitudeDeviation)
        {
            motionTime = 0
            timeConstant = calmTimeConstant
        } else {
            motionTime += interval
            // After a long stretch of motion, the grip may have changed: take readings that
            // have gravity's length and hardly move, which is gravity seen from the new grip.
            // Every other reading during motion is mostly the motion, and would pull the
            // estimate off.
            let expected = estimate.length > 0.5 ? 1.0 : 0.0
            guard motionTime > motionPatience, abs(readingSquared.squareRoot() - expected) < calmMagnitudeDeviation,
                (reading - previousReading).length < calmMagnitudeDeviation
            else { return }
            timeConstant = movingTimeConstant
        }
        let weight = min(1, interval / timeConstant)
        estimate += (reading - estimate) * weight
    }

    /// Whether two lengths p, q ≥ 0, given as their squares a = p², b = q², differ by less than
    /// δ = `limit`, without square roots, since this runs on every sample:
    /// (p − q)² < δ² ⟺ 2pq > a + b − δ², so either the right side is negative or 4ab > (a + b − δ²)².
    @inline(__always)
    func lengthsDiffer(squared a: Double, _ b: Double, byLessThan limit: Double) -> Bool {
        let c = a + b - limit * limit
        return c < 0 || 4 * a * b > c * c
    }

    mutating func seed(_ reading: Vector3) {
        estimate = reading
        previousReading = reading
        isSeeded = true
    }
}
