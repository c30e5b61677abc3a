import PunchKit

// MARK: - MotionHold

/// One hold of a punch button: a sensor's samples streamed in batches while it is held, fed
/// through a detector of their own, as `detect` feeds a trace's (`SampleSource.punches`), until
/// the first punch is found.
///
/// A hold may begin with a lead-in: the samples of the moments before the button was pressed.
/// The detector reads them, so that it knows which way is up, how hard this player punches and
/// whether the arm is coming back from a punch, as it does a few seconds into a recording; but
/// only a punch from the press on is found. On real phone recordings, a hold cut around each punch
/// `detect` finds lands that punch at its time 73 % of the time with no lead-in and 98 % with 2 s
/// of it (issue 29's note).
///
/// The samples' own times are checked as they come, since a detector passes over what no sensor
/// makes rather than refusing it: time goes on, the rate stays a sensor's, and the hold stays
/// short. A batch that breaks a bound is refused whole and nothing of it is taken. Memory is
/// the detector's fixed ring and a few times.
///
/// A class, so that its owner can keep one a player in a dictionary: the detector it owns cannot
/// be copied.
public final class MotionHold {
    /// The bounds a hold's samples are held to.
    public struct Limits: Hashable, Sendable {
        /// The fastest rate, in hertz.
        public var maximumRate: Double
        /// How many intervals in a row the rate is measured over.
        public var rateWindow: Int
        /// The share of `rateWindow` intervals at `maximumRate` that they must span at the least.
        public var rateTolerance: Double
        /// The longest hold, in seconds from the press (or the first sample, without one) to the
        /// last sample.
        public var longestHold: Double
        /// The longest lead-in, in seconds from the first sample to the press.
        public var longestLead: Double

        /// Creates limits.
        public init(
            maximumRate: Double, rateWindow: Int, rateTolerance: Double, longestHold: Double, longestLead: Double = 0
        ) {
            self.maximumRate = maximumRate
            self.rateWindow = max(1, rateWindow)
            self.rateTolerance = rateTolerance
            self.longestHold = longestHold
            self.longestLead = longestLead
        }

        /// The least time `rateWindow` intervals in a row may span.
        var shortestWindow: Double { Double(rateWindow) / maximumRate * rateTolerance }
    }

    /// A batch the hold refuses, with the sample at fault (its place in the batch).
    public enum Violation: Error, Hashable, Sendable {
        /// The sample's time is not after the one before it.
        case timeWentBack(index: Int, time: Double, previous: Double)
        /// The sample ends `intervals` intervals in a row spanning only `seconds`: faster than
        /// the limit.
        case tooFast(index: Int, intervals: Int, seconds: Double)
        /// The sample is `seconds` after the press (or the hold's first sample): longer than the limit.
        case tooLong(index: Int, seconds: Double)
        /// The sample is `seconds` before the press: a longer lead-in than the limit.
        case leadTooLong(index: Int, seconds: Double)
        /// The sample has a gyroscope where the hold's first had none, or none where it had one.
        case gyroscopeChanged(index: Int, hadGyroscope: Bool)
    }

    /// How close to a bound on times a batch may come and keep it, in seconds.
    static let timeTolerance = 1e-6

    /// The bounds in force.
    public let limits: Limits
    /// When the button was pressed, on the samples' clock: a punch before it is not found (the
    /// samples before it are the lead-in). Without one, the hold starts at its first sample.
    public let pressed: Double?
    /// How many samples the hold has taken.
    public private(set) var count = 0
    /// The first sample's time and the last's, once there is one.
    public private(set) var span: (first: Double, last: Double)?
    private var detector: PunchDetector
    /// Whether the samples carry a rotation rate (the first one says).
    private var hasGyroscope: Bool?
    /// The times of the last `rateWindow` + 1 samples, oldest first.
    private var recentTimes: [Double] = []

    /// A hold with nothing in it yet, pressed at `pressed` (on the samples' clock), read by a
    /// fresh detector that measures a punch's damage against `usualPunch` (the player's earlier
    /// swings').
    public init(
        limits: Limits, pressed: Double? = nil, configuration: DetectorConfiguration = DetectorConfiguration(),
        usualPunch: UsualPunch = UsualPunch()
    ) {
        self.limits = limits
        self.pressed = pressed
        detector = PunchDetector(configuration: configuration, usualPunch: usualPunch)
    }

    /// How long the hold is so far, in seconds of its samples' times.
    public var seconds: Double { span.map { $0.last - $0.first } ?? 0 }

    /// Checks `samples` against the bounds and, if they all keep them, feeds them to the detector
    /// until it finds a punch from the press on, which is returned (the samples after it are not
    /// taken).
    /// - Throws: the first sample's ``Violation``; then none of `samples` is taken.
    public func take(_ samples: [MotionSample]) throws(Violation) -> Punch? {
        try check(samples)
        for sample in samples {
            see(sample)
            if let punch = detector.process(sample), counts(punch) { return punch }
        }
        return nil
    }

    /// Decides a punch still waiting for its confirmation: the hold is over.
    public func finish() -> Punch? { detector.finish().flatMap { counts($0) ? $0 : nil } }

    /// Whether `punch` is the hold's: it came once the button was down, not in the lead-in, and
    /// the hold's samples span a whole strength window up to its hump. A strength is a mean over
    /// that window: before the samples span one, a few rows' mean is no punch's strength (three
    /// rows with one spike in them would land a full punch).
    private func counts(_ punch: Punch) -> Bool {
        let window = detector.configuration.strengthWindow
        let hump = punch.time + window / 2
        return hump - (span?.first ?? hump) >= window && punch.time >= pressed ?? -.infinity
    }

    /// Throws the first bound `samples` breaks, taking in nothing.
    private func check(_ samples: [MotionSample]) throws(Violation) {
        var times = recentTimes
        let start = pressed ?? span?.first ?? samples.first?.time ?? 0
        let gyroscope = hasGyroscope ?? (samples.first?.rotationRate != nil)
        for (index, sample) in samples.enumerated() {
            if (sample.rotationRate != nil) != gyroscope {
                throw .gyroscopeChanged(index: index, hadGyroscope: gyroscope)
            }
            if let previous = times.last, !(sample.time > previous) {
                throw .timeWentBack(index: index, time: sample.time, previous: previous)
            }
            if sample.time - start > limits.longestHold {
                throw .tooLong(index: index, seconds: sample.time - start)
            }
            if start - sample.time > limits.longestLead {
                throw .leadTooLong(index: index, seconds: start - sample.time)
            }
            times.append(sample.time)
            if times.count > limits.rateWindow + 1 { times.removeFirst() }
            // Within a microsecond of the bound keeps it: ten intervals of a stream exactly at
            // the bound sum, in binary, to a hair either side of it.
            if times.count == limits.rateWindow + 1, let oldest = times.first,
                sample.time - oldest < limits.shortestWindow - Self.timeTolerance
            {
                throw .tooFast(index: index, intervals: limits.rateWindow, seconds: sample.time - oldest)
            }
        }
    }

    /// Counts a sample checked and taken.
    private func see(_ sample: MotionSample) {
        count += 1
        span = (span?.first ?? sample.time, sample.time)
        hasGyroscope = hasGyroscope ?? (sample.rotationRate != nil)
        recentTimes.append(sample.time)
        if recentTimes.count > limits.rateWindow + 1 { recentTimes.removeFirst() }
    }
}
