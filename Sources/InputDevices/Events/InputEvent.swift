// MARK: - InputEvent

/// One evdev event: `struct input_event` from include/uapi/linux/input.h.
///
/// The time is kept as whole seconds and microseconds, exactly as the kernel and evemu write it.
public struct InputEvent: Hashable, Sendable, CustomStringConvertible {
    /// Whole seconds of the event time (`tv_sec`).
    public var seconds: Int64
    /// Microseconds within the second (`tv_usec`), 0 ..< 1 000 000.
    public var microseconds: Int64
    /// The event type.
    public var type: EventType
    /// The code within the type (an axis, a `SYN_*` or `MSC_*` code).
    public var code: UInt16
    /// The value: an axis position, a button state, or a timestamp.
    public var value: Int32

    /// Creates an event.
    public init(seconds: Int64, microseconds: Int64, type: EventType, code: UInt16, value: Int32) {
        self.seconds = seconds
        self.microseconds = microseconds
        self.type = type
        self.code = code
        self.value = value
    }

    /// The event time in seconds.
    public var time: Double { Double(seconds) + Double(microseconds) / 1_000_000 }

    /// `sec.usec type code value`, like an evemu `E:` line.
    public var description: String {
        let micros = String(microseconds)
        return "\(seconds).\(String(repeating: "0", count: max(0, 6 - micros.count)))\(micros) \(type) \(code) \(value)"
    }
}

// MARK: - InputEventLayout

/// The two layouts of `struct input_event` (include/uapi/linux/input.h).
///
/// On 64-bit ABIs `tv_sec` and `tv_usec` are 8 bytes each (24-byte events); on 32-bit ABIs, including
/// those with a 64-bit `time_t`, the kernel writes them as 4-byte unsigned longs (16-byte events).
/// A capture taken on one kind of machine and piped into another needs the right layout.
public enum InputEventLayout: Int, Hashable, Sendable, CaseIterable {
    /// 24 bytes: s64 seconds, s64 microseconds, u16 type, u16 code, s32 value.
    case sixtyFourBit = 24
    /// 16 bytes: u32 seconds, u32 microseconds, u16 type, u16 code, s32 value.
    case thirtyTwoBit = 16

    /// The layout of this machine's kernel.
    public static let native: InputEventLayout = MemoryLayout<Int>.size == 8 ? .sixtyFourBit : .thirtyTwoBit

    /// The layout whose events are `eventSize` bytes long, or `nil` for any other size.
    public init?(eventSize: Int) { self.init(rawValue: eventSize) }

    /// The size of one event in bytes.
    public var eventSize: Int { rawValue }
}

// MARK: - InputEventFormat

/// Decodes `struct input_event` records in the machine's byte order (the kernel writes host structs).
public struct InputEventFormat: FixedSizeEventFormat {
    /// The record layout.
    public var layout: InputEventLayout

    /// A format for `layout`.
    public init(layout: InputEventLayout = .native) { self.layout = layout }

    /// The record size.
    public var eventSize: Int { layout.eventSize }

    /// Decodes one record; rejects the type and microsecond values no kernel writes, which is how a
    /// stream read with the wrong layout or from the wrong offset shows itself.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError.Problem) -> InputEvent {
        let seconds: Int64, microseconds: Int64, rest: Int
        switch layout {
        case .sixtyFourBit:
            seconds = bytes.loadUnaligned(fromByteOffset: 0, as: Int64.self)
            microseconds = bytes.loadUnaligned(fromByteOffset: 8, as: Int64.self)
            rest = 16
        case .thirtyTwoBit:
            seconds = Int64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            microseconds = Int64(bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            rest = 8
        }
        let type = EventType(rawValue: bytes.loadUnaligned(fromByteOffset: rest, as: UInt16.self))
        guard type.rawValue <= EventType.maximum.rawValue else {
            throw .invalidField(
                name: "type", value: Int64(type.rawValue),
                expected: "an event type 0...\(EventType.maximum.rawValue) (EV_MAX)")
        }
        guard (0..<1_000_000).contains(microseconds) else {
            throw .invalidField(name: "tv_usec", value: microseconds, expected: "microseconds 0...999999")
        }
        return InputEvent(
            seconds: seconds,
            microseconds: microseconds,
            type: type,
            code: bytes.loadUnaligned(fromByteOffset: rest + 2, as: UInt16.self),
            value: bytes.loadUnaligned(fromByteOffset: rest + 4, as: Int32.self)
        )
    }
}
