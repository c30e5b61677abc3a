import Glibc

// MARK: - DiscoveredDevice

/// One motion-capable node found by ``InputDeviceDiscovery``.
public struct DiscoveredDevice: Hashable, Sendable {
    /// Which interface the node belongs to.
    public enum Kind: Hashable, Sendable {
        /// An evdev node (`event*`): its description and the calibration it resolves to, or why not.
        case evdev(DeviceDescription, calibration: Result<MotionCalibration, MotionConfigurationError>)
        /// A joydev node (`js*`): name and axis count (joydev has no units).
        case joystick(name: String, axisCount: Int)
    }

    /// The node's path.
    public var path: String
    /// What the node is.
    public var kind: Kind

    /// The device name.
    public var name: String {
        switch kind {
        case .evdev(let device, _): device.name
        case .joystick(let name, _): name
        }
    }
}

// MARK: - InputDeviceDiscovery

/// Finds motion sensors in an input directory (`/dev/input`, or a test's fake one).
public enum InputDeviceDiscovery {
    /// What a scan found.
    public struct Report: Hashable, Sendable {
        /// Motion-capable nodes: evdev nodes with `INPUT_PROP_ACCELEROMETER` or matching a known device,
        /// and every joydev node, in node-number order.
        public var devices: [DiscoveredDevice] = []
        /// Nodes that could not be opened or queried (e.g. no permission: the error names the group).
        public var failures: [InputDeviceError] = []
        /// Evdev nodes that were read and are not motion sensors (keyboards, mice, gamepad buttons).
        public var otherNodeCount = 0
    }

    /// Scans `directory` for `event*` and `js*` nodes.
    /// - Throws: ``InputDeviceError`` only when the directory itself cannot be read.
    public static func scan(directory: String = "/dev/input") throws(InputDeviceError) -> Report {
        var report = Report()
        for name in try nodeNames(in: directory) {
            let path = directory + "/" + name
            if name.hasPrefix("event") {
                do {
                    let node = try EvdevNode.open(path)
                    node.close()
                    guard node.device.isAccelerometer || KnownDevice.match(node.device) != nil else {
                        report.otherNodeCount += 1
                        continue
                    }
                    let calibration = Result { () throws(MotionConfigurationError) in
                        try MotionCalibration.resolve(for: node.device)
                    }
                    report.devices.append(
                        DiscoveredDevice(path: path, kind: .evdev(node.device, calibration: calibration)))
                } catch {
                    report.failures.append(error)
                }
            } else {
                do {
                    let node = try JoystickNode.open(path)
                    node.close()
                    report.devices.append(
                        DiscoveredDevice(path: path, kind: .joystick(name: node.name, axisCount: node.axisCount)))
                } catch {
                    report.failures.append(error)
                }
            }
        }
        return report
    }

    /// The `event<N>` and `js<N>` entries of `directory`, events first, each by number.
    static func nodeNames(in directory: String) throws(InputDeviceError) -> [String] {
        guard let handle = opendir(directory) else {
            throw InputDeviceError(Errno.current, path: directory, operation: .open)
        }
        defer { closedir(handle) }
        var found: [(prefix: String, number: Int, name: String)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            for prefix in ["event", "js"] where name.hasPrefix(prefix) {
                if let number = Int(name.dropFirst(prefix.count)), number >= 0 {
                    found.append((prefix, number, name))
                }
            }
        }
        return found.sorted { ($0.prefix == "event" ? 0 : 1, $0.number) < ($1.prefix == "event" ? 0 : 1, $1.number) }
            .map(\.name)
    }
}
