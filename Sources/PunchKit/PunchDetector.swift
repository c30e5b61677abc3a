// MARK: - PunchDetector

/// Finds punches in a stream of accelerometer samples, one sample at a time.
///
/// The rule at its heart is the original app's: a punch is found at its sharp **stop**, when the
/// arm reaches full extension and the acceleration points back against the thrust. What the
/// original lacked, this adds:
/// - Gravity is tracked while the device is calm and taken out, so the motion is measured the
///   same in any grip, and "up" is known for telling an uppercut from a jab.
/// - A stop counts only if a **thrust** against it came first: the speed built in the opposite
///   direction in the half second before. That is what keeps the thrust's own peak, a jolt or a
///   tap from counting.
/// - A stop that reverses the last punch's stop shortly after it is that punch's **retraction**.
/// - A stop is decided once, at its highest peak, a few samples after it; so one punch is one event.
///
/// Memory is bounded (a fixed ring of recent samples) and `process(_:)` allocates nothing.
///
/// A detector follows one stream and cannot be copied: it owns its ring of recent samples
/// outright, so that writing to it every sample needs no check for a copy sharing it.
public struct PunchDetector: ~Copyable, Sendable {
    /// The thresholds in use.
    public let configuration: DetectorConfiguration
    /// The gravity estimate, in g, device frame.
    @inlinable public var gravity: GravityTracker { tracker }

    /// The last admitted sample's acceleration with gravity removed, in g, device frame: the vector
    /// whose length the detector holds against `threshold`. Zero until a sample after the first
    /// (the first only seeds the gravity estimate); a sample passed over leaves it as it was.
    ///
    /// Read back from the ring of recent motion, where `process(_:)` and `process(_:found:)` both
    /// put it, so that keeping it costs the loop that runs every sample nothing.
    public var linearAcceleration: Vector3 {
        guard recent.endIndex > recent.startIndex else { return .zero }
        let slot = (recent.endIndex &- 1) & RecentMotion.mask
        return Vector3(recent.xs[slot], recent.ys[slot], recent.zs[slot])
    }

    /// The threshold in force now, in g with gravity removed: the least a stop must reach to be a
    /// punch. Today it is always `configuration.trigger`; it is asked for here, sample by sample,
    /// so that what draws it (`hitthat plot`) stays right if it comes to follow the stream.
    public var threshold: Double { configuration.trigger }

    private let uppercutRise: Double
    // Usable from inlined code: `process(_:)` runs in the caller's loop.
    @usableFromInline let triggerSquared: Double
    @usableFromInline var tracker = GravityTracker()
    @usableFromInline var recent: RecentMotion
    @usableFromInline var stop = StopCandidate()
    /// The last sample taken; before the first, one at a time that is not a number, which
    /// fails the test in `process(_:)` that every later sample passes or not on its merits.
    @usableFromInline var previousSample = MotionSample(time: .nan, acceleration: .zero)
    private var lastPunch: (time: Double, direction: Vector3)?
    /// The thrust of the next punch must come after this time: the last punch's stop.
    private var thrustStart = -Double.infinity

    /// Creates a detector.
    public init(configuration: DetectorConfiguration = DetectorConfiguration()) {
        self.configuration = configuration
        self.uppercutRise = configuration.uppercutRise
        self.triggerSquared = configuration.trigger * configuration.trigger
        self.recent = RecentMotion()
    }

    deinit { recent.deallocate() }

    // MARK: - Feeding samples

    /// Takes the next sample and returns the punch it decided, if any.
    ///
    /// Samples that repeat the previous reading exactly (sample-and-hold), that are not finite, or
    /// that go back in time carry no new motion and are passed over.
    ///
    /// Inlined into the caller's loop: what every sample needs is here, and what few samples need
    /// (a stretch of strong acceleration, the first sample, one after a gap) is in calls.
    @inlinable @inline(__always)
    public mutating func process(_ sample: MotionSample) -> Punch? {
        let previous = previousSample
        var interval = sample.time - previous.time
        let linear = sample.acceleration - tracker.estimate
        // Most samples are calm, outside any stretch: they need no square root.
        let squared = linear.lengthSquared
        let gap = configuration.maximumGap
        if !Self.admits(sample, after: previous, interval: interval, deviationSquared: squared, gap: gap) {
            guard let admitted = admitUnusual(sample, after: previous) else { return nil }
            interval = admitted
        }
        previousSample = sample
        tracker.update(
            with: sample.acceleration, after: previous.acceleration, deviation: linear, deviationSquared: squared,
            interval: interval)
        recent.append(time: sample.time, interval: interval, linear: linear)
        guard stop.isOpen || squared >= triggerSquared else { return nil }
        return track(linear, squared: squared, raw: sample.acceleration, at: sample.time)
    }

    /// Takes samples in order and calls `found` with each punch they decide: the same punches,
    /// the same way, as `process(_:)` on each sample in turn, but faster over a trace.
    ///
    /// Most samples need nothing out of line: they come calm or inside a stretch that is not yet
    /// due for its decision. Those are taken in a loop that keeps the detector's state in
    /// registers, which `process(_:)` cannot (its caller's loop sits between two samples). The
    /// loop hands every other sample to `process(_:)`.
    @inlinable
    public mutating func process(_ samples: UnsafeBufferPointer<MotionSample>, found: (Punch) -> Void) {
        var index = 0
        while true {
            index = takeRoutine(samples, from: index)
            guard index < samples.count else { return }
            if let punch = process(samples[index]) { found(punch) }
            index &+= 1
        }
    }

    /// One test admits what nearly every sample is: no earlier than the last, within the gap, a
    /// finite reading (its deviation is finite) that differs from the last. It implies each rule
    /// of `process(_:)`; a sample that fails it (the first one among them) is judged by them one
    /// by one, out of line. (Finite as `<=` the largest finite number: the compiler turns
    /// `< .infinity` into a test of the bits, three times as long.)
    @inlinable @inline(__always)
    static func admits(
        _ sample: MotionSample, after previous: MotionSample, interval: Double, deviationSquared: Double, gap: Double
    ) -> Bool {
        interval >= 0 && interval <= gap && deviationSquared <= .greatestFiniteMagnitude
            && sample.acceleration != previous.acceleration
    }

    /// Takes the samples from `start` on that need nothing out of line, up to the first that
    /// does (one to judge rule by rule, one that starts a stretch, or one on which the stop is due
    /// for its decision), and returns that one's index, or the end.
    ///
    /// The state lives in locals while the loop runs and is stored once at its end: stored
    /// every sample, each store would have to be read back, since the ring's writes could, for
    /// all the compiler knows, land on it.
    @usableFromInline
    mutating func takeRoutine(_ samples: UnsafeBufferPointer<MotionSample>, from start: Int) -> Int {
        var tracker = self.tracker
        var recent = self.recent
        var stop = self.stop
        var previous = previousSample
        let gap = configuration.maximumGap
        let confirmationDelay = configuration.confirmationDelay
        var index = start
        while index < samples.count {
            let sample = samples[index]
            let interval = sample.time - previous.time
            let linear = sample.acceleration - tracker.estimate
            let squared = linear.lengthSquared
            guard Self.admits(sample, after: previous, interval: interval, deviationSquared: squared, gap: gap) else {
                break
            }
            var step = StopCandidate.Step()
            if stop.isOpen {
                step = stop.step(
                    linear, squared: squared, at: sample.time, triggerSquared: triggerSquared,
                    confirmationDelay: confirmationDelay)
                if step.isDue { break }
            }
            if (!stop.isOpen || step.ends) && squared >= triggerSquared { break }
            tracker.update(
                with: sample.acceleration, after: previous.acceleration, deviation: linear, deviationSquared: squared,
                interval: interval)
            if step.rises {
                // Raised before the append: the peak's entry is the one the sample is about to get.
                stop.raise(
                    to: linear, squared: squared, raw: sample.acceleration, at: sample.time, index: recent.endIndex)
            }
            if step.ends { stop.isOpen = false }
            recent.append(time: sample.time, interval: interval, linear: linear)
            previous = sample
            index &+= 1
        }
        // Of the tracker, only what `update` changes: stored whole, the tracker was kept in memory
        // through the loop by the compiler (measured), which is what the loop is there to avoid.
        self.tracker.current = tracker.current
        self.tracker.motionTime = tracker.motionTime
        self.recent.endIndex = recent.endIndex
        self.stop = stop
        previousSample = previous
        return index
    }

    /// Judges a sample that the one test in `process(_:)` did not admit, rule by rule: nil for one
    /// to pass over (or the first, which only seeds the gravity estimate), or the interval to take
    /// it with, 0 after a gap, which starts afresh.
    @usableFromInline
    mutating func admitUnusual(_ sample: MotionSample, after previous: MotionSample) -> Double? {
        guard !previous.time.isNaN else {
            if sample.isFinite {
                previousSample = sample
                tracker.update(with: sample.acceleration, interval: 0)
            }
            return nil
        }
        guard sample.isFinite, sample.acceleration != previous.acceleration, sample.time >= previous.time else {
            return nil
        }
        let interval = sample.time - previous.time
        guard interval > configuration.maximumGap else { return interval }
        restart()
        return 0
    }

    /// Forgets what came before too long a silence, which can be no part of what comes after.
    @usableFromInline
    mutating func restart() {
        recent.removeAll()
        stop = StopCandidate()
    }

    /// Decides a stop still waiting for confirmation at the end of the stream.
    public mutating func finish() -> Punch? {
        guard stop.isOpen, !stop.isDecided else { return nil }
        stop.isDecided = true
        return decide(at: previousSample.time)
    }

    // MARK: - Stops

    /// Follows the current stretch of strong acceleration in one direction and decides its peak.
    ///
    /// Fed one at a time, about one sample in six comes here while a stretch lasts, so its tests
    /// compare squares: the one square root is the peak's, taken when the stop is decided.
    @usableFromInline
    mutating func track(_ linear: Vector3, squared: Double, raw: Vector3, at time: Double) -> Punch? {
        var punch: Punch?
        if stop.isOpen {
            let step = stop.step(
                linear, squared: squared, at: time, triggerSquared: triggerSquared,
                confirmationDelay: configuration.confirmationDelay)
            if step.rises {
                stop.raise(to: linear, squared: squared, raw: raw, at: time, index: recent.endIndex &- 1)
            } else if step.isDue {
                stop.isDecided = true
                punch = decide(at: time)
            }
            if step.ends { stop.isOpen = false }
        }
        if !stop.isOpen && squared >= triggerSquared {
            stop = StopCandidate()
            stop.isOpen = true
            // The stop is measured against the acceleration just before it, so that what both
            // share (a swing's pull toward the elbow, gravity the wrist turned) cancels out. It is
            // known now, so the sample that decides the stop has less to do.
            let newest = recent.endIndex &- 1
            stop.before = recent.meanAcceleration(since: time - configuration.referenceWindow, before: newest)
            stop.onset = linear
            stop.raise(to: linear, squared: squared, raw: raw, at: time, index: newest)
        }
        return punch
    }

    /// Decides whether the stop candidate ends a punch, and which kind.
    private mutating func decide(at decisionTime: Double) -> Punch? {
        let direction = (stop.peak - stop.before).normalized
        // The cheap test first: a retraction needs no look back for its thrust.
        if let last = lastPunch, stop.peakTime - last.time < configuration.retractionWindow,
            direction.dot(last.direction) < configuration.retractionAlignment
        {
            return nil
        }
        let thrust = recent.thrust(
            against: direction, before: stop.peakIndex,
            since: max(stop.peakTime - configuration.thrustWindow, thrustStart),
            directionSince: max(stop.peakTime - configuration.directionWindow, thrustStart))
        guard thrust.speed >= configuration.minimumThrust,
            stop.peak.dot(direction) >= configuration.stopSharpness * thrust.peak
        else { return nil }
        // A stop slows the hand down: it points against the way the hand was going. An arc's
        // pull toward its centre points across it instead.
        guard thrust.approach.dot(direction) <= -configuration.stopAlignment * thrust.approach.length else {
            return nil
        }
        lastPunch = (stop.peakTime, direction)
        thrustStart = stop.peakTime

        let axis = recent.earlyVelocity(of: thrust, against: direction).normalized
        let up = tracker.seesGravity ? tracker.estimate.normalized : configuration.fallbackUp.normalized
        let rise = axis.dot(up)
        let kind: PunchKind
        if rise >= uppercutRise {
            kind = .uppercut
        } else if configuration.reportsHooks, case let curve = recent.curve(of: thrust, against: direction),
            curve.straightness < configuration.hookStraightness, curvesLikeHook(curve.onset, then: -direction, up: up)
        {
            kind = .hook
        } else {
            kind = .jab
        }
        let peakG = stop.peakSquared.squareRoot()
        // Clamped before it becomes an Int: a finite but absurd reading (1e300 g) must not trap.
        let damage = min(max((peakG * configuration.damagePerG).rounded(), 1), Double(configuration.maximumDamage))
        return Punch(
            time: stop.peakTime, kind: kind,
            damage: damage.isNaN ? 1 : Int(damage),
            peakG: peakG, speed: thrust.speed * standardGravity, rise: rise,
            clipped: isFullScale(stop.peakRaw), decidedAt: decisionTime)
    }

    /// Whether motion that set off along `onset` and ended along `end` turned the way the
    /// configured hand's hooks turn: counterclockwise seen from above for a right hand.
    private func curvesLikeHook(_ onset: Vector3, then end: Vector3, up: Vector3) -> Bool {
        let turn = onset.cross(end).dot(up)
        return configuration.hand == .right ? turn > 0 : turn < 0
    }
}

// MARK: - StopCandidate

/// The stretch of acceleration above the trigger that may be a punch's stop.
@usableFromInline struct StopCandidate: Sendable {
    @usableFromInline var isOpen = false
    var isDecided = false
    var peak = Vector3.zero
    /// The peak's squared length, in g²: its length is needed only once the stop is decided.
    var peakSquared = 0.0
    var peakRaw = Vector3.zero
    var peakTime = 0.0
    /// The peak's entry in the ring of recent motion.
    var peakIndex = 0
    /// The mean acceleration in the moment before the stretch began.
    var before = Vector3.zero
    /// The acceleration that began it, whose direction the stretch keeps.
    var onset = Vector3.zero

    /// What a sample does to an open stretch.
    struct Step {
        /// It is the stretch's new peak.
        var rises = false
        /// The stop is due for its decision with it.
        var isDue = false
        /// The stretch ends with it: it turned away or faded.
        var ends = false
    }

    /// What the sample `linear` (`squared` its squared length) at `time` does to this stretch,
    /// which is open.
    @inline(__always)
    func step(
        _ linear: Vector3, squared: Double, at time: Double, triggerSquared: Double, confirmationDelay: Double
    ) -> Step {
        // A turn of more than 60° from where the stretch began starts a new one: a swing's
        // thrust and stop share the pull toward the elbow, so they are never opposite outright.
        // cos < 1/2, as squares: a negative dot product, or dot² < |linear|²·|onset|² / 4.
        let alongOnset = linear.dot(onset)
        let turned = alongOnset < 0 || alongOnset * alongOnset < 0.25 * squared * onset.lengthSquared
        // Below half the trigger.
        let faded = squared < triggerSquared / 4
        var step = Step()
        if !isDecided {
            if !turned && squared > peakSquared {
                step.rises = true
            } else if turned || faded || squared < peakSquared / 4 || time - peakTime >= confirmationDelay {
                step.isDue = true
            }
        }
        step.ends = turned || faded
        return step
    }

    @inline(__always)
    mutating func raise(to linear: Vector3, squared: Double, raw: Vector3, at time: Double, index: Int) {
        peak = linear
        peakSquared = squared
        peakRaw = raw
        peakTime = time
        peakIndex = index
    }
}

/// Whether a raw reading has an axis at a common full-scale value (±2, 4, 8 or 16 g), where
/// sensors clip.
func isFullScale(_ raw: Vector3) -> Bool {
    func atFullScale(_ value: Double) -> Bool {
        var range = 2.0
        while range <= 16 {
            if abs(abs(value) - range) <= range * 0.002 { return true }
            range *= 2
        }
        return false
    }
    return atFullScale(raw.x) || atFullScale(raw.y) || atFullScale(raw.z)
}
