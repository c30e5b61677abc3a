// MARK: - TraceFormat

/// The layouts of accelerometer CSV files that PunchKit reads and writes.
public enum TraceFormat: String, CaseIterable, Hashable, Sendable {
    /// A plain table: a time column (`t`, `time` or `timestamp`) and `x,y,z` (or `ax,ay,az`)
    /// columns, with units in the header (`time_ms`, `x (g)`) or recognised from the values.
    case generic
    /// phyphox's "Raw Data.csv": `"Time (s)","Acceleration x (m/s^2)",…` (gravity included) or
    /// `"Linear Acceleration x (m/s^2)",…` (gravity removed); or its per-sensor export,
    /// `"Time (s)","X (m/s^2)",…`, the same with or without gravity (the data tells). Separated by
    /// commas, tabs or semicolons, possibly with decimal commas.
    case phyphox
    /// Sensor Logger: `time,seconds_elapsed,z,y,x` in m/s²; `TotalAcceleration.csv` includes
    /// gravity, `Accelerometer.csv` does not.
    case sensorLogger = "sensor-logger"
    /// Physics Toolbox Sensor Suite's g-Force meter: `time,gFx,gFy,gFz,TgF`, seconds and g,
    /// gravity included.
    case physicsToolbox = "physics-toolbox"
}

// MARK: - AccelerationUnit

/// The unit a trace's acceleration is written in.
public enum AccelerationUnit: String, CaseIterable, Hashable, Sendable {
    /// Multiples of standard gravity.
    case g
    /// Metres per second squared.
    case metersPerSecondSquared = "ms2"

    /// How many of this unit make one g.
    public var perG: Double {
        switch self {
        case .g: 1
        case .metersPerSecondSquared: standardGravity
        }
    }
}

// MARK: - MotionSensor

/// The sensor whose readings a trace file is read for.
public enum MotionSensor: String, CaseIterable, Hashable, Sendable {
    /// Acceleration, in g or m/s²: what punches are found in. A file may carry a gyroscope's
    /// columns beside it (a generic `t,ax,ay,az,gx,gy,gz`), read too.
    case accelerometer
    /// Rotation rate, in rad/s or °/s: one file of an export whose acceleration is in another
    /// (Sensor Logger's and phyphox's `Gyroscope.csv`, MetaBase's `…_Gyroscope_….csv`).
    case gyroscope
}

// MARK: - RotationUnit

/// The unit a trace's rotation rate is written in.
public enum RotationUnit: String, CaseIterable, Hashable, Sendable {
    /// Radians per second, as phones report it.
    case radiansPerSecond = "rad/s"
    /// Degrees per second, as MetaWear sensors and game controllers report it.
    case degreesPerSecond = "°/s"

    /// How many of this unit make one radian per second.
    public var perRadianPerSecond: Double {
        switch self {
        case .radiansPerSecond: 1
        case .degreesPerSecond: 180 / Double.pi
        }
    }

    /// The unit that makes sense of a rotation rate's largest length in an unknown unit: no
    /// arm turns at 40 rad/s (2,300 °/s, beyond most gyroscopes' range), while a hand that
    /// moves at all turns at more than 40 °/s.
    static func guess(largestRate: Double) -> RotationUnit {
        largestRate > 40 ? .degreesPerSecond : .radiansPerSecond
    }
}

// MARK: - TimeUnit

/// The unit of a trace's time column.
public enum TimeUnit: String, CaseIterable, Hashable, Sendable {
    /// Seconds.
    case seconds = "s"
    /// Milliseconds.
    case milliseconds = "ms"
    /// Microseconds.
    case microseconds = "us"
    /// Nanoseconds.
    case nanoseconds = "ns"

    /// How many of this unit make one second.
    public var perSecond: Double {
        switch self {
        case .seconds: 1
        case .milliseconds: 1e3
        case .microseconds: 1e6
        case .nanoseconds: 1e9
        }
    }
}

// MARK: - TraceSeparator

/// The character between a trace's fields.
public enum TraceSeparator: String, CaseIterable, Hashable, Sendable {
    /// `,` — numbers then use a decimal point.
    case comma = ","
    /// A tab — numbers may use a decimal point or a decimal comma.
    case tab = "\t"
    /// `;` — numbers may use a decimal point or a decimal comma.
    case semicolon = ";"

    var byte: UInt8 {
        switch self {
        case .comma: TraceByte.comma
        case .tab: TraceByte.tab
        case .semicolon: TraceByte.semicolon
        }
    }
}
