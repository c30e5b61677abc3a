// The numbers below are the kernel's user-space ABI, from include/uapi/linux/input-event-codes.h;
// Documentation/input/event-codes.rst explains what each means.

// MARK: - EventType

/// An evdev event type (`EV_*`).
public struct EventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The raw type number.
    public var rawValue: UInt16
    /// Wraps a raw type number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `EV_SYN`: frame markers (`SYN_REPORT`) and overflow notices (`SYN_DROPPED`).
    public static let synchronization = EventType(rawValue: 0x00)
    /// `EV_KEY`: buttons.
    public static let key = EventType(rawValue: 0x01)
    /// `EV_REL`: relative axes.
    public static let relative = EventType(rawValue: 0x02)
    /// `EV_ABS`: absolute axes, where accelerometers and gyroscopes report.
    public static let absolute = EventType(rawValue: 0x03)
    /// `EV_MSC`: miscellaneous, including the sensor's own clock (`MSC_TIMESTAMP`).
    public static let miscellaneous = EventType(rawValue: 0x04)
    /// `EV_MAX`: the largest event type the kernel defines; anything above means a garbled stream.
    public static let maximum = EventType(rawValue: 0x1F)

    /// The kernel's name for the type, or its number.
    public var description: String {
        switch self {
        case .synchronization: "EV_SYN"
        case .key: "EV_KEY"
        case .relative: "EV_REL"
        case .absolute: "EV_ABS"
        case .miscellaneous: "EV_MSC"
        default: "EV_\(rawValue)"
        }
    }
}

// MARK: - Event codes

/// Codes of `EV_SYN` and `EV_MSC` events that the frame assembler acts on.
public enum EventCode {
    /// `SYN_REPORT`: the end of one frame of simultaneous changes.
    public static let synReport: UInt16 = 0
    /// `SYN_DROPPED`: the client's buffer overran; events were lost (event-codes.rst, "EV_SYN").
    public static let synDropped: UInt16 = 3
    /// `MSC_TIMESTAMP`: the device's clock in microseconds, a u32 that wraps and may reset.
    public static let mscTimestamp: UInt16 = 5
}

// MARK: - AbsoluteAxis

/// An absolute axis code (`ABS_*`).
public struct AbsoluteAxis: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The raw axis code.
    public var rawValue: UInt16
    /// Wraps a raw axis code.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `ABS_X`: with `INPUT_PROP_ACCELEROMETER`, acceleration along x.
    public static let x = AbsoluteAxis(rawValue: 0x00)
    /// `ABS_Y`.
    public static let y = AbsoluteAxis(rawValue: 0x01)
    /// `ABS_Z`.
    public static let z = AbsoluteAxis(rawValue: 0x02)
    /// `ABS_RX`: with `INPUT_PROP_ACCELEROMETER`, rotation rate about x (hid-wiimote reports acceleration here).
    public static let rx = AbsoluteAxis(rawValue: 0x03)
    /// `ABS_RY`.
    public static let ry = AbsoluteAxis(rawValue: 0x04)
    /// `ABS_RZ`.
    public static let rz = AbsoluteAxis(rawValue: 0x05)
    /// `ABS_CNT`: the number of absolute axis codes.
    public static let count = 0x40

    /// The kernel's name for the axis, or its number.
    public var description: String {
        let names = ["ABS_X", "ABS_Y", "ABS_Z", "ABS_RX", "ABS_RY", "ABS_RZ"]
        return Int(rawValue) < names.count ? names[Int(rawValue)] : "ABS_0x" + String(rawValue, radix: 16)
    }

    /// Orders axes by code.
    public static func < (lhs: AbsoluteAxis, rhs: AbsoluteAxis) -> Bool { lhs.rawValue < rhs.rawValue }
}

// MARK: - InputProperty

/// A device property bit (`INPUT_PROP_*`).
public struct InputProperty: RawRepresentable, Hashable, Sendable {
    /// The raw property bit number.
    public var rawValue: UInt16
    /// Wraps a raw property bit number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `INPUT_PROP_ACCELEROMETER`: the directional axes are an accelerometer, and `resolution` is in
    /// units per g (ABS_X/Y/Z) and units per deg/s (ABS_RX/RY/RZ), per include/uapi/linux/input.h.
    public static let accelerometer = InputProperty(rawValue: 0x06)
    /// `INPUT_PROP_CNT`: the number of property bits.
    public static let count = 0x20
}

// MARK: - Bitmaps

/// A bitmap as the kernel returns it from `EVIOCGBIT` and `EVIOCGPROP`: bit *n* is bit `n % 8` of byte `n / 8`.
///
/// The kernel fills `unsigned long` words; on little-endian machines that is the same byte order.
public struct KernelBitmap: Hashable, Sendable {
    /// The bitmap's bytes.
    public var bytes: [UInt8]

    /// Wraps bitmap bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Whether bit `bit` is set; bits past the end are clear.
    public func contains(_ bit: Int) -> Bool {
        guard bit >= 0, bit / 8 < bytes.count else { return false }
        return bytes[bit / 8] & (1 << UInt8(bit % 8)) != 0
    }

    /// The numbers of all set bits, ascending.
    public var setBits: [Int] { (0..<bytes.count * 8).filter(contains) }

    /// Sets bit `bit`, growing the bitmap as needed.
    public mutating func insert(_ bit: Int) {
        while bytes.count <= bit / 8 { bytes.append(0) }
        bytes[bit / 8] |= 1 << UInt8(bit % 8)
    }
}
