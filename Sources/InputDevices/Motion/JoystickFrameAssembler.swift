// MARK: - JoystickMotionMapping

/// Which joydev axes hold acceleration, and their scale.
///
/// joydev has no units: with its default correction it rescales every axis's range to ±32767
/// (Documentation/input/joydev/joystick-api.rst), so the scale must come from the user (`--scale`).
public struct JoystickMotionMapping: Hashable, Sendable {
    /// The joydev axis numbers for raw x, y, z (always three).
    public let axes: [UInt8]
    /// Raw → device frame.
    public var axisMap: AxisMap
    /// joydev units per g.
    public var unitsPerG: Double

    /// Creates a mapping (by default axes 0, 1, 2).
    public init(axes: (x: UInt8, y: UInt8, z: UInt8) = (0, 1, 2), axisMap: AxisMap = .identity, unitsPerG: Double) {
        self.axes = [axes.x, axes.y, axes.z]
        self.axisMap = axisMap
        self.unitsPerG = unitsPerG
    }
}

// MARK: - JoystickFrameAssembler

/// Turns joydev events into motion frames.
///
/// joydev has no frame marker: each event is one axis change, and unchanged axes send nothing. A
/// frame is emitted when all three mapped axes have changed since the last frame, or, failing that,
/// when an event with a later time arrives (the pending frame is then emitted with the state before
/// that event) and at the end of the stream (``finish()``). `JS_EVENT_INIT` events only set the state;
/// a burst of them after normal events means joydev's buffer overflowed and it re-sent the state.
public struct JoystickFrameAssembler {
    /// The mapping used.
    public let mapping: JoystickMotionMapping
    /// Frames emitted.
    public private(set) var frameCount = 0
    /// Times joydev re-sent its state after an overflow.
    public private(set) var resynchronizations = 0

    private static let allAxes: UInt8 = 0b111
    private var values: [Int16] = [0, 0, 0]
    /// Bit *n* set: mapped axis *n* has a value.
    private var seen: UInt8 = 0
    /// Bit *n* set: mapped axis *n* changed since the last frame.
    private var changed: UInt8 = 0
    private var pendingTicks: UInt32?
    private var sawLiveEvent = false
    private var inInitBurst = false
    private var clock = SensorClock(ticksPerSecond: 1000)

    /// Creates an assembler.
    public init(mapping: JoystickMotionMapping) { self.mapping = mapping }

    /// Feeds one event; returns a frame when one is complete.
    public mutating func consume(_ event: JoystickEvent) -> MotionFrame? {
        if event.isInitialState {
            if sawLiveEvent && !inInitBurst { resynchronizations += 1 }
            inInitBurst = true
            if event.kind == .axis, let slot = mapping.axes.firstIndex(of: event.number) {
                values[slot] = event.value
                seen |= 1 << slot
            }
            return nil
        }
        inInitBurst = false
        sawLiveEvent = true
        guard event.kind == .axis, let slot = mapping.axes.firstIndex(of: event.number) else { return nil }
        var frame: MotionFrame?
        if let ticks = pendingTicks, ticks != event.milliseconds {
            frame = emit(ticks: ticks)
        }
        values[slot] = event.value
        seen |= 1 << slot
        changed |= 1 << slot
        pendingTicks = event.milliseconds
        if frame == nil, changed == Self.allAxes {
            frame = emit(ticks: event.milliseconds)
        }
        return frame
    }

    /// Emits the pending frame at the end of the stream, if there is one.
    public mutating func finish() -> MotionFrame? {
        pendingTicks.flatMap { emit(ticks: $0) }
    }

    private mutating func emit(ticks: UInt32) -> MotionFrame? {
        pendingTicks = nil
        changed = 0
        let time = clock.time(ticks: ticks, eventTime: nil)
        guard seen == Self.allAxes else { return nil }
        frameCount += 1
        let raw = (Double(values[0]), Double(values[1]), Double(values[2]))
        return MotionFrame(time: time, acceleration: mapping.axisMap.apply(raw, unitsPer: mapping.unitsPerG))
    }
}
