// MARK: - SensorClock

/// Turns a device's 32-bit tick counter into seconds that never wrap and never go backwards.
///
/// `MSC_TIMESTAMP` is a u32 in microseconds (Documentation/input/event-codes.rst, "EV_MSC"): it wraps
/// every 71.6 minutes and may reset, e.g. when the controller reconnects. joydev's `js_event.time` is a
/// u32 in milliseconds. Consecutive ticks are unwrapped with modular arithmetic; when the event time is
/// available too, a tick step that disagrees with it by more than `resetTolerance` is a reset, and the
/// clock then advances by the event-time step instead.
public struct SensorClock: Hashable, Sendable {
    /// Ticks per second: 1 000 000 for `MSC_TIMESTAMP`, 1000 for joydev.
    public let ticksPerSecond: Double
    /// How far a tick step may stray from the event-time step before it counts as a reset.
    public let resetTolerance: Double
    /// How many resets were detected.
    public private(set) var resetCount = 0

    private var lastTicks: UInt32?
    private var lastEventTime: Double?
    private var seconds = -Double.infinity

    /// Creates a clock.
    public init(ticksPerSecond: Double, resetTolerance: Double = 0.5) {
        self.ticksPerSecond = ticksPerSecond
        self.resetTolerance = resetTolerance
    }

    /// The time of a frame.
    /// - Parameters:
    ///   - ticks: the device's counter for this frame, or `nil` when the frame carried none.
    ///   - eventTime: the kernel's event time in seconds, or `nil` when there is none (joydev).
    /// - Returns: seconds. The first tick value counts as `ticks / ticksPerSecond`; before any tick the
    ///   event time is used as it is; a frame without ticks on a ticking device advances by the
    ///   event-time step. Never less than the previous result.
    public mutating func time(ticks: UInt32?, eventTime: Double?) -> Double {
        let eventStep = eventTime.flatMap { now in lastEventTime.map { now - $0 } }
        let next: Double
        if let ticks, let previous = lastTicks {
            let tickStep = Double(ticks &- previous) / ticksPerSecond
            if let eventStep, abs(tickStep - eventStep) > resetTolerance {
                resetCount += 1
                next = seconds + max(0, eventStep)
            } else {
                next = seconds + tickStep
            }
        } else if let ticks {
            next = Double(ticks) / ticksPerSecond
        } else if lastTicks != nil {
            next = seconds + max(0, eventStep ?? 0)
        } else {
            next = eventTime ?? max(0, seconds)
        }
        if let ticks { lastTicks = ticks }
        if let eventTime { lastEventTime = eventTime }
        seconds = max(seconds, next)
        return seconds
    }
}
