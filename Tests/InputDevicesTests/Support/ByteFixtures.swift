// Byte-level fixtures written field by field, independently of the decoders under test.
// The kernel writes host-order structs; the machines HitThat supports (x86_64, arm64) are little-endian.

enum Bytes {
    static func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// A 24-byte `struct input_event` (64-bit ABI).
    static func event24(
        _ seconds: Int64, _ microseconds: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32
    ) -> [UInt8] {
        little(seconds) + little(microseconds) + little(type) + little(code) + little(value)
    }

    /// A 16-byte `struct input_event` (32-bit ABI).
    static func event16(
        _ seconds: UInt32, _ microseconds: UInt32, _ type: UInt16, _ code: UInt16, _ value: Int32
    ) -> [UInt8] {
        little(seconds) + little(microseconds) + little(type) + little(code) + little(value)
    }

    /// An 8-byte `struct js_event`.
    static func js(_ milliseconds: UInt32, _ value: Int16, _ type: UInt8, _ number: UInt8) -> [UInt8] {
        little(milliseconds) + little(value) + [type, number]
    }
}

/// Raw event numbers from include/uapi/linux/input-event-codes.h, spelled out so tests do not reuse
/// the module's own constants.
enum Raw {
    static let EV_SYN: UInt16 = 0, EV_KEY: UInt16 = 1, EV_ABS: UInt16 = 3, EV_MSC: UInt16 = 4
    static let SYN_REPORT: UInt16 = 0, SYN_DROPPED: UInt16 = 3, MSC_TIMESTAMP: UInt16 = 5
    static let ABS_X: UInt16 = 0, ABS_Y: UInt16 = 1, ABS_Z: UInt16 = 2, ABS_RX: UInt16 = 3, ABS_RY: UInt16 = 4,
        ABS_RZ: UInt16 = 5
    static let JS_EVENT_BUTTON: UInt8 = 0x01, JS_EVENT_AXIS: UInt8 = 0x02, JS_EVENT_INIT: UInt8 = 0x80
}

/// A recorded stream of 24-byte events, written frame by frame.
struct EventScript {
    var bytes: [UInt8] = []
    var eventCount = 0

    /// One frame at `microsecondsSinceStart` (event time 100 s + that): the axis changes, an optional
    /// MSC_TIMESTAMP, and the SYN_REPORT.
    mutating func frame(at microsecondsSinceStart: Int64, _ axes: [(UInt16, Int32)], timestamp: UInt32? = nil) {
        let seconds = 100 + microsecondsSinceStart / 1_000_000, micros = microsecondsSinceStart % 1_000_000
        for (code, value) in axes { add(seconds, micros, Raw.EV_ABS, code, value) }
        if let timestamp { add(seconds, micros, Raw.EV_MSC, Raw.MSC_TIMESTAMP, Int32(bitPattern: timestamp)) }
        add(seconds, micros, Raw.EV_SYN, Raw.SYN_REPORT, 0)
    }

    mutating func add(_ seconds: Int64, _ micros: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
        bytes += Bytes.event24(seconds, micros, type, code, value)
        eventCount += 1
    }
}

/// Whether two lists of times agree to a nanosecond (sums of decimal fractions are not exact in binary).
func close(_ actual: [Double], _ expected: [Double], tolerance: Double = 1e-9) -> Bool {
    actual.count == expected.count && zip(actual, expected).allSatisfy { Swift.abs($0 - $1) <= tolerance }
}
