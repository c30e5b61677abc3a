// MARK: - EvdevNode

/// An open evdev node (`/dev/input/event*`) and what it says about itself.
///
/// The node is opened read-only; ``close()`` it when done (a reader made from it does not close it).
public struct EvdevNode: Sendable {
    /// The path it was opened from.
    public let path: String
    /// The open descriptor.
    public let descriptor: FileDescriptor
    /// Name, ids, properties and axes.
    public let device: DeviceDescription

    /// Opens `path` and queries it.
    /// - Throws: ``InputDeviceError``: `.notFound`, `.permissionDenied` (with the group to join),
    ///   `.notAnInputDevice` (`ENOTTY`), `.unplugged`.
    public static func open(_ path: String) throws(InputDeviceError) -> EvdevNode {
        try openNode(path) { descriptor throws(InputDeviceError) in
            EvdevNode(path: path, descriptor: descriptor, device: try DeviceDescription.query(descriptor, path: path))
        }
    }

    /// The current values of `axes` (`EVIOCGABS`).
    public func axisValues(_ axes: [AbsoluteAxis]) throws(InputDeviceError) -> [AbsoluteAxis: Int32] {
        var values: [AbsoluteAxis: Int32] = [:]
        for axis in axes {
            do {
                values[axis] = try descriptor.evdevAbsoluteInfo(axis).value
            } catch {
                throw InputDeviceError(error, path: path, operation: .query)
            }
        }
        return values
    }

    /// A frame reader for this node: the calibration is resolved from the device and `overrides`, the
    /// initial axis state is read now, and after `SYN_DROPPED` the state is read again.
    /// - Parameter source: how to read the descriptor (pass an ``InterruptibleDescriptor`` to let Ctrl-C
    ///   interrupt a blocked read).
    public func motionReader<Source: ByteSource>(
        overrides: MotionOverrides = MotionOverrides(), source: Source
    ) throws -> EvdevMotionReader<Source> {
        let calibration = try MotionCalibration.resolve(for: device, overrides: overrides)
        let assembler = EvdevFrameAssembler(
            calibration: calibration,
            initialValues: try axisValues(calibration.axesRead),
            readAxisState: { axes throws in try self.axisValues(axes) }
        )
        return EvdevMotionReader(source: source, sourceName: path, layout: .native, assembler: assembler)
    }

    /// A frame reader that reads the descriptor directly, retrying interrupted reads.
    public func motionReader(overrides: MotionOverrides = MotionOverrides()) throws -> EvdevMotionReader<FileDescriptor>
    {
        try motionReader(overrides: overrides, source: descriptor)
    }

    /// Closes the node.
    public func close() {
        try? descriptor.close()
    }
}

// MARK: - JoystickNode

/// An open joydev node (`/dev/input/js*`).
public struct JoystickNode: Sendable {
    /// The path it was opened from.
    public let path: String
    /// The open descriptor.
    public let descriptor: FileDescriptor
    /// `JSIOCGNAME`.
    public let name: String
    /// `JSIOCGAXES`.
    public let axisCount: Int

    /// Opens `path` and queries its name and axis count.
    public static func open(_ path: String) throws(InputDeviceError) -> JoystickNode {
        try openNode(path) { descriptor throws(InputDeviceError) in
            do throws(Errno) {
                return JoystickNode(
                    path: path, descriptor: descriptor, name: try descriptor.joystickName(),
                    axisCount: try descriptor.joystickAxisCount())
            } catch {
                throw InputDeviceError(error, path: path, operation: .query)
            }
        }
    }

    /// A frame reader for this node with the given mapping (`--scale` is required for joydev).
    /// - Parameter source: how to read the descriptor, as for ``EvdevNode/motionReader(overrides:source:)``.
    /// - Throws: ``MotionConfigurationError/missingJoystickAxes(device:axes:axisCount:)`` when the
    ///   mapping names axes the joystick lacks (no frame would ever come).
    public func motionReader<Source: ByteSource>(
        mapping: JoystickMotionMapping, source: Source
    ) throws(MotionConfigurationError) -> JoystickMotionReader<Source> {
        let missing = mapping.axes.filter { Int($0) >= axisCount }
        guard missing.isEmpty else { throw .missingJoystickAxes(device: name, axes: missing, axisCount: axisCount) }
        return JoystickMotionReader(source: source, sourceName: path, mapping: mapping)
    }

    /// A frame reader that reads the descriptor directly, retrying interrupted reads.
    public func motionReader(
        mapping: JoystickMotionMapping
    ) throws(MotionConfigurationError) -> JoystickMotionReader<FileDescriptor> {
        try motionReader(mapping: mapping, source: descriptor)
    }

    /// Closes the node.
    public func close() {
        try? descriptor.close()
    }
}

// MARK: - Opening

/// Opens `path` read-only and hands the descriptor to `query`, closing it again if the query fails.
private func openNode<Node>(
    _ path: String, _ query: (FileDescriptor) throws(InputDeviceError) -> Node
) throws(InputDeviceError) -> Node {
    let descriptor: FileDescriptor
    do {
        descriptor = try FileDescriptor.openReadOnly(path)
    } catch {
        throw InputDeviceError(error, path: path, operation: .open)
    }
    do {
        return try query(descriptor)
    } catch {
        try? descriptor.close()
        throw error
    }
}
