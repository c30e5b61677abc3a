import PunchKit

// MARK: - MotionHold

/// One hold of a punch button: a sensor's samples streamed in batches while it is held, fed
/// through a detector of their own, as `detect` feeds a trace's (`SampleSource.punches`), until
/// the first punch is found.
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
        /// The longest hold, in seconds from the first sample to the last.
        public var longestHold: Double

        /// Creates limits.
        public init(maximumRate: Double, rateWindow: Int, rateTolerance: Double, longestHold: Double) {
            self.maximumRate = maximumRate
            self.rateWindow = max(1, rateWindow)
            self.rateTolerance = rateTolerance
            self.longestHold = longestHold
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
        /// The sample is `seconds` after the hold's first: longer than the limit.
        case tooLong(index: Int, seconds: Double)
        /// The sample has a gyroscope where the hold's first had none, or none where it had one.
        case gyroscopeChanged(index: Int, hadGyroscope: Bool)
    }

    /// The bounds in force.
    public let limits: Limits
    /// How many samples the hold has taken.
    public private(set) var count = 0
    /// The first sample's time and the last's, once there is one.
    public private(set) var span: (first: Double, last: Double)?
    private var detector: PunchDetector
    /// Whether the samples carry a rotation rate (the first one says).
    private var hasGyroscope: Bool?
    /// The times of the last `rateWindow` + 1 samples, oldest first.
    private var recentTimes: [Double] = []

    /// A hold with nothing in it yet, read by a fresh detector.
    public init(limits: Limits, configuration: DetectorConfiguration = DetectorConfiguration()) {
        self.limits = limits
        detector = PunchDetector(configuration: configuration)
    }

    /// How long the hold is so far, in seconds of its samples' times.
    public var seconds: Double { span.map { $0.last - $0.first } ?? 0 }

    /// Checks `samples` against the bounds and, if they all keep them, feeds them to the detector
    /// until it finds a punch, which is returned (the samples after it are not taken).
    /// - Throws: the first sample's ``Violation``; then none of `samples` is taken.
    public func take(_ samples: [MotionSample]) throws(Violation) -> Punch? {
        try check(samples)
        for sample in samples {
            see(sample)
            if let punch = detector.process(sample) { return punch }
        }
        return nil
    }

    /// Decides a punch still waiting for its confirmation: the hold is over.
    public func finish() -> Punch? { detector.finish() }

    /// Throws the first bound `samples` breaks, taking in nothing.
    private func check(_ samples: [MotionSample]) throws(Violation) {
        var times = recentTimes
        let first = span?.first ?? samples.first?.time ?? 0
        let gyroscope = hasGyroscope ?? (samples.first?.rotationRate != nil)
        for (index, sample) in samples.enumerated() {
            if (sample.rotationRate != nil) != gyroscope {
                throw .gyroscopeChanged(index: index, hadGyroscope: gyroscope)
            }
            if let previous = times.last, !(sample.time > previous) {
                throw .timeWentBack(index: index, time: sample.time, previous: previous)
            }
            if sample.time - first > limits.longestHold {
                throw .tooLong(index: index, seconds: sample.time - first)
            }
            times.append(sample.time)
            if times.count > limits.rateWindow + 1 { times.removeFirst() }
            if times.count == limits.rateWindow + 1, let oldest = times.first,
                sample.time - oldest < limits.shortestWindow
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
