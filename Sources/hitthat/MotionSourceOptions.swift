import ArgumentParser
import InputDevices
import PunchKit

// MARK: - MotionSourceOptions

/// How to read a live motion source (an evdev node, a joystick node, raw events), shared by
/// `listen` and `play` so that both read a controller the same way.
struct MotionSourceOptions: ParsableArguments {
    @Option(name: .customLong("event-size"), help: "Bytes per raw event on a pipe: 24 (64-bit) or 16 (32-bit).")
    var eventSize = InputEventLayout.native.rawValue

    @Option(
        name: [.customLong("scale"), .customLong("resolution")],
        help:
            "Accelerometer units per g: needed for a pipe or a joystick node; overrides a node's own resolution and the known device's scale."
    )
    var resolution: Double?

    @Option(name: .customLong("device-info"), help: "An evemu-describe file naming the device behind a pipe.")
    var deviceInfo: String?

    @Option(help: "The device axes as x, y, z, e.g. \"x,-z,y\" (the known device's map otherwise).")
    var axes: String?

    func validate() throws {
        guard InputEventLayout(eventSize: eventSize) != nil else {
            throw ValidationError("--event-size must be 24 or 16.")
        }
        if let resolution, !(resolution > 0 && resolution.isFinite) {
            throw ValidationError("--resolution must be a positive number of units per g.")
        }
    }

    /// The axis map and scale given on the command line.
    func overrides() throws -> MotionOverrides {
        var overrides = try MotionOverrides(axes: axes, scale: nil)
        overrides.unitsPerG = resolution
        return overrides
    }

    // MARK: - Opening

    /// Opens `path`: raw `input_event` records (from standard input for `-`) when `rawEvents`, else a
    /// joystick node (`…/jsN`) or an evdev node. Reads go through an `InterruptibleDescriptor`, so
    /// that a signal ends a blocked read.
    /// - Throws: `Reported` after saying what is missing; `InputDeviceError`; `MotionConfigurationError`.
    func open(_ path: String, rawEvents: Bool) throws -> any MotionFrameSource {
        if rawEvents {
            let descriptor: FileDescriptor
            do {
                descriptor = path == "-" ? .standardInput : try FileDescriptor.openReadOnly(path)
            } catch {
                throw InputDeviceError(error, path: path, operation: .open)
            }
            let device = try deviceInfo.map { try EvemuRecording.load(path: $0).device } ?? .unknown
            return EvdevMotionReader(
                source: InterruptibleDescriptor(descriptor), sourceName: path,
                layout: InputEventLayout(eventSize: eventSize) ?? .native,
                assembler: EvdevFrameAssembler(
                    calibration: try MotionCalibration.resolve(for: device, overrides: overrides())))
        }
        if (path.split(separator: "/").last ?? "").hasPrefix("js") {
            guard let resolution else {
                printError("\(path): the joystick interface has no units: give --scale (units per g)")
                throw Reported(status: .failure)
            }
            let joystick = try JoystickNode.open(path)
            let map = try axes.map { try AxisMap(parsing: $0) } ?? .identity
            return try joystick.motionReader(
                mapping: JoystickMotionMapping(axisMap: map, unitsPerG: resolution),
                source: InterruptibleDescriptor(joystick.descriptor))
        }
        let evdev = try EvdevNode.open(path)
        return try evdev.motionReader(overrides: overrides(), source: InterruptibleDescriptor(evdev.descriptor))
    }
}
