import InputDevices
import PunchKit

// MARK: - Simulated input device

/// How `simulate` writes a session as an input device would report it: a generic accelerometer
/// node (`INPUT_PROP_ACCELEROMETER`) with 16-bit ABS_X/Y/Z at a given number of units per g (and,
/// with a gyroscope, ABS_RX/RY/RZ at a number of units per °/s, as the kernel's motion-sensor
/// nodes report them), the sensor's own clock in MSC_TIMESTAMP, and a SYN_REPORT closing each
/// sample's frame.
public enum SimulatedInputDevice {
    /// The device's description, with `unitsPerG` as the acceleration axes' resolution and
    /// `unitsPerDegreePerSecond`, when given, as the rotation axes'.
    public static func description(unitsPerG: Int32, unitsPerDegreePerSecond: Int32? = nil) -> DeviceDescription {
        var properties = KernelBitmap(bytes: [])
        properties.insert(Int(InputProperty.accelerometer.rawValue))
        let axis = AbsoluteAxisInfo(minimum: -32768, maximum: 32767, fuzz: 0, flat: 0, resolution: unitsPerG)
        var axes: [AbsoluteAxis: AbsoluteAxisInfo] = [.x: axis, .y: axis, .z: axis]
        if let unitsPerDegreePerSecond {
            let limit = rotationLimit(unitsPerDegreePerSecond: Double(unitsPerDegreePerSecond))
            let rotation = AbsoluteAxisInfo(
                minimum: -limit, maximum: limit, fuzz: 0, flat: 0, resolution: unitsPerDegreePerSecond)
            for rotationAxis in rotationAxes { axes[rotationAxis] = rotation }
        }
        return DeviceDescription(
            name: "HitThat Simulated Motion Sensors",
            id: InputID(bus: 0x06, vendor: 0x1209, product: 0x0001, version: 1),
            properties: properties, axes: axes)
    }

    /// The axes a gyroscope's rotation rate is reported on.
    static let rotationAxes: [AbsoluteAxis] = [.rx, .ry, .rz]

    /// The rotation axes' full scale, in their units: ±2,048 °/s, as a DualSense reports it
    /// (hid-playstation's gyroscope range), so 32-bit where 16 bits would stop at 32 °/s.
    static func rotationLimit(unitsPerDegreePerSecond: Double) -> Int32 {
        Int32(min(2048 * unitsPerDegreePerSecond, Double(Int32.max)))
    }

    /// The event types and codes the device reports, for an evemu header.
    public static func codes(gyroscope: Bool) -> [EventType: KernelBitmap] {
        let motionAxes: [AbsoluteAxis] = [.x, .y, .z] + (gyroscope ? rotationAxes : [])
        return [
            .synchronization: bitmap([Int(EventCode.synReport), Int(EventCode.synDropped)]),
            .absolute: bitmap(motionAxes.map { Int($0.rawValue) }),
            .miscellaneous: bitmap([Int(EventCode.mscTimestamp)]),
        ]
    }

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
    /// Rotation axis units per °/s, where the samples' rotation rates are reported.
    public let unitsPerDegreePerSecond: Double?
    private var last: [Int32?] = [nil, nil, nil, nil, nil, nil]

    /// Creates an encoder for axes at `unitsPerG` units per g and, when given, rotation axes at
    /// `unitsPerDegreePerSecond` units per °/s.
    public init(unitsPerG: Double, unitsPerDegreePerSecond: Double? = nil) {
        self.unitsPerG = unitsPerG
        self.unitsPerDegreePerSecond = unitsPerDegreePerSecond
    }

    /// The events of one sample's frame.
    public mutating func events(for sample: MotionSample) -> [InputEvent] {
        let microseconds = Int64((sample.time * 1_000_000).rounded())
        let seconds = microseconds / 1_000_000
        let fraction = microseconds % 1_000_000
        func event(_ type: EventType, _ code: UInt16, _ value: Int32) -> InputEvent {
            InputEvent(seconds: seconds, microseconds: fraction, type: type, code: code, value: value)
        }
        var frame: [InputEvent] = []
        let accelerationLimit = 32767.0
        var scaled = [sample.acceleration.x, sample.acceleration.y, sample.acceleration.z].map {
            max(-accelerationLimit - 1, min(accelerationLimit, $0 * unitsPerG))
        }
        var codes = [AbsoluteAxis.x, .y, .z]
        if let unitsPerDegreePerSecond {
            let limit = Double(SimulatedInputDevice.rotationLimit(unitsPerDegreePerSecond: unitsPerDegreePerSecond))
            let rate = (sample.rotationRate ?? .zero) * (180 / Double.pi * unitsPerDegreePerSecond)
            scaled += [rate.x, rate.y, rate.z].map { max(-limit, min(limit, $0)) }
            codes += SimulatedInputDevice.rotationAxes
        }
        for (index, component) in scaled.enumerated() {
            let value = Int32(component.rounded())
            if last[index] != value {
                frame.append(event(.absolute, codes[index].rawValue, value))
                last[index] = value
            }
        }
        frame.append(
            event(.miscellaneous, EventCode.mscTimestamp, Int32(bitPattern: UInt32(truncatingIfNeeded: microseconds))))
        frame.append(event(.synchronization, EventCode.synReport, 0))
        return frame
    }
}
