import InputDevices
import PunchKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Opening a live source

/// How to read a live motion source beyond its path (an evdev node, a joystick node, raw
/// `input_event` records): what `hitthat listen` and `hitthat play` take on the command line, so
/// that both read a controller the same way.
public struct MotionSourceSettings: Hashable, Sendable {
    /// How raw events are laid out (their size), for raw events only.
    public var eventLayout: InputEventLayout
    /// The axis map and units per g given by hand: they override a node's own resolution and the
    /// known device's map and scale. A joystick node has no units of its own, so it needs
    /// `unitsPerG`.
    public var overrides: MotionOverrides
    /// An evemu-describe file naming the device behind raw events, whose known calibration they
    /// then get; `nil` for an unknown device.
    public var deviceInfoPath: String?

    /// Creates settings; the defaults read a node as its driver and the known devices describe it.
    public init(
        eventLayout: InputEventLayout = .native, overrides: MotionOverrides = MotionOverrides(),
        deviceInfoPath: String? = nil
    ) {
        self.eventLayout = eventLayout
        self.overrides = overrides
        self.deviceInfoPath = deviceInfoPath
    }

    /// Opens `path`: raw `input_event` records (from standard input for `-`) when `rawEvents`, else
    /// a joystick node (named `…/jsN`) or an evdev node. Reads go through an
    /// `InterruptibleDescriptor`, so that a signal ends a blocked read.
    /// - Throws: ``MotionSourceError`` for a joystick without units per g (before opening it);
    ///   `InputDeviceError`; `MotionConfigurationError`; `EvemuSyntaxError` for a malformed
    ///   device-info file.
    public func open(_ path: String, rawEvents: Bool) throws -> any MotionFrameSource {
        if rawEvents {
            let descriptor: FileDescriptor
            do {
                descriptor = path == "-" ? .standardInput : try FileDescriptor.openReadOnly(path)
            } catch {
                throw InputDeviceError(error, path: path, operation: .open)
            }
            let device = try deviceInfoPath.map { try EvemuRecording.load(path: $0).device } ?? .unknown
            return EvdevMotionReader(
                source: InterruptibleDescriptor(descriptor), sourceName: path, layout: eventLayout,
                assembler: EvdevFrameAssembler(calibration: try MotionCalibration.resolve(for: device, overrides: overrides)))
        }
        if Self.namesJoystick(path) {
            guard let unitsPerG = overrides.unitsPerG else { throw MotionSourceError.joystickWithoutScale(path: path) }
            let joystick = try JoystickNode.open(path)
            return try joystick.motionReader(
                mapping: JoystickMotionMapping(axisMap: overrides.axisMap ?? .identity, unitsPerG: unitsPerG),
                source: InterruptibleDescriptor(joystick.descriptor))
        }
        let evdev = try EvdevNode.open(path)
        return try evdev.motionReader(overrides: overrides, source: InterruptibleDescriptor(evdev.descriptor))
    }

    /// Whether `path` names a joystick node (`js0`, `/dev/input/js1`): the joystick interface is
    /// read differently from evdev, and only its name tells it.
    static func namesJoystick(_ path: String) -> Bool {
        (path.split(separator: "/").last ?? "").hasPrefix("js")
    }
}

/// A live motion source that cannot be opened as asked.
public enum MotionSourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The joystick interface reports no units: without units per g its values mean nothing.
    case joystickWithoutScale(path: String)

    /// A one-line message for the user.
    public var description: String {
        switch self {
        case .joystickWithoutScale(let path): "\(path): the joystick interface has no units: give --scale (units per g)"
        }
    }
}

// MARK: - A player's sensor

/// A player's motion sensor as a path names it: a trace, an input node, or raw events. A device
/// and a trace are told apart by the path alone, so that `play --sensor PATH` takes either.
public enum SensorInput: Hashable, Sendable {
    /// A trace (CSV and the other formats `TraceFile` reads) in a file, or `-` for standard input.
    case trace(path: String)
    /// An input node (evdev or joystick), read as `listen` reads it.
    case inputNode(path: String)
    /// Raw `input_event` records in a file, or `-` for standard input.
    case rawEvents(path: String)

    /// What `path` holds: raw events when `rawEvents` says so; else an input node when it is
    /// named like one (`event3`, `js0`, even before it exists, so that a missing node fails as a
    /// node does) or is a character device; else a trace.
    public init(path: String, rawEvents: Bool = false) {
        if rawEvents {
            self = .rawEvents(path: path)
        } else if Self.isNamedLikeANode(path) || Self.isCharacterDevice(path) {
            self = .inputNode(path: path)
        } else {
            self = .trace(path: path)
        }
    }

    /// The path it is read from.
    public var path: String {
        switch self {
        case .trace(let path), .inputNode(let path), .rawEvents(let path): path
        }
    }

    private static func isNamedLikeANode(_ path: String) -> Bool {
        (path.split(separator: "/").last ?? "").wholeMatch(of: /(event|js)[0-9]+/) != nil
    }

    private static func isCharacterDevice(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR
    }
}

/// How to read a trace beyond its path: `TraceFile`'s options, as one value to pass along.
public struct TraceSettings: Hashable, Sendable {
    /// The format to read, or `nil` to recognise it from the header.
    public var format: TraceFormat?
    /// The acceleration's unit, or `nil` to take it from the header, format or data.
    public var units: AccelerationUnit?
    /// Whether malformed rows are skipped and counted instead of stopping the read.
    public var lenient: Bool

    /// Creates settings; the defaults recognise everything and stop at a malformed row.
    public init(format: TraceFormat? = nil, units: AccelerationUnit? = nil, lenient: Bool = false) {
        self.format = format
        self.units = units
        self.lenient = lenient
    }
}

extension TraceFile {
    /// Opens the trace at `path` (standard input for `-`) as `settings` say.
    /// - Throws: ``TraceInputError`` when the file cannot be opened.
    public convenience init(path: String, settings: TraceSettings) throws(TraceInputError) {
        try self.init(path: path, format: settings.format, units: settings.units, lenient: settings.lenient)
    }
}

extension MotionFeed {
    /// The samples of a player's sensor, opened now so that a missing file or device fails at
    /// once: a recording (a trace or raw events in a regular file) is read whole now, and a
    /// malformed one fails now too; anything else (a node, a pipe, a terminal) is the player
    /// moving now, read live.
    /// - Throws: ``TraceInputError`` for a trace that cannot be read or is malformed; for a node or
    ///   raw events what ``MotionSourceSettings/open(_:rawEvents:)`` and reading them throw.
    public static func opening(
        _ sensor: SensorInput, trace: TraceSettings = TraceSettings(),
        motion: MotionSourceSettings = MotionSourceSettings(), pace: Pace = .standard
    ) throws -> MotionFeed {
        switch sensor {
        case .trace(let path):
            let file = try TraceFile(path: path, settings: trace)
            return file.isRecording ? try MotionFeed(recording: file, pace: pace) : MotionFeed(live: file, pace: pace)
        case .inputNode(let path):
            return MotionFeed(live: FrameSamples(try motion.open(path, rawEvents: false)), pace: pace)
        case .rawEvents(let path):
            let frames = FrameSamples(try motion.open(path, rawEvents: true))
            return isRegularFile(path)
                ? try MotionFeed(recording: frames, pace: pace) : MotionFeed(live: frames, pace: pace)
        }
    }
}
