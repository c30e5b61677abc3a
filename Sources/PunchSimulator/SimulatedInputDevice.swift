import InputDevices
import PunchKit

// MARK: - Simulated input device

/// How `simulate` writes a session as an input device would report it: a generic accelerometer
/// node (`INPUT_PROP_ACCELEROMETER`) with 16-bit ABS_X/Y/Z at a given number of units per g, the
/// sensor's own clock in MSC_TIMESTAMP, and a SYN_REPORT closing each sample's frame.
public enum SimulatedInputDevice {
    /// The device's description, with `unitsPerG` as the axes' resolution.
    public static func description(unitsPerG: Int32) -> DeviceDescription {
        var properties = KernelBitmap(bytes: [])
        properties.insert(Int(InputProperty.accelerometer.rawValue))
        let axis = AbsoluteAxisInfo(minimum: -32768, maximum: 32767, fuzz: 0, flat: 0, resolution: unitsPerG)
        return DeviceDescription(
            name: "HitThat Simulated Motion Sensors",
            id: InputID(bus: 0x06, vendor: 0x1209, product: 0x0001, version: 1),
            properties: properties, axes: [.x: axis, .y: axis, .z: axis])
    }

    /// The event types and codes the device reports, for an evemu header.
    public static let codes: [EventType: KernelBitmap] = [
        .synchronization: bitmap([Int(EventCode.synReport), Int(EventCode.synDropped)]),
        .absolute: bitmap([Int(AbsoluteAxis.x.rawValue), Int(AbsoluteAxis.y.rawValue), Int(AbsoluteAxis.z.rawValue)]),
        .miscellaneous: bitmap([Int(EventCode.mscTimestamp)]),
    ]

    private static func bitmap(_ bits: [Int]) -> KernelBitmap {
        var bitmap = KernelBitmap(bytes: [])
        for bit in bits { bitmap.insert(bit) }
        return bitmap
    }
}

/// Turns samples into the events a device reports for them. Like evdev, an axis whose value has
/// not changed is not reported again.
public struct InputEventEncoder: Sendable {
    /// Axis units per g.
    public let unitsPerG: Double
    private var last: [Int32?] = [nil, nil, nil]

    /// Creates an encoder for axes at `unitsPerG` units per g.
    public init(unitsPerG: Double) { self.unitsPerG = unitsPerG }

    /// The events of one sample's frame.
    public mutating func events(for sample: MotionSample) -> [InputEvent] {
        let microseconds = Int64((sample.time * 1_000_000).rounded())
        let seconds = microseconds / 1_000_000
        let fraction = microseconds % 1_000_000
        func event(_ type: EventType, _ code: UInt16, _ value: Int32) -> InputEvent {
            InputEvent(seconds: seconds, microseconds: fraction, type: type, code: code, value: value)
        }
        var frame: [InputEvent] = []
        let components = [sample.acceleration.x, sample.acceleration.y, sample.acceleration.z]
        for (index, component) in components.enumerated() {
            let scaled = (component * unitsPerG).rounded()
            let value = Int32(max(-32768, min(32767, scaled)))
            if last[index] != value {
                frame.append(event(.absolute, UInt16(index), value))
                last[index] = value
            }
        }
        frame.append(
            event(.miscellaneous, EventCode.mscTimestamp, Int32(bitPattern: UInt32(truncatingIfNeeded: microseconds))))
        frame.append(event(.synchronization, EventCode.synReport, 0))
        return frame
    }
}
