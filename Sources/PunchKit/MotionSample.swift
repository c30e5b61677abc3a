// MARK: - MotionSample

/// One accelerometer reading, in the units the detector works in.
///
/// `acceleration` is the sensor's reading in g in the device's own frame: with gravity included
/// (a phone at rest reads about 1 g) or removed (it reads about 0), as the source delivered it.
public struct MotionSample: Hashable, Sendable {
    /// Seconds on the source's clock. Only differences matter; they must not decrease.
    public var time: Double
    /// The reading in g, device frame.
    public var acceleration: Vector3

    /// Creates a sample.
    @inlinable
    public init(time: Double, acceleration: Vector3) {
        self.time = time
        self.acceleration = acceleration
    }
}

extension MotionSample {
    /// Whether the time and every component of the reading are finite.
    ///
    /// One test for all four, as the detector makes it on every sample: x − x is 0 for a finite x
    /// and NaN for an infinite or NaN one, and a NaN makes the sum NaN, which equals nothing.
    @inlinable
    public var isFinite: Bool {
        (time - time) + (acceleration.x - acceleration.x) + (acceleration.y - acceleration.y)
            + (acceleration.z - acceleration.z) == 0
    }
}

/// The standard gravity, in m/s², used to convert between g and m/s².
public let standardGravity = 9.80665
