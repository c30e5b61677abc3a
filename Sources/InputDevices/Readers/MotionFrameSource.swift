// MARK: - MotionFrameSource

/// Anything that yields motion frames one at a time: a live node, a pipe, a joystick, a recording.
///
/// Making one for each input of `hitthat listen`:
/// ```swift
/// let overrides = try MotionOverrides(axes: axesOption, scale: scaleOption)
/// // An evdev node: calibration from the node, EVIOCGABS state, re-read after SYN_DROPPED.
/// let node = try EvdevNode.open("/dev/input/event23")
/// var live = try node.motionReader(overrides: overrides, source: InterruptibleDescriptor(node.descriptor))
/// // A pipe of raw events: the device from --device-info (an evemu header) or nothing but --scale.
/// let device = try deviceInfoPath.map { try EvemuRecording.load(path: $0).device } ?? .unknown
/// var pipe = EvdevMotionReader(source: FileDescriptor.standardInput, sourceName: "-",
///                              layout: InputEventLayout(eventSize: eventSize) ?? .native,
///                              assembler: EvdevFrameAssembler(calibration: try .resolve(for: device, overrides: overrides)))
/// // A joydev node: no units, so --scale is required.
/// var joystick = try JoystickNode.open("/dev/input/js2").motionReader(mapping: JoystickMotionMapping(unitsPerG: scale))
/// // An evemu recording.
/// var replay = try EvemuMotionReader(recording: EvemuRecording.load(path: "capture.evemu"), overrides: overrides)
/// ```
/// and then reading every one the same way:
/// ```swift
/// while let frame = try source.nextFrame() {
///     detector.feed(MotionSample(time: frame.time, acceleration: Vector3(frame.acceleration.x, frame.acceleration.y, frame.acceleration.z)))
/// }
/// ```
public protocol MotionFrameSource {
    /// The next frame, or `nil` at the end of the stream (a pipe closed, a recording replayed).
    /// A live node never ends: it blocks for the next frame, or throws when the device is unplugged.
    mutating func nextFrame() throws -> MotionFrame?
}

// MARK: - EvdevMotionReader

/// Frames from a stream of `input_event` records: an evdev node or a pipe.
public struct EvdevMotionReader<Source: ByteSource>: MotionFrameSource {
    /// The event reader (its `offset` and `readCount` are useful in messages and checks).
    public private(set) var events: EventReader<InputEventFormat, Source>
    /// The frame assembler (its `statistics` feed the summary).
    public private(set) var assembler: EvdevFrameAssembler

    /// Creates a reader.
    /// - Parameters:
    ///   - source: the byte source, e.g. an open node or ``FileDescriptor/standardInput``.
    ///   - sourceName: the path, or `-`, for messages.
    ///   - layout: 24- or 16-byte events (`--event-size`).
    ///   - assembler: the assembler, built with the device's calibration.
    public init(source: Source, sourceName: String, layout: InputEventLayout = .native, assembler: EvdevFrameAssembler)
    {
        events = EventReader(source: source, format: InputEventFormat(layout: layout), sourceName: sourceName)
        self.assembler = assembler
    }

    /// Reads events until one completes a frame.
    /// - Throws: ``InputDeviceError`` (unplugged, interrupted, …), ``EventDecodingError``.
    public mutating func nextFrame() throws -> MotionFrame? {
        while let event = try events.next() {
            if let frame = try assembler.consume(event) { return frame }
        }
        return nil
    }
}

// MARK: - JoystickMotionReader

/// Frames from a joydev node (`/dev/input/js*`).
public struct JoystickMotionReader<Source: ByteSource>: MotionFrameSource {
    /// The event reader.
    public private(set) var events: EventReader<JoystickEventFormat, Source>
    /// The frame assembler.
    public private(set) var assembler: JoystickFrameAssembler

    /// Creates a reader over `source` (an open js node) with the given axis mapping.
    public init(source: Source, sourceName: String, mapping: JoystickMotionMapping) {
        events = EventReader(source: source, format: JoystickEventFormat(), sourceName: sourceName)
        assembler = JoystickFrameAssembler(mapping: mapping)
    }

    /// Reads events until one completes a frame; at the end of the stream, emits the pending frame.
    public mutating func nextFrame() throws -> MotionFrame? {
        while let event = try events.next() {
            if let frame = assembler.consume(event) { return frame }
        }
        return assembler.finish()
    }
}

// MARK: - EvemuMotionReader

/// Frames from an evemu recording, through the same assembler as a live node.
///
/// A recording cannot be queried after `SYN_DROPPED`, so the last known state is kept.
public struct EvemuMotionReader: MotionFrameSource {
    /// The frame assembler.
    public private(set) var assembler: EvdevFrameAssembler
    private let events: [InputEvent]
    private var index = 0

    /// Creates a reader; the calibration defaults to what the recording's header resolves to.
    public init(
        recording: EvemuRecording, overrides: MotionOverrides = MotionOverrides()
    ) throws(MotionConfigurationError) {
        events = recording.events
        assembler = EvdevFrameAssembler(
            calibration: try MotionCalibration.resolve(for: recording.device, overrides: overrides))
    }

    /// The next frame of the recording.
    public mutating func nextFrame() throws -> MotionFrame? {
        while index < events.count {
            index += 1
            if let frame = try assembler.consume(events[index - 1]) { return frame }
        }
        return nil
    }
}
