// MARK: - IOControlRequest

/// An ioctl request number, built the way the kernel's `_IOC` macro builds it
/// (include/uapi/asm-generic/ioctl.h: direction in bits 30–31, size in bits 16–29, type in bits 8–15,
/// number in bits 0–7).
///
/// The evdev requests are declared in include/uapi/linux/input.h and the joydev ones in
/// include/uapi/linux/joystick.h; Documentation/input/input.rst and joydev/joystick-api.rst describe them.
public struct IOControlRequest: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The request number passed to `ioctl(2)`.
    public var rawValue: UInt

    /// Wraps a raw request number.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Which way the argument's bytes travel.
    public struct Direction: OptionSet, Hashable, Sendable {
        /// The raw two direction bits.
        public var rawValue: UInt
        /// Creates a direction from its raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// User space to kernel (`_IOC_WRITE`).
        public static let write = Direction(rawValue: 1)
        /// Kernel to user space (`_IOC_READ`).
        public static let read = Direction(rawValue: 2)
    }

    /// Builds a request from its four fields.
    public init(direction: Direction, type: UInt8, number: UInt8, size: Int) {
        rawValue = direction.rawValue << 30 | UInt(size & 0x3FFF) << 16 | UInt(type) << 8 | UInt(number)
    }

    /// The direction bits.
    public var direction: Direction { Direction(rawValue: rawValue >> 30 & 0x3) }
    /// The driver's type letter (`E` for evdev, `j` for joydev).
    public var type: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 8) }
    /// The request's number within its type.
    public var number: UInt8 { UInt8(truncatingIfNeeded: rawValue) }
    /// The argument size in bytes the kernel copies.
    public var size: Int { Int(rawValue >> 16 & 0x3FFF) }

    /// The request in hexadecimal, as the kernel headers would spell it.
    public var description: String { "0x" + String(rawValue, radix: 16) }
}

// MARK: - evdev and joydev requests

extension IOControlRequest {
    private static let evdev = UInt8(ascii: "E")
    private static let joydev = UInt8(ascii: "j")

    /// `EVIOCGID`: the device's `struct input_id` (bus, vendor, product, version; four u16).
    public static let evdevID = IOControlRequest(direction: .read, type: evdev, number: 0x02, size: 8)

    /// `EVIOCGNAME(len)`: the device name, NUL-terminated, truncated to `length` bytes.
    public static func evdevName(length: Int) -> IOControlRequest {
        IOControlRequest(direction: .read, type: evdev, number: 0x06, size: length)
    }

    /// `EVIOCGPROP(len)`: the device's `INPUT_PROP_*` bitmap.
    public static func evdevProperties(length: Int) -> IOControlRequest {
        IOControlRequest(direction: .read, type: evdev, number: 0x09, size: length)
    }

    /// `EVIOCGBIT(ev, len)`: the bitmap of codes the device supports for event type `eventType`;
    /// type 0 gives the bitmap of supported event types.
    public static func evdevBits(eventType: EventType, length: Int) -> IOControlRequest {
        IOControlRequest(direction: .read, type: evdev, number: 0x20 + UInt8(eventType.rawValue & 0x1F), size: length)
    }

    /// `EVIOCGABS(abs)`: the axis's `struct input_absinfo` (value, minimum, maximum, fuzz, flat,
    /// resolution: six s32).
    public static func evdevAbsoluteInfo(axis: AbsoluteAxis) -> IOControlRequest {
        IOControlRequest(direction: .read, type: evdev, number: 0x40 + UInt8(axis.rawValue & 0x3F), size: 24)
    }

    /// `EVIOCGRAB`: grab (argument 1) or release (0) the device. Declared `_IOW(int)` but evdev takes
    /// the int by value, so it is used with ``FileDescriptor/control(_:value:)``.
    public static let evdevGrab = IOControlRequest(direction: .write, type: evdev, number: 0x90, size: 4)

    /// `JSIOCGAXES`: the number of axes (one u8).
    public static let joystickAxes = IOControlRequest(direction: .read, type: joydev, number: 0x11, size: 1)

    /// `JSIOCGNAME(len)`: the joystick's name, NUL-terminated, truncated to `length` bytes.
    public static func joystickName(length: Int) -> IOControlRequest {
        IOControlRequest(direction: .read, type: joydev, number: 0x13, size: length)
    }
}
