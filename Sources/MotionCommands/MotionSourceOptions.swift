import ArgumentParser
import InputDevices
import MotionInput

// MARK: - MotionSourceOptions

/// How to read a live motion source (an evdev node, a joystick node, raw events), shared by
/// `listen` and `play` so that both read a controller the same way: the options, parsed into
/// `MotionInput`'s `MotionSourceSettings`, which opens the source.
package struct MotionSourceOptions: ParsableArguments {
    package init() {}

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

    package func validate() throws {
        guard InputEventLayout(eventSize: eventSize) != nil else {
            throw ValidationError("--event-size must be 24 or 16.")
        }
        if let resolution, !(resolution > 0 && resolution.isFinite) {
            throw ValidationError("--resolution must be a positive number of units per g.")
        }
    }

    /// The settings these options give.
    /// - Throws: `MotionConfigurationError` for an `--axes` that is not a signed permutation.
    package func settings() throws -> MotionSourceSettings {
        var overrides = try MotionOverrides(axes: axes, scale: nil)
        overrides.unitsPerG = resolution
        return MotionSourceSettings(
            eventLayout: InputEventLayout(eventSize: eventSize) ?? .native, overrides: overrides,
            deviceInfoPath: deviceInfo)
    }
}
