// MARK: - EvdevFrameAssembler

/// Turns evdev events into motion frames: one frame per `SYN_REPORT`.
///
/// The rules follow Documentation/input/event-codes.rst:
/// - `EV_ABS` events carry only the axes that changed; the others keep their last value, so the
///   assembler keeps the state of every axis. Changes are staged and applied at the `SYN_REPORT` that
///   ends their frame.
/// - `MSC_TIMESTAMP` (µs, u32) gives the frame's time when present (see ``SensorClock``); otherwise the
///   time of the `SYN_REPORT` event is used.
/// - `SYN_DROPPED` means the client's buffer overran: the partial frame and every event up to and
///   including the next `SYN_REPORT` are dropped, then the axis state is re-read with `EVIOCGABS`
///   (through `readAxisState`, so tests and replays need no device). That frame emits nothing.
/// A frame is only emitted once every axis it needs has a value.
public struct EvdevFrameAssembler {
    /// Reads the current value of axes (`EVIOCGABS` on a live node).
    public typealias AxisStateReader = ([AbsoluteAxis]) throws -> [AbsoluteAxis: Int32]

    /// Counters for the `listen` summary.
    public struct Statistics: Hashable, Sendable {
        /// Frames emitted.
        public var frames = 0
        /// `SYN_DROPPED` events seen.
        public var droppedReports = 0
        /// Times the axis state was re-read after a drop.
        public var resynchronizations = 0
        /// Resets of the device clock detected.
        public var clockResets = 0
    }

    /// How raw values become physical units.
    public let calibration: MotionCalibration
    /// The counters so far.
    public var statistics: Statistics {
        var result = counters
        result.clockResets = clock.resetCount
        return result
    }

    private let readAxisState: AxisStateReader?
    private var values = [Int32](repeating: 0, count: AbsoluteAxis.count)
    private var known: UInt64 = 0
    /// Axis values reported since the last `SYN_REPORT`; only the last one of each axis matters, so a
    /// stream that never sends `SYN_REPORT` cannot make this grow.
    private var stagedValues = [Int32](repeating: 0, count: AbsoluteAxis.count)
    /// Bit *n* set: axis *n* is in `stagedValues`.
    private var stagedMask: UInt64 = 0
    private var stagedTicks: UInt32?
    private var dropping = false
    private var clock = SensorClock(ticksPerSecond: 1_000_000)
    private var counters = Statistics()
    private let requiredMask: UInt64
    private let rotationMask: UInt64
    private let rotationMirrored: Bool

    /// Creates an assembler.
    /// - Parameters:
    ///   - calibration: axes, map and scale.
    ///   - initialValues: the axis state when reading starts (`EVIOCGABS` values from the node); a pipe
    ///     or recording has none, and frames start once every axis has been reported.
    ///   - readAxisState: re-reads axes after `SYN_DROPPED`; `nil` keeps the last known state.
    public init(
        calibration: MotionCalibration, initialValues: [AbsoluteAxis: Int32] = [:],
        readAxisState: AxisStateReader? = nil
    ) {
        self.calibration = calibration
        self.readAxisState = readAxisState
        requiredMask = Self.mask(calibration.accelerationAxes)
        rotationMask = Self.mask(calibration.rotationAxes ?? [])
        rotationMirrored = calibration.axisMap.isMirror
        apply(initialValues)
    }

    /// Feeds one event; returns a frame when the event completes one.
    /// - Throws: whatever `readAxisState` throws (e.g. ``InputDeviceError/unplugged(path:)``).
    public mutating func consume(_ event: InputEvent) throws -> MotionFrame? {
        switch (event.type, event.code) {
        case (.synchronization, EventCode.synDropped):
            counters.droppedReports += 1
            dropping = true
            discardStaged()
            return nil
        case (.synchronization, EventCode.synReport):
            if dropping {
                dropping = false
                discardStaged()
                if let readAxisState {
                    apply(try readAxisState(calibration.axesRead))
                    counters.resynchronizations += 1
                }
                return nil
            }
            return finishFrame(eventTime: event.time)
        case (.absolute, let code) where !dropping && Int(code) < AbsoluteAxis.count:
            stagedValues[Int(code)] = event.value
            stagedMask |= 1 << UInt64(code)
            return nil
        case (.miscellaneous, EventCode.mscTimestamp) where !dropping:
            stagedTicks = UInt32(bitPattern: event.value)
            return nil
        default:
            return nil
        }
    }

    // MARK: Private

    private mutating func finishFrame(eventTime: Double) -> MotionFrame? {
        var pending = stagedMask
        while pending != 0 {
            let code = pending.trailingZeroBitCount
            values[code] = stagedValues[code]
            pending &= pending - 1
        }
        known |= stagedMask
        let ticks = stagedTicks
        discardStaged()
        // The clock sees every frame, even one emitted later, so that its steps stay consecutive.
        let time = clock.time(ticks: ticks, eventTime: eventTime)
        guard known & requiredMask == requiredMask else { return nil }
        counters.frames += 1
        let acceleration = calibration.axisMap.apply(raw(calibration.accelerationAxes), unitsPer: calibration.unitsPerG)
        var rotation: MotionVector?
        if let axes = calibration.rotationAxes, let units = calibration.unitsPerDegreePerSecond,
            known & rotationMask == rotationMask
        {
            rotation = calibration.axisMap.apply(raw(axes), unitsPer: units, mirrored: rotationMirrored)
        }
        return MotionFrame(time: time, acceleration: acceleration, rotation: rotation)
    }

    private func raw(_ axes: [AbsoluteAxis]) -> (Double, Double, Double) {
        (
            Double(values[Int(axes[0].rawValue)]), Double(values[Int(axes[1].rawValue)]),
            Double(values[Int(axes[2].rawValue)])
        )
    }

    private mutating func discardStaged() {
        stagedMask = 0
        stagedTicks = nil
    }

    private mutating func apply(_ state: [AbsoluteAxis: Int32]) {
        for (axis, value) in state where Int(axis.rawValue) < AbsoluteAxis.count {
            values[Int(axis.rawValue)] = value
            known |= 1 << UInt64(axis.rawValue)
        }
    }

    private static func mask(_ axes: [AbsoluteAxis]) -> UInt64 {
        axes.reduce(0) { $0 | 1 << UInt64($1.rawValue) }
    }
}
