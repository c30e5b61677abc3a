// MARK: - AxisMap

/// How a device's three raw axes become HitThat's device frame: a permutation with signs.
///
/// HitThat's device frame is the one hid-playstation reports for a DualSense or DualShock 4
/// (x to the right, y up out of the face, z toward the player, for a controller held in both hands);
/// other drivers' axes are mapped onto it by the known-device table, and `--axes` overrides that.
/// The text form lists, for output x, y and z in turn, which raw axis feeds it and with which sign:
/// `"x,-z,y"` means x = raw x, y = −raw z, z = raw y.
public struct AxisMap: Hashable, Sendable, CustomStringConvertible {
    /// One output component: which raw axis (0, 1, 2 for x, y, z) and whether it is negated.
    public struct Component: Hashable, Sendable {
        /// The raw axis index, 0...2.
        public var source: Int
        /// Whether the raw value is negated.
        public var negated: Bool

        /// Creates a component.
        public init(source: Int, negated: Bool = false) {
            self.source = source
            self.negated = negated
        }
    }

    /// The components for output x, y and z.
    public let components: [Component]

    /// The map that leaves the axes as the driver reports them.
    public static let identity = AxisMap(uncheckedComponents: [
        Component(source: 0), Component(source: 1), Component(source: 2),
    ])

    /// For maps written in code; text from users goes through ``init(parsing:)``.
    init(uncheckedComponents: [Component]) { components = uncheckedComponents }

    /// Parses the `--axes` form: three comma-separated terms, each an optional `+` or `-` followed by
    /// `x`, `y` or `z`, every raw axis used once. Spaces around terms are allowed.
    public init(parsing text: String) throws(MotionConfigurationError) {
        var components: [Component] = []
        var column = 1
        for term in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = term.drop { $0 == " " }
            let termColumn = column + (term.count - trimmed.count)
            column += term.count + 1
            var letters = Substring(trimmed.reversed().drop { $0 == " " }.reversed())
            var negated = false
            if let sign = letters.first, sign == "-" || sign == "+" {
                negated = sign == "-"
                letters = letters.dropFirst()
            }
            let sourceIndex: Int? =
                switch letters.lowercased() {
                case "x": 0
                case "y": 1
                case "z": 2
                default: nil
                }
            guard let sourceIndex else {
                throw .invalidAxisMap(
                    text: text, column: termColumn, expected: "x, y or z with an optional sign, found \"\(trimmed)\"")
            }
            guard !components.contains(where: { $0.source == sourceIndex }) else {
                throw .invalidAxisMap(
                    text: text, column: termColumn, expected: "each of x, y, z once, found \(letters) twice")
            }
            components.append(Component(source: sourceIndex, negated: negated))
        }
        guard components.count == 3 else {
            throw .invalidAxisMap(
                text: text, column: 1,
                expected: "three comma-separated terms like \"x,-z,y\", found \(components.count)")
        }
        self.components = components
    }

    /// Whether the map mirrors space (an odd permutation with an even number of negations, or the
    /// reverse). Rotation rates are axial vectors and flip sign under a mirror.
    public var isMirror: Bool {
        let sources = components.map(\.source)
        var inversions = 0
        for i in 0..<3 { for j in i + 1..<3 where sources[i] > sources[j] { inversions += 1 } }
        let negations = components.filter(\.negated).count
        return (inversions + negations) % 2 == 1
    }

    /// Maps raw (x, y, z) into the device frame, scaling by `1 / unitsPer`.
    @inlinable
    public func apply(_ raw: (Double, Double, Double), unitsPer: Double, mirrored: Bool = false) -> MotionVector {
        func component(_ index: Int) -> Double {
            let part = components[index]
            let value = part.source == 0 ? raw.0 : part.source == 1 ? raw.1 : raw.2
            return (part.negated != mirrored ? -value : value) / unitsPer
        }
        return MotionVector(x: component(0), y: component(1), z: component(2))
    }

    /// The `--axes` form, e.g. `x,-z,y`.
    public var description: String {
        components.map { ($0.negated ? "-" : "") + ["x", "y", "z"][$0.source] }.joined(separator: ",")
    }
}

// MARK: - MotionConfigurationError

/// A device or option that cannot be turned into a motion calibration.
public enum MotionConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An `--axes` value that is not a signed permutation of x, y, z.
    case invalidAxisMap(text: String, column: Int, expected: String)
    /// A `--scale` value that is not a positive number.
    case invalidScale(text: String)
    /// Nothing says how many units make one g: no resolution, no known device, no `--scale`.
    case unknownScale(device: String)
    /// The device has none of the axes its acceleration would come from.
    case missingAxes(device: String, axes: [AbsoluteAxis])
    /// A joystick mapping names axes the joystick does not have.
    case missingJoystickAxes(device: String, axes: [UInt8], axisCount: Int)

    /// A one-line message for the user.
    public var description: String {
        switch self {
        case .invalidAxisMap(let text, let column, let expected):
            "--axes \"\(text)\", column \(column): expected \(expected)"
        case .invalidScale(let text):
            "--scale \"\(text)\": expected a positive number of units per g"
        case .unknownScale(let device):
            "\(device.isEmpty ? "the input" : "\"\(device)\""): units per g unknown (no accelerometer resolution, not a known device); give --scale (or --resolution / --device-info for a pipe)"
        case .missingAxes(let device, let axes):
            "\"\(device)\" has no \(axes.map(\.description).joined(separator: "/")) axes to read acceleration from"
        case .missingJoystickAxes(let device, let axes, let axisCount):
            "\"\(device)\" has \(axisCount) axes (0...\(axisCount - 1)); axes \(axes.map(String.init).joined(separator: ", ")) do not exist"
        }
    }
}
