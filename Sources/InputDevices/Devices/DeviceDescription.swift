// MARK: - DeviceDescription

/// What an evdev node says about itself: from its ioctls, or from an evemu header.
public struct DeviceDescription: Hashable, Sendable {
    /// The device name (`EVIOCGNAME`, evemu `N:`).
    public var name: String
    /// Bus, vendor, product, version (`EVIOCGID`, evemu `I:`).
    public var id: InputID
    /// The `INPUT_PROP_*` bitmap (`EVIOCGPROP`, evemu `P:`).
    public var properties: KernelBitmap
    /// The absolute axes and their ranges (`EVIOCGBIT(EV_ABS)` + `EVIOCGABS`, evemu `A:`), by code.
    public var axes: [AbsoluteAxis: AbsoluteAxisInfo]

    /// Creates a description.
    public init(
        name: String, id: InputID, properties: KernelBitmap = KernelBitmap(bytes: []),
        axes: [AbsoluteAxis: AbsoluteAxisInfo] = [:]
    ) {
        self.name = name
        self.id = id
        self.properties = properties
        self.axes = axes
    }

    /// A description that says nothing, for a pipe of raw events without `--device-info`.
    public static let unknown = DeviceDescription(name: "", id: InputID(bus: 0, vendor: 0, product: 0, version: 0))

    /// Whether the node has `INPUT_PROP_ACCELEROMETER`.
    public var isAccelerometer: Bool { properties.contains(Int(InputProperty.accelerometer.rawValue)) }

    /// The axes sorted by code, for listing.
    public var sortedAxes: [(axis: AbsoluteAxis, info: AbsoluteAxisInfo)] {
        axes.sorted { $0.key < $1.key }.map { (axis: $0.key, info: $0.value) }
    }

    /// Queries an open evdev node.
    /// - Throws: ``InputDeviceError``: `.notAnInputDevice` when the first query fails with `ENOTTY`.
    public static func query(_ descriptor: FileDescriptor, path: String) throws(InputDeviceError) -> DeviceDescription {
        do {
            let name = try descriptor.evdevName()
            var axes: [AbsoluteAxis: AbsoluteAxisInfo] = [:]
            let types = try descriptor.evdevSupportedCodes(of: EventType(rawValue: 0))
            if types.contains(Int(EventType.absolute.rawValue)) {
                for code in try descriptor.evdevSupportedCodes(of: .absolute).setBits where code < AbsoluteAxis.count {
                    let axis = AbsoluteAxis(rawValue: UInt16(code))
                    axes[axis] = try descriptor.evdevAbsoluteInfo(axis)
                }
            }
            return DeviceDescription(
                name: name, id: try descriptor.evdevID(), properties: try descriptor.evdevProperties(), axes: axes)
        } catch {
            throw InputDeviceError(error, path: path, operation: .query)
        }
    }
}
