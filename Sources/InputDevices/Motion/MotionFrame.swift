// MARK: - MotionVector

/// Three components in HitThat's device frame (see ``AxisMap``).
public struct MotionVector: Hashable, Sendable, CustomStringConvertible {
    /// Component along the device's x axis.
    public var x: Double
    /// Component along the device's y axis.
    public var y: Double
    /// Component along the device's z axis.
    public var z: Double

    /// Creates a vector.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// `(x, y, z)`.
    public var description: String { "(\(x), \(y), \(z))" }
}

// MARK: - MotionFrame

/// One motion sample: everything a device reported between two `SYN_REPORT`s, in physical units.
///
/// This is what `hitthat listen` turns into a `PunchKit.MotionSample`
/// (`MotionSample(time: frame.time, acceleration: Vector3(a.x, a.y, a.z))`).
public struct MotionFrame: Hashable, Sendable, CustomStringConvertible {
    /// Seconds: the device's clock (`MSC_TIMESTAMP`, unwrapped) when it has one, else the event time.
    /// Never decreases within one stream.
    public var time: Double
    /// Acceleration in g, gravity included, in the device frame after the axis map.
    public var acceleration: MotionVector
    /// Rotation rate in degrees per second, when the device has a gyroscope with a known scale.
    public var rotation: MotionVector?

    /// Creates a frame.
    public init(time: Double, acceleration: MotionVector, rotation: MotionVector? = nil) {
        self.time = time
        self.acceleration = acceleration
        self.rotation = rotation
    }

    /// `t=… a=(…) [r=(…)]`.
    public var description: String {
        "t=\(time) a=\(acceleration)" + (rotation.map { " r=\($0)" } ?? "")
    }
}
