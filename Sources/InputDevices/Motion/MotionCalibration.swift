// MARK: - MotionOverrides

/// The user's corrections: `--axes`, `--scale` and the gyroscope's scale.
public struct MotionOverrides: Hashable, Sendable {
    /// Replaces the known device's axis map.
    public var axisMap: AxisMap?
    /// Accelerometer units per g; replaces the node's resolution and the table's scale.
    public var unitsPerG: Double?
    /// Gyroscope units per deg/s.
    public var unitsPerDegreePerSecond: Double?

    /// Creates overrides; all `nil` means "use what the device and the table say".
    public init(axisMap: AxisMap? = nil, unitsPerG: Double? = nil, unitsPerDegreePerSecond: Double? = nil) {
        self.axisMap = axisMap
        self.unitsPerG = unitsPerG
        self.unitsPerDegreePerSecond = unitsPerDegreePerSecond
    }

    /// Parses `--axes` and `--scale` option text (either may be `nil`).
    public init(axes: String?, scale: String?) throws(MotionConfigurationError) {
        self.init()
        if let axes { axisMap = try AxisMap(parsing: axes) }
        if let scale {
            guard let value = Double(scale), value > 0, value.isFinite else { throw .invalidScale(text: scale) }
            unitsPerG = value
        }
    }
}

// MARK: - MotionCalibration

/// Everything needed to turn raw axis values into a ``MotionFrame``: which axes, which map, which scale.
public struct MotionCalibration: Hashable, Sendable {
    /// The raw axes acceleration comes from, in raw x, y, z order (three).
    public let accelerationAxes: [AbsoluteAxis]
    /// The raw axes rotation comes from (three), when there is a gyroscope with a known scale.
    public let rotationAxes: [AbsoluteAxis]?
    /// Raw → device frame.
    public var axisMap: AxisMap
    /// Accelerometer units per g.
    public var unitsPerG: Double
    /// Gyroscope units per deg/s (set whenever `rotationAxes` is).
    public var unitsPerDegreePerSecond: Double?
    /// The known device it was resolved from, if any.
    public var knownDevice: KnownDevice?

    /// Creates a calibration directly. The axis lists must hold three axes each (a programming error
    /// otherwise: they come from code, never from user input).
    public init(
        accelerationAxes: [AbsoluteAxis] = [.x, .y, .z], rotationAxes: [AbsoluteAxis]? = nil,
        axisMap: AxisMap = .identity,
        unitsPerG: Double, unitsPerDegreePerSecond: Double? = nil, knownDevice: KnownDevice? = nil
    ) {
        precondition(
            accelerationAxes.count == 3 && (rotationAxes?.count ?? 3) == 3, "three acceleration and rotation axes")
        self.accelerationAxes = accelerationAxes
        self.rotationAxes = unitsPerDegreePerSecond == nil ? nil : rotationAxes
        self.axisMap = axisMap
        self.unitsPerG = unitsPerG
        self.unitsPerDegreePerSecond = rotationAxes == nil ? nil : unitsPerDegreePerSecond
        self.knownDevice = knownDevice
    }

    /// Works out the calibration for `device`.
    ///
    /// Scale, in order: the override; the node's `resolution` when it has `INPUT_PROP_ACCELEROMETER`
    /// (units per g by include/uapi/linux/input.h); the known device's scale. Axes and map come from the
    /// known device, else ABS_X/Y/Z (ABS_RX/RY/RZ for rotation) as the driver reports them.
    public static func resolve(
        for device: DeviceDescription, overrides: MotionOverrides = MotionOverrides()
    ) throws(MotionConfigurationError) -> MotionCalibration {
        let known = KnownDevice.match(device)
        let accelerationAxes = known?.accelerationAxes ?? [.x, .y, .z]
        func resolution(_ axis: AbsoluteAxis) -> Double? {
            guard device.isAccelerometer, let value = device.axes[axis]?.resolution, value > 0 else { return nil }
            return Double(value)
        }
        guard let unitsPerG = overrides.unitsPerG ?? resolution(accelerationAxes[0]) ?? known?.unitsPerG else {
            throw .unknownScale(device: device.name)
        }
        // A description without axes (a bare pipe) cannot be checked; one with axes must have them all.
        let missing = accelerationAxes.filter { device.axes[$0] == nil }
        if !device.axes.isEmpty, !missing.isEmpty {
            throw .missingAxes(device: device.name, axes: missing)
        }
        var rotationAxes: [AbsoluteAxis]? = known?.rotationAxes ?? (device.isAccelerometer ? [.rx, .ry, .rz] : nil)
        if let axes = rotationAxes, axes.contains(where: { device.axes[$0] == nil }) { rotationAxes = nil }
        let unitsPerDegreePerSecond =
            overrides.unitsPerDegreePerSecond ?? rotationAxes.flatMap { resolution($0[0]) }
            ?? known?.unitsPerDegreePerSecond
        return MotionCalibration(
            accelerationAxes: accelerationAxes,
            rotationAxes: rotationAxes,
            axisMap: overrides.axisMap ?? known?.axisMap ?? .identity,
            unitsPerG: unitsPerG,
            unitsPerDegreePerSecond: unitsPerDegreePerSecond,
            knownDevice: known
        )
    }

    /// Every raw axis the calibration reads.
    public var axesRead: [AbsoluteAxis] { accelerationAxes + (rotationAxes ?? []) }
}
