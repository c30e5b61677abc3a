// MARK: - TraceWriter

/// Writes samples (g, seconds) as a CSV trace in one of the formats `TraceReader` reads, the way
/// the apps that make those files write them.
///
/// ```swift
/// let writer = TraceWriter(.phyphox(.semicolonWithDecimalComma, gravityIncluded: true))
/// let bytes = writer.bytes(samples)
/// ```
public struct TraceWriter: Hashable, Sendable {
    /// A format and the variant of it to write.
    public enum Style: Hashable, Sendable {
        /// `t,x,y,z`: seconds and g, numbers in their shortest exact form.
        case generic
        /// `t (s),x (g),y (g),z (g)`: as `generic`, with the units in the header so that the reader
        /// need not guess them from the data, which it cannot for acceleration without gravity.
        case genericWithUnits
        /// phyphox's "Raw Data.csv": m/s², ten significant digits (`9.364549000E-3`), with the
        /// "Acceleration with g" header or, when `gravityIncluded` is false, the "Linear
        /// Acceleration" one. The samples are written as given; the header only labels them.
        case phyphox(PhyphoxDialect = .comma, gravityIncluded: Bool = true)
        /// Sensor Logger: `time,seconds_elapsed,z,y,x` in m/s², where `seconds_elapsed` is the
        /// sample's time and `time` is `epochNanosecondsAtZero` plus that time in nanoseconds.
        /// Whether gravity is included is told by the file's name, which is the caller's to choose.
        case sensorLogger(epochNanosecondsAtZero: Int64 = 1_700_000_000_000_000_000)
        /// Physics Toolbox Sensor Suite's g-Force meter: `time,gFx,gFy,gFz,TgF` in seconds and g.
        case physicsToolbox
    }

    /// The five ways phyphox exports CSV: a separator, and a decimal comma only where the
    /// separator is not a comma.
    public enum PhyphoxDialect: String, CaseIterable, Hashable, Sendable {
        /// Comma-separated, decimal point.
        case comma
        /// Tab-separated, decimal point.
        case tab
        /// Semicolon-separated, decimal point.
        case semicolon
        /// Tab-separated, decimal comma.
        case tabWithDecimalComma = "tab-decimal-comma"
        /// Semicolon-separated, decimal comma.
        case semicolonWithDecimalComma = "semicolon-decimal-comma"

        /// The field separator.
        public var separator: TraceSeparator {
            switch self {
            case .comma: .comma
            case .tab, .tabWithDecimalComma: .tab
            case .semicolon, .semicolonWithDecimalComma: .semicolon
            }
        }

        /// Whether numbers are written with a decimal comma.
        public var usesDecimalComma: Bool { self == .tabWithDecimalComma || self == .semicolonWithDecimalComma }
    }

    /// What is written.
    public var style: Style
    /// Whether the generic styles write each sample's rotation rate too, as `gx,gy,gz` in rad/s
    /// (zero where a sample has none). The apps' formats keep a gyroscope in a file of its own,
    /// so they write none.
    public var writesRotation: Bool

    /// Creates a writer.
    public init(_ style: Style, rotation: Bool = false) {
        self.style = style
        self.writesRotation = rotation
    }

    /// The format written.
    public var format: TraceFormat {
        switch style {
        case .generic, .genericWithUnits: .generic
        case .phyphox: .phyphox
        case .sensorLogger: .sensorLogger
        case .physicsToolbox: .physicsToolbox
        }
    }

    // MARK: - Writing

    /// The whole file: the header and a row for each sample.
    public func bytes(_ samples: some Sequence<MotionSample>) -> [UInt8] {
        var text = ""
        write(samples, to: &text)
        return Array(text.utf8)
    }

    /// Appends the whole file, the header and a row for each sample, to `text`.
    public func write(_ samples: some Sequence<MotionSample>, to text: inout String) {
        appendHeader(to: &text)
        for sample in samples { appendRow(sample, to: &text) }
    }

    /// Appends the header line, with its `\n`.
    public func appendHeader(to text: inout String) {
        switch style {
        case .generic:
            text += "t,x,y,z" + (writesRotation ? ",gx (rad/s),gy (rad/s),gz (rad/s)\n" : "\n")
        case .genericWithUnits:
            text += "t (s),x (g),y (g),z (g)" + (writesRotation ? ",gx (rad/s),gy (rad/s),gz (rad/s)\n" : "\n")
        case .phyphox(let dialect, let gravityIncluded):
            let axis = gravityIncluded ? "Acceleration" : "Linear Acceleration"
            let columns = [
                "Time (s)", "\(axis) x (m/s^2)", "\(axis) y (m/s^2)", "\(axis) z (m/s^2)",
                "Absolute acceleration (m/s^2)",
            ]
            text += columns.map { "\"\($0)\"" }.joined(separator: dialect.separator.rawValue) + "\n"
        case .sensorLogger:
            text += "time,seconds_elapsed,z,y,x\n"
        case .physicsToolbox:
            text += "time,gFx,gFy,gFz,TgF\n"
        }
    }

    /// Appends one sample's row, with its `\n`.
    public func appendRow(_ sample: MotionSample, to text: inout String) {
        let a = sample.acceleration
        let fields: [String]
        let separator: TraceSeparator
        switch style {
        case .generic, .genericWithUnits:
            let rate = sample.rotationRate ?? .zero
            fields = ([sample.time, a.x, a.y, a.z] + (writesRotation ? [rate.x, rate.y, rate.z] : [])).map(\.description)
            separator = .comma
        case .phyphox(let dialect, _):
            let inMetres = a * standardGravity
            fields = [sample.time, inMetres.x, inMetres.y, inMetres.z, inMetres.length].map {
                let number = Self.scientific($0, significantDigits: 10)
                return dialect.usesDecimalComma ? String(number.map { $0 == "." ? "," : $0 }) : number
            }
            separator = dialect.separator
        case .sensorLogger(let epochNanosecondsAtZero):
            let inMetres = a * standardGravity
            fields =
                [Self.epochNanoseconds(epochNanosecondsAtZero, plus: sample.time)]
                + [sample.time, inMetres.z, inMetres.y, inMetres.x].map(\.description)
            separator = .comma
        case .physicsToolbox:
            fields = [sample.time, a.x, a.y, a.z, a.length].map(\.description)
            separator = .comma
        }
        text += fields.joined(separator: separator.rawValue)
        text += "\n"
    }

    // MARK: - Numbers

    /// `start` plus `seconds` in whole nanoseconds; a time too far out for that is written as a
    /// plain number rather than trapping on overflow.
    static func epochNanoseconds(_ start: Int64, plus seconds: Double) -> String {
        let nanoseconds = seconds * 1e9
        // Rounded by hand: `rounded()` calls libm's `round`, which a binary linking only the
        // standard library does not have.
        if nanoseconds.magnitude < 9e18 {
            let offset = Int64(nanoseconds < 0 ? nanoseconds - 0.5 : nanoseconds + 0.5)
            let (sum, overflow) = start.addingReportingOverflow(offset)
            if !overflow { return String(sum) }
        }
        return (Double(start) + seconds * 1e9).description
    }

    /// `value` in phyphox's notation: one digit, a point, `significantDigits - 1` digits and a
    /// plain exponent (`-1.533477783E-1`, `9.810000000E0`), rounded half up from the shortest
    /// decimal that gives `value` back.
    static func scientific(_ value: Double, significantDigits: Int) -> String {
        guard value.isFinite else { return value.description }
        // The shortest round-trip decimal, as "123.45", "0.00012" or "1.2e-05".
        let shortest = value.magnitude.description
        let parts = shortest.split(separator: "e")
        var exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0]
        let integerDigits =
            mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) }
            ?? mantissa.count
        var digits = mantissa.compactMap(\.wholeNumberValue)
        exponent += integerDigits - 1
        while digits.first == 0 {
            digits.removeFirst()
            exponent -= 1
        }
        if digits.isEmpty {
            digits = [0]
            exponent = 0
        }
        if digits.count > significantDigits {
            let roundsUp = digits[significantDigits] >= 5
            digits.removeLast(digits.count - significantDigits)
            var index = digits.count - 1
            while roundsUp && index >= 0 {
                digits[index] += 1
                guard digits[index] == 10 else { break }
                digits[index] = 0
                if index == 0 {
                    digits.insert(1, at: 0)
                    digits.removeLast()
                    exponent += 1
                }
                index -= 1
            }
        }
        digits += Array(repeating: 0, count: significantDigits - digits.count)
        let written = digits.map(String.init)
        let sign = value < 0 ? "-" : ""
        return sign + written[0] + "." + written.dropFirst().joined() + "E" + String(exponent)
    }
}
