// MARK: - JoystickEvent

/// One joydev event: `struct js_event` from include/uapi/linux/joystick.h (8 bytes: u32 time in ms,
/// s16 value, u8 type, u8 number). Documentation/input/joydev/joystick-api.rst describes the stream.
public struct JoystickEvent: Hashable, Sendable {
    /// What changed.
    public enum Kind: UInt8, Hashable, Sendable {
        /// `JS_EVENT_BUTTON`.
        case button = 0x01
        /// `JS_EVENT_AXIS`.
        case axis = 0x02
    }

    /// `JS_EVENT_INIT`, or-ed into the type of the synthetic events that report the current state.
    static let initFlag: UInt8 = 0x80

    /// Milliseconds on the driver's clock (wraps after about 49 days).
    public var milliseconds: UInt32
    /// The new value: an axis position scaled to ±32767 by joydev's correction, or 0/1 for a button.
    public var value: Int16
    /// Axis or button.
    public var kind: Kind
    /// Whether this is a synthetic "initial state" event (`JS_EVENT_INIT`). joydev sends one per axis and
    /// button on open, and sends the whole set again when the client's buffer overflowed.
    public var isInitialState: Bool
    /// The axis or button number.
    public var number: UInt8

    /// Creates an event.
    public init(milliseconds: UInt32, value: Int16, kind: Kind, isInitialState: Bool, number: UInt8) {
        self.milliseconds = milliseconds
        self.value = value
        self.kind = kind
        self.isInitialState = isInitialState
        self.number = number
    }
}

// MARK: - JoystickEventFormat

/// Decodes 8-byte `struct js_event` records in the machine's byte order.
public struct JoystickEventFormat: FixedSizeEventFormat {
    /// Creates the format.
    public init() {}

    /// Always 8.
    public var eventSize: Int { 8 }

    /// Decodes one record; a type that is neither axis nor button (with or without INIT) is an error.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError.Problem) -> JoystickEvent {
        let type = bytes[6]
        guard let kind = JoystickEvent.Kind(rawValue: type & ~JoystickEvent.initFlag) else {
            throw .invalidField(
                name: "type", value: Int64(type),
                expected: "0x01 (button) or 0x02 (axis), optionally or-ed with 0x80 (init)")
        }
        return JoystickEvent(
            milliseconds: bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self),
            value: bytes.loadUnaligned(fromByteOffset: 4, as: Int16.self),
            kind: kind,
            isInitialState: type & JoystickEvent.initFlag != 0,
            number: bytes[7]
        )
    }
}
