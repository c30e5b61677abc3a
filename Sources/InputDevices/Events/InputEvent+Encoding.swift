// MARK: - Encoding events

extension InputEvent {
    /// Appends the event as `struct input_event` in `layout`, little-endian (x86_64 and arm64):
    /// what a read of an evdev node returns, for pipes, fixtures and replays.
    public func append(to bytes: inout [UInt8], layout: InputEventLayout) {
        func put<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        switch layout {
        case .sixtyFourBit:
            put(seconds)
            put(microseconds)
        case .thirtyTwoBit:
            put(UInt32(truncatingIfNeeded: seconds))
            put(UInt32(truncatingIfNeeded: microseconds))
        }
        put(type.rawValue)
        put(code)
        put(value)
    }

    /// The event as an evemu `E:` line: `E: sec.usec type code value`.
    public var evemuLine: String {
        let micros = String(microseconds)
        return "E: \(seconds).\(String(repeating: "0", count: max(0, 6 - micros.count)))\(micros) "
            + "\(hex(type.rawValue, digits: 4)) \(hex(code, digits: 4)) \(value)"
    }
}

// MARK: - Encoding a device

extension EvemuRecording {
    /// The `N:`, `I:`, `P:`, `B:` and `A:` lines that describe `device` in an evemu recording,
    /// `codes` giving each event type's supported codes.
    public static func header(for device: DeviceDescription, codes: [EventType: KernelBitmap]) -> String {
        let id = device.id
        var lines = [
            "# EVEMU 1.3",
            "N: \(device.name)",
            "I: \(hex(id.bus, digits: 4)) \(hex(id.vendor, digits: 4)) \(hex(id.product, digits: 4)) \(hex(id.version, digits: 4))",
            "P: " + bytes(device.properties.bytes, count: 8),
        ]
        for (type, bitmap) in codes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            lines.append("B: \(hex(type.rawValue, digits: 2)) " + bytes(bitmap.bytes, count: bitmap.bytes.count))
        }
        for (axis, info) in device.sortedAxes {
            lines.append(
                "A: \(hex(axis.rawValue, digits: 2)) \(info.minimum) \(info.maximum) \(info.fuzz) \(info.flat) \(info.resolution)"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func bytes(_ values: [UInt8], count: Int) -> String {
        (0..<max(count, 1)).map { hex(values.indices.contains($0) ? values[$0] : 0, digits: 2) }.joined(separator: " ")
    }
}

/// `value` in lower-case hex, zero-padded to `digits`.
private func hex(_ value: some BinaryInteger, digits: Int) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}
