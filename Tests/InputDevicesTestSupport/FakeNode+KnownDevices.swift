// MARK: - Fakes of known controllers

/// Fake nodes like the real ones: names, ids, ranges and scales from the drivers.
extension FakeNode {
    /// hid-playstation's motion node: ±32768 at 8192 per g, gyroscope at 1024 per deg/s, MSC_TIMESTAMP.
    /// EVIOCGABS reports X=100, Y=4096, Z=0 as the "current" state, which a re-read after SYN_DROPPED returns.
    public static func dualSense(_ node: String = "event3", events: [UInt8]) -> FakeNode {
        let accelerometer = [UInt8(0), 1, 2].map {
            FakeNode.Axis(
                code: $0, value: [100, 4096, 0][Int($0)], minimum: -32768, maximum: 32767, fuzz: 16, resolution: 8192)
        }
        let gyroscope = [UInt8(3), 4, 5].map {
            FakeNode.Axis(code: $0, minimum: -2_097_152, maximum: 2_097_152, fuzz: 16, resolution: 1024)
        }
        return .evdev(
            node, name: "Sony Interactive Entertainment DualSense Wireless Controller Motion Sensors",
            id: [0x0005, 0x054C, 0x0CE6, 0x8100], accelerometer: true, axes: accelerometer + gyroscope, timestamp: true,
            events: events)
    }

    /// hid-nintendo's "(IMU)" node: ±32767 at 4096 per g, no MSC_TIMESTAMP here, a report every 15 ms.
    public static func joyCon(events: [UInt8]) -> FakeNode {
        let accelerometer = [UInt8(0), 1, 2].map {
            FakeNode.Axis(code: $0, minimum: -32767, maximum: 32767, resolution: 4096)
        }
        let gyroscope = [UInt8(3), 4, 5].map {
            FakeNode.Axis(code: $0, minimum: -32767 * 1000, maximum: 32767 * 1000, resolution: 14247)
        }
        return .evdev(
            "event5", name: "Nintendo Switch Right Joy-Con (IMU)", id: [0x0005, 0x057E, 0x2007, 0x8001],
            accelerometer: true, axes: accelerometer + gyroscope, events: events)
    }

    /// hid-wiimote's accelerometer: ABS_RX/RY/RZ, −500…500, no property, no resolution.
    public static func wiiRemote(events: [UInt8]) -> FakeNode {
        let axes = [UInt8(3), 4, 5].map { FakeNode.Axis(code: $0, minimum: -500, maximum: 500, fuzz: 2, flat: 4) }
        return .evdev(
            "event7", name: "Nintendo Wii Remote Accelerometer", id: [0x0005, 0x057E, 0x0306, 0x0600],
            accelerometer: false, axes: axes, events: events)
    }

}
