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
