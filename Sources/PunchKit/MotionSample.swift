// MARK: - MotionSample

/// One motion reading, in the units the detector works in.
///
/// `acceleration` is the sensor's reading in g in the device's own frame: with gravity included
/// (a phone at rest reads about 1 g) or removed (it reads about 0), as the source delivered it.
/// `rotationRate` is the gyroscope's reading at the same time, in radians per second about the
/// device's own axes (right-handed: positive is anticlockwise looking down the axis), or nil
/// where the source has no gyroscope.
public struct MotionSample: Hashable, Sendable {
    /// Seconds on the source's clock. Only differences matter; they must not decrease.
    public var time: Double
    /// The reading in g, device frame.
    public var acceleration: Vector3
    /// The rotation rate in rad/s, device frame, when the source has a gyroscope.
    public var rotationRate: Vector3?

    /// Creates a sample.
    @inlinable
    public init(time: Double, acceleration: Vector3, rotationRate: Vector3? = nil) {
        self.time = time
        self.acceleration = acceleration
        self.rotationRate = rotationRate
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

extension MotionSample {
    /// A reading in the units its source gives, in the detector's: the acceleration divided by
    /// the unit's `perG`, the rotation rate by its `perRadianPerSecond`, as `TraceReader` reads a
    /// trace's columns, so that the same numbers read from a trace or received from a phone make
    /// the same sample.
    @inlinable
    public init(
        time: Double, acceleration: Vector3, in unit: AccelerationUnit, rotationRate: Vector3? = nil,
        in rotationUnit: RotationUnit = .radiansPerSecond
    ) {
        self.init(
            time: time, acceleration: acceleration / unit.perG,
            rotationRate: rotationRate.map { $0 / rotationUnit.perRadianPerSecond })
    }
}
