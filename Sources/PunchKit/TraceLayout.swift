// MARK: - TraceColumns

/// The header's names of the columns a trace was read from, as written (quotes removed).
public struct TraceColumns: Hashable, Sendable {
    /// The time column.
    public var time: String
    /// The column read as the device's X axis.
    public var x: String
    /// The column read as the device's Y axis.
    public var y: String
    /// The column read as the device's Z axis.
    public var z: String
    /// The gyroscope's columns (X, Y, Z) read beside the acceleration, when the file has them.
    public var rotation: [String]

    /// Creates a set of column names: those of the sensor the file was read for (the
    /// acceleration's, or a gyroscope file's rotation rate), and any rotation read beside them.
    public init(time: String, x: String, y: String, z: String, rotation: [String] = []) {
        self.time = time
        self.x = x
        self.y = y
        self.z = z
        self.rotation = rotation
    }
}

// MARK: - TraceLayout

/// What a header says about the rows under it: which field is which, and whatever the header
/// (or the format, or the file's name) tells about the units.
struct TraceLayout {
    var format: TraceFormat
    var separator: TraceSeparator
    /// The 0-based field of each role: time, x, y, z (of the sensor read), then the rotation's
    /// x, y, z when a gyroscope's columns are read beside the acceleration.
    var fields: [Int]
    /// The header's name of each role's column, in the same order.
    var names: [String]
    var timeUnit: TimeUnit?
    var units: AccelerationUnit?
    /// The rotation rate's unit (of a gyroscope's file, or of the columns beside acceleration).
    var rotationUnit: RotationUnit?
    var gravityIncluded: Bool?
    /// Whether an empty field means "no value here" rather than a broken row: phyphox leaves
    /// fields empty where a sensor delivered nothing, and that is no error in the file.
    var allowsMissingValues: Bool

    /// Whether a gyroscope's columns are read beside the acceleration.
    var hasRotationBeside: Bool { fields.count == 7 }

    var columns: TraceColumns {
        TraceColumns(time: names[0], x: names[1], y: names[2], z: names[3], rotation: Array(names.dropFirst(4)))
    }

    /// For each field up to the last needed one, the role it plays, or -1 when it is ignored.
    var rolesByField: [Int] {
        var roles = Array(repeating: -1, count: (fields.max() ?? -1) + 1)
        for (role, field) in fields.enumerated() { roles[field] = role }
        return roles
    }
}

// MARK: - Reading a header

extension TraceLayout {
    /// The time and axis columns are looked for among this many leading fields. Real headers have
    /// a few dozen at most; taking apart every field of a megabyte-long header took seconds.
    static let maximumHeaderFields = 1000

    /// The layout a header line describes, in the format given or else the first that fits.
    ///
    /// - Parameters:
    ///   - source: the file's name, for errors and because it tells what Sensor Logger's header
    ///     cannot: `TotalAcceleration.csv` includes gravity, `Accelerometer.csv` does not, and
    ///     `Gyroscope.csv` is no acceleration at all.
    ///   - line: the header's line, for errors.
    /// - Throws: `TraceError.Kind.notAcceleration` for another sensor's file (a gyroscope's…),
    ///   `TraceError.Kind.unknownHeader` for a header no format fits.
    static func read(
        header: String, format: TraceFormat?, sensor: MotionSensor = .accelerometer, sharedClock: Bool = false,
        source: String, line: Int
    ) throws(TraceError) -> TraceLayout {
        let separator = detectSeparator(header)
        let names = splitHeader(header, separator: separator, limit: maximumHeaderFields).map(ColumnName.init)
        let candidates = format.map { [$0] } ?? [.sensorLogger, .physicsToolbox, .phyphox, .generic]
        if sensor == .gyroscope {
            guard
                let layout = candidates.lazy.compactMap({
                    matchRotation(names, as: $0, separator: separator, sharedClock: sharedClock, sourceName: source)
                }).first
            else {
                throw TraceError(
                    .unknownHeader, source: source, line: line,
                    expected: "a gyroscope's header: a time column and x, y, z rotation rates "
                        + "(\"X (rad/s)\", \"X-Axis (°/s)\", gx…, or Sensor Logger's Gyroscope.csv)",
                    found: TraceError.quoted(header))
            }
            return layout
        }
        let layout = candidates.lazy.compactMap {
            match(names, as: $0, separator: separator, sharedClock: sharedClock, sourceName: source)
        }.first
        if let (sensor, field) = otherSensor(names, layout: layout, sourceName: source) {
            // The column that says so, or else the file's name.
            let evidence = field.map { names[$0].original } ?? fileName(source)
            throw TraceError(
                .notAcceleration, source: source, line: line, column: field.map { $0 + 1 },
                field: field.map { names[$0].original },
                expected: field == nil
                    ? "acceleration (Sensor Logger's TotalAcceleration.csv or Accelerometer.csv)" : "acceleration",
                found: "\(sensor.description): \(TraceError.quoted(evidence))")
        }
        guard let layout else {
            throw TraceError(
                .unknownHeader, source: source, line: line, expected: expectedHeader(format),
                found: TraceError.quoted(header))
        }
        return layout
    }

    /// What a header for `format` (or any format, when nil) must look like, for messages.
    static func expectedHeader(_ format: TraceFormat?) -> String {
        switch format {
        case nil:
            "a header naming a time column and x, y, z columns (such as t,x,y,z), "
                + "or a phyphox, Sensor Logger or Physics Toolbox header"
        case .generic?:
            "a header with a time column (\"t\", \"time\", \"timestamp\" or \"elapsed\") and x, y, z columns "
                + "(\"x\", \"ax\", \"acc_x\"…)"
        case .phyphox?:
            "a phyphox header (\"Time (s)\",\"Acceleration x (m/s^2)\",…)"
        case .sensorLogger?:
            "a Sensor Logger header (time,seconds_elapsed,z,y,x)"
        case .physicsToolbox?:
            "a Physics Toolbox header (time,gFx,gFy,gFz,TgF)"
        }
    }

    private static func match(
        _ names: [ColumnName], as format: TraceFormat, separator: TraceSeparator, sharedClock: Bool,
        sourceName: String
    ) -> TraceLayout? {
        func first(_ matches: (ColumnName) -> Bool) -> Int? { names.firstIndex(where: matches) }
        func firstAxes(_ matches: (ColumnName, String) -> Bool) -> [Int]? {
            let found = ["x", "y", "z"].map { axis in first { matches($0, axis) } }
            guard let x = found[0], let y = found[1], let z = found[2] else { return nil }
            return [x, y, z]
        }

        let time: Int
        let axes: [Int]
        let timeUnit: TimeUnit?
        let units: AccelerationUnit?
        let gravity: Bool?
        switch format {
        case .sensorLogger:
            guard let elapsed = first({ $0.compact == "secondselapsed" }), let found = firstAxes({ $0.compact == $1 })
            else { return nil }
            (time, axes) = (elapsed, found)
            (timeUnit, units, gravity) = (.seconds, .metersPerSecondSquared, sensorLoggerGravity(sourceName))

        case .physicsToolbox:
            guard let found = first({ $0.compact == "time" }), let foundAxes = firstAxes({ $0.compact == "gf" + $1 })
            else { return nil }
            (time, axes) = (found, foundAxes)
            (timeUnit, units, gravity) = (.seconds, .g, true)

        case .phyphox:
            // "Raw Data.csv" names what it holds: `Acceleration x` with gravity, `Linear
            // Acceleration x` without. A per-sensor export writes `"Time (s)","X (m/s^2)",…` for
            // both experiments, so there the resting magnitude has to tell (gravity nil).
            guard let found = first({ $0.base == "time" }) else { return nil }
            if let withGravity = firstAxes({ $0.base == "acceleration " + $1 }) {
                (axes, gravity) = (withGravity, true)
            } else if let linear = firstAxes({ $0.base == "linear acceleration " + $1 }) {
                (axes, gravity) = (linear, false)
            } else if names[found].unit == "s", let perSensor = firstAxes({ $0.base == $1 && $0.unit == "m/s^2" }) {
                (axes, gravity) = (perSensor, nil)
            } else {
                return nil
            }
            time = found
            timeUnit = names[time].timeUnit ?? .seconds
            units = names[axes[0]].accelerationUnit ?? .metersPerSecondSquared

        case .generic:
            // Also MetaWear/MetaBase exports: `epoch (ms),time (-08:00),elapsed (s),x-axis (g),…`,
            // whose `time` is a wall-clock string and `elapsed` the seconds to use.
            let axisPrefixes = ["", "a", "acc", "accel", "acceleration"]
            guard let found = genericTime(names, sharedClock: sharedClock),
                let foundAxes = firstAxes({ name, axis in
                    axisPrefixes.contains { name.compact == $0 + axis } || name.compact == axis + "axis"
                })
            else { return nil }
            (time, axes) = (found, foundAxes)
            timeUnit = names[time].timeUnit
            units = axes.lazy.compactMap { names[$0].accelerationUnit }.first
            gravity = nil
        }

        // A gyroscope's columns beside the acceleration, when the header has them all three.
        let rotation = ["x", "y", "z"].map { axis in first { $0.isRotation(axis: axis) } }
        let besides = rotation.allSatisfy { $0 != nil } ? rotation.compactMap { $0 } : []
        let fields = [time] + axes + besides
        return TraceLayout(
            format: format, separator: separator, fields: fields, names: fields.map { names[$0].original },
            timeUnit: timeUnit, units: units, rotationUnit: besides.first.flatMap { names[$0].rotationUnit },
            gravityIncluded: gravity, allowsMissingValues: format == .phyphox)
    }

    /// A generic file's time column: `elapsed`, or else `t`, `time` or `timestamp`. MetaBase's
    /// `elapsed (s)` starts at 0 in each sensor's file; where files of one export are to share a
    /// clock, its `epoch (ms)` does.
    private static func genericTime(_ names: [ColumnName], sharedClock: Bool) -> Int? {
        (sharedClock ? names.firstIndex { $0.compact == "epoch" } : nil)
            ?? names.firstIndex { $0.compact == "elapsed" }
            ?? names.firstIndex { ["t", "time", "timestamp"].contains($0.compact) }
    }

    /// The layout of a gyroscope's file in `format`: its time and x, y, z rotation rates.
    private static func matchRotation(
        _ names: [ColumnName], as format: TraceFormat, separator: TraceSeparator, sharedClock: Bool,
        sourceName: String
    ) -> TraceLayout? {
        func axes(_ matches: (ColumnName, String) -> Bool) -> [Int]? {
            let found = ["x", "y", "z"].map { axis in names.firstIndex { matches($0, axis) } }
            guard let x = found[0], let y = found[1], let z = found[2] else { return nil }
            return [x, y, z]
        }
        let time: Int
        let found: [Int]
        let timeUnit: TimeUnit?
        let unit: RotationUnit?
        switch format {
        case .sensorLogger:
            // The very columns of its acceleration files: the file's name says what it holds.
            guard fileName(sourceName).lowercased().contains("gyroscope"),
                let elapsed = names.firstIndex(where: { $0.compact == "secondselapsed" }),
                let rates = axes({ $0.compact == $1 })
            else { return nil }
            (time, found, timeUnit, unit) = (elapsed, rates, .seconds, .radiansPerSecond)
        case .phyphox:
            // Per-sensor export: `"Time (s)","X (rad/s)",…`; "Raw Data.csv": `Gyroscope x (rad/s)`.
            guard let clock = names.firstIndex(where: { $0.base == "time" }),
                let rates = axes({ ($0.base == $1 || $0.base == "gyroscope " + $1) && $0.rotationUnit != nil })
            else { return nil }
            (time, found, timeUnit) = (clock, rates, names[clock].timeUnit ?? .seconds)
            unit = names[rates[0]].rotationUnit
        case .physicsToolbox:
            return nil
        case .generic:
            // MetaBase's `X-Axis (°/s)`; its unit, where another encoding garbled the degree sign,
            // from the data: the file's name already said it is a gyroscope's.
            guard let clock = genericTime(names, sharedClock: sharedClock),
                let rates = axes({ $0.isRotation(axis: $1) || ($0.compact == $1 + "axis" && $0.accelerationUnit == nil) })
            else { return nil }
            (time, found, timeUnit) = (clock, rates, names[clock].timeUnit)
            unit = found.lazy.compactMap { names[$0].rotationUnit }.first
        }
        let fields = [time] + found
        return TraceLayout(
            format: format, separator: separator, fields: fields, names: fields.map { names[$0].original },
            timeUnit: timeUnit, units: nil, rotationUnit: unit, gravityIncluded: nil,
            allowsMissingValues: format == .phyphox)
    }

    /// Sensor Logger writes the same columns for total and for linear acceleration; only the
    /// file's name tells them apart.
    static func sensorLoggerGravity(_ sourceName: String) -> Bool? {
        let name = fileName(sourceName).lowercased()
        if name.contains("totalacceleration") { return true }
        if name.contains("accelerometer") { return false }
        return nil
    }

    /// The sensor a file is from when its header or name says it is not an accelerometer, and
    /// the 0-based field that says so (nil when the name does).
    private static func otherSensor(
        _ names: [ColumnName], layout: TraceLayout?, sourceName: String
    ) -> (OtherSensor, field: Int?)? {
        // A rotation rate where the axes were taken from is a gyroscope's, whatever the columns
        // are called. When no format fits (a phyphox `Gyroscope x (rad/s)`), so is one anywhere,
        // unless acceleration is there too: that header's fault is elsewhere (its time column).
        let suspects =
            layout.map { Array($0.fields[1...3]) }
            ?? (names.contains(where: \.mayBeAcceleration) ? [] : Array(names.indices))
        if let field = suspects.first(where: { names[$0].isRotationRate }) { return (.gyroscope, field) }
        // Sensor Logger (the one format whose every file has `seconds_elapsed`) writes a
        // gyroscope's or a magnetometer's file with the very columns of its acceleration files.
        guard names.contains(where: { $0.compact == "secondselapsed" }), sensorLoggerGravity(sourceName) == nil
        else { return nil }
        let name = fileName(sourceName).lowercased()
        return OtherSensor.allCases.first { name.contains($0.sensorLoggerName) }.map { ($0, nil) }
    }

    /// A path's last component: `exports/run 3/Gyroscope.csv` gives `Gyroscope.csv`.
    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? ""
    }

    /// The separator that occurs most often outside quotes; on a tie, tab before semicolon
    /// before comma, since a tab or semicolon file may still have commas (decimal commas).
    static func detectSeparator(_ header: String) -> TraceSeparator {
        var counts: [TraceSeparator: Int] = [:]
        var inQuotes = false
        for byte in header.utf8 {
            if byte == TraceByte.quote { inQuotes.toggle() }
            guard !inQuotes else { continue }
            for separator in TraceSeparator.allCases where separator.byte == byte {
                counts[separator, default: 0] += 1
            }
        }
        let preference: [TraceSeparator] = [.tab, .semicolon, .comma]
        return preference.max { counts[$0, default: 0] < counts[$1, default: 0] } ?? .comma
    }

    /// A header's first `limit` fields, quotes and surrounding spaces removed.
    static func splitHeader(_ header: String, separator: TraceSeparator, limit: Int) -> [String] {
        var fields: [String] = []
        var current = ""
        var inQuotes = false
        for character in header {
            if character == "\"" {
                inQuotes.toggle()
            } else if !inQuotes && character.asciiValue == separator.byte {
                fields.append(current)
                if fields.count == limit { break }
                current = ""
            } else {
                current.append(character)
            }
        }
        if fields.count < limit { fields.append(current) }
        return fields.map { String($0.trimmingSpaces) }
    }
}

// MARK: - OtherSensor

/// A sensor whose files are refused because they hold no acceleration to find punches in.
enum OtherSensor: CaseIterable {
    /// Rotation rate, in rad/s or deg/s: the file most often given by mistake.
    case gyroscope
    /// The magnetic field, in µT.
    case magnetometer
    /// The device's attitude as angles or a quaternion.
    case orientation
    /// Sensor Logger's `Gravity.csv`: gravity alone, the device's motion filtered out, so it
    /// holds no punch. Refused rather than read as a device forever at rest.
    case gravity

    /// The word in the name of Sensor Logger's file for the sensor (`Gyroscope.csv`,
    /// `GyroscopeUncalibrated.csv`…), lowercased.
    var sensorLoggerName: String {
        switch self {
        case .gyroscope: "gyroscope"
        case .magnetometer: "magnetometer"
        case .orientation: "orientation"
        case .gravity: "gravity"
        }
    }

    /// The kind of file, for messages: `a gyroscope (rotation rate) file`.
    var description: String {
        switch self {
        case .gyroscope: "a gyroscope (rotation rate) file"
        case .magnetometer: "a magnetometer (magnetic field) file"
        case .orientation: "an orientation (attitude) file"
        case .gravity: "a gravity-only file (the motion filtered out)"
        }
    }
}

// MARK: - ColumnName

/// A header field taken apart into its name and the unit written after it:
/// `Linear Acceleration x (m/s^2)`, `time_ms`, `timestamp [ns]`, `ax (g)`.
struct ColumnName {
    /// As written, quotes removed.
    var original: String
    /// Lowercased, without the unit: `linear acceleration x`.
    var base: String
    /// `base` without spaces, underscores, hyphens and dots: `linearaccelerationx`.
    var compact: String
    /// The unit, lowercased and without spaces: `m/s^2`, or nil when none is written.
    var unit: String?

    init(_ original: String) {
        self.original = original
        var base = Substring(original.lowercased())
        var unit: Substring?
        if let last = base.last, last == ")" || last == "]",
            let open = base.lastIndex(of: last == ")" ? "(" : "[")
        {
            unit = base[base.index(after: open)..<base.index(before: base.endIndex)]
            base = base[..<open]
        } else if let underscore = base.lastIndex(of: "_") {
            let suffix = base[base.index(after: underscore)...]
            if Self.timeUnits[String(suffix)] != nil || Self.accelerationUnits[String(suffix)] != nil
                || Self.rotationRateUnits[String(suffix)] != nil
            {
                unit = suffix
                base = base[..<underscore]
            }
        }
        self.base = String(base.trimmingSpaces)
        self.compact = String(base.filter { !" _-.".contains($0) })
        self.unit = unit.map { String($0.filter { $0 != " " }) }
    }

    var timeUnit: TimeUnit? { unit.flatMap { Self.timeUnits[$0] } }
    /// The unit of a rotation rate's column, when its header writes one.
    var rotationUnit: RotationUnit? { unit.flatMap { Self.rotationRateUnits[$0] } }
    /// Whether the column is a gyroscope's rate about `axis` by its name: `gx`, `gyro_x`,
    /// `gyroscope x`, `wx` (Physics Toolbox), `rotationRateX`, or `x` with a rotation unit.
    func isRotation(axis: String) -> Bool {
        ["g", "gyro", "gyroscope", "gyr", "w", "rotationrate"].contains { compact == $0 + axis }
            || (compact == axis && rotationUnit != nil)
    }
    /// Whether the column is a gyroscope's: a rotation rate by its unit (`X (rad/s)`) or by its
    /// name (`gyro_x`, `Gyroscope x`).
    var isRotationRate: Bool {
        rotationUnit != nil || compact.hasPrefix("gyro")
    }
    var accelerationUnit: AccelerationUnit? { unit.flatMap { Self.accelerationUnits[$0] } }
    /// Whether the column may be acceleration, by its unit or its name (`ax`, `acc_x`, `Linear
    /// Acceleration x`).
    var mayBeAcceleration: Bool {
        accelerationUnit != nil || compact.contains("acc") || ["ax", "ay", "az"].contains(compact)
    }

    static let timeUnits: [String: TimeUnit] = [
        "s": .seconds, "sec": .seconds, "secs": .seconds, "seconds": .seconds,
        "ms": .milliseconds, "msec": .milliseconds, "millis": .milliseconds, "milliseconds": .milliseconds,
        "us": .microseconds, "µs": .microseconds, "μs": .microseconds, "usec": .microseconds,
        "micros": .microseconds, "microseconds": .microseconds,
        "ns": .nanoseconds, "nsec": .nanoseconds, "nanos": .nanoseconds, "nanoseconds": .nanoseconds,
    ]

    static let rotationRateUnits: [String: RotationUnit] = [
        "rad/s": .radiansPerSecond, "rad/sec": .radiansPerSecond, "rads": .radiansPerSecond,
        "deg/s": .degreesPerSecond, "°/s": .degreesPerSecond, "º/s": .degreesPerSecond, "˚/s": .degreesPerSecond,
        "dps": .degreesPerSecond,
        "deg/sec": .degreesPerSecond, "degs": .degreesPerSecond,
    ]

    static let accelerationUnits: [String: AccelerationUnit] = [
        "g": .g,
        "m/s^2": .metersPerSecondSquared, "m/s²": .metersPerSecondSquared, "m/s2": .metersPerSecondSquared,
        "ms2": .metersPerSecondSquared, "ms^-2": .metersPerSecondSquared, "m/s/s": .metersPerSecondSquared,
    ]
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else { return self[endIndex...] }
        return self[start...last]
    }
}
