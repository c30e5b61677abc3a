// MARK: - PunchDetector

/// Finds punches in a stream of accelerometer samples, one sample at a time.
///
/// The rule keeps the original app's idea, a punch is found at its sharp stop and hurts by the
/// acceleration there, and is built around what real recordings of other people's punches show:
/// - Gravity is followed by a low-pass filter and taken out; what is left is the motion.
/// - The **strength** of motion is the mean length of that acceleration over a quarter second, so
///   that a punch's thrust and stop, and the rattle of a sensor, make one hump.
/// - A punch is a hump at least as strong as the **trigger** (1.1 g, or 30 % of this person's recent
///   punches if that is more), the strongest within 0.35 s before it, still the strongest 0.1 s
///   after and fallen by a tenth since (or 0.125 s after, at the latest): decided at most 0.25 s
///   after its time, so one punch is one event, written at once. Sooner where the stop is
///   certain: once the motion has fallen to 80 % of a peak that slowed the fist down, 0.03 s or
///   more after it, the punch is decided there, a blink after the fist stopped.
/// - A hump within 1.5 s of a punch that points back against it and is no stronger is that
///   punch's **retraction**, not a punch; no two punches come within 0.3 s.
/// - The **kind**: an uppercut rises, swings an arc and ends slowly (muscles stop it), while a jab
///   goes straight and ends on the elbow's lockout, a spike: the motion's share along up, the
///   width of the stop's peak and the bend between thrust and stop make the score that tells
///   them apart. Where the source has a gyroscope, the axis the fist turned about joins the
///   score, and a path that bends sideways in the level plane (the turns undone) is a **hook**.
///
/// Memory is bounded (a fixed ring of recent samples) and `process(_:)` allocates nothing.
///
/// A detector follows one stream and cannot be copied, so that the ring it writes every sample is
/// never shared.
public struct PunchDetector: ~Copyable, Sendable {
    /// The thresholds in use. A profile given with them is held apart, made ready (`learned`):
    /// read at every sample, the thresholds stay plain numbers, with nothing to retain.
    public let configuration: DetectorConfiguration
    /// The player's profile, made ready, where the configuration had one.
    private let learned: LearnedKinds?
    /// The gravity estimate, in g, device frame.
    public private(set) var gravity: GravityTracker
    /// Up through the swing, from the gyroscope and the accelerometer, where the source has a
    /// gyroscope: what the kind is told against.
    public private(set) var orientation: OrientationFilter

    private var recent = RecentMotion()
    /// The last sample taken (its time and reading: all that is compared); before the first, none.
    private var previousSample: (time: Double, acceleration: Vector3)?
    /// The entries the strength of motion is the mean of: from `windowStart` to the newest.
    private var windowStart = 0
    private var windowSum = 0.0
    /// The strongest hump not yet decided: its entry in `recent`.
    private var candidate: Int?
    /// The candidate's stop: the entry of the strongest reading in its window (`peak`), for the
    /// candidate it was found for, and whether that reading slowed the fist (worked out once).
    private var stop: (candidate: Int, peak: Int, slowing: Bool?)?
    /// Whether the last punch was decided at its stop and its hump has not fallen since (below
    /// `confirmingFall` of the strength it reached): the rest of that hump is the same punch.
    private var humpDecidedAtStop = false
    private var lastPunch: (time: Double, direction: Vector3, strength: Double)?
    /// The motion and level velocity of each sample of a hook's window, kept for a second look
    /// once the top speed is known: as long as the ring, made once, so deciding allocates nothing.
    private var pathScratch = ContiguousArray(
        repeating: (motion: Vector3.zero, level: Vector3.zero), count: RecentMotion.capacity)
    /// The strengths of the last eight punches.
    private var recentStrengths = LastEight()
    /// This player's usual stop, which a punch's damage is measured against where no profile
    /// says it (the profile's usual is then).
    public private(set) var usualPunch: UsualPunch
    /// What the adaptive trigger asks on top of the floor: `relativeTrigger` × the median of
    /// `recentStrengths`, worked out once a punch rather than every sample.
    private var adaptiveTrigger = 0.0

    /// Creates a detector; `usualPunch` is what is known of the player's punches before this
    /// stream (a server's of a fighter's earlier swings).
    public init(configuration: DetectorConfiguration = DetectorConfiguration(), usualPunch: UsualPunch = UsualPunch()) {
        self.usualPunch = usualPunch
        var thresholds = configuration
        thresholds.profile = nil
        self.configuration = thresholds
        self.learned = configuration.profile.map(LearnedKinds.init)
        self.gravity = GravityTracker(timeConstant: configuration.gravityTimeConstant)
        self.orientation = configuration.orientationFilter
    }

    /// The trigger in force now, in g of strength of motion: the floor, or more after hard punches.
    public var threshold: Double { max(configuration.trigger, adaptiveTrigger) }

    /// The last sample's acceleration with gravity removed, in g, device frame.
    public var linearAcceleration: Vector3 { recent.isEmpty ? .zero : recent.newest.linear }

    /// The strength of motion at the last sample, in g: what is compared with `threshold`.
    public var strength: Double { recent.isEmpty ? 0 : recent.newest.strength }

    // MARK: - Feeding samples

    /// Takes the next sample and returns the punch it decided, if any.
    ///
    /// Samples that are not finite, that go back in time, or that repeat the previous reading
    /// exactly (sample-and-hold: no new motion) are passed over. A held reading does not decide a
    /// punch either: the motion it hides may yet be the stronger.
    public mutating func process(_ sample: MotionSample) -> Punch? {
        var decided: Punch?
        process(sample) { decided = $0 }
        return decided
    }

    /// Takes the next sample, as `process(_:)`, and calls `found` with the punch it decided, if
    /// any. For a loop over many samples: a `Punch?` is large, and returned it is copied out of
    /// every call, decision or not.
    @inline(__always)
    public mutating func process(_ sample: MotionSample, found: (Punch) throws -> Void) rethrows {
        guard sample.isFinite else { return }
        // An absurd but finite reading must not overflow the sums: no sensor reads 1,000 g.
        let reading = sample.acceleration.clamped(to: 1000)
        guard let previous = previousSample else {
            take(time: sample.time, reading: reading, rotationRate: sample.rotationRate, interval: 0)
            return
        }
        guard sample.time >= previous.time else { return }
        let interval = sample.time - previous.time
        if interval > configuration.maximumGap {
            // A silence that long (or a reading held that long) is no part of what comes after:
            // a punch waiting for its confirmation is decided, and the look backs start afresh.
            let punch = candidate.flatMap { decide($0, at: previous.time) }
            restart()
            take(time: sample.time, reading: reading, rotationRate: sample.rotationRate, interval: 0)
            if let punch { try found(punch) }
            return
        }
        guard reading != previous.acceleration else { return }
        take(time: sample.time, reading: reading, rotationRate: sample.rotationRate, interval: interval)
        if let punch = follow() { try found(punch) }
    }

    /// Takes a sample in: gravity and, with a gyroscope, up; then its entry in the recent motion.
    @inline(__always)
    private mutating func take(time: Double, reading: Vector3, rotationRate: Vector3?, interval: Double) {
        previousSample = (time, reading)
        gravity.update(with: reading, interval: interval)
        var turning = (rotation: Vector3.zero, up: Vector3.zero)
        if let rotationRate { turning = turnUp(by: rotationRate, reading: reading, interval: interval) }
        append(time: time, interval: interval, raw: reading, rotation: turning.rotation, up: turning.up)
    }

    /// Turns up by a sample's rotation rate; returns the rate and up for its entry (zero for a
    /// gyroscope's absurd or broken reading, which is no reading: the acceleration still counts).
    /// Apart from `take`, so that a source with no gyroscope runs none of it.
    @inline(never)
    private mutating func turnUp(
        by rotationRate: Vector3, reading: Vector3, interval: Double
    ) -> (rotation: Vector3, up: Vector3) {
        guard rotationRate.isFinite else { return (.zero, .zero) }
        let rotation = rotationRate.clamped(to: 200)
        // The rate over the interval: the mean of its two ends, where the one before is known.
        let before = recent.isEmpty || recent.newest.up == .zero ? rotation : recent.newest.rotation
        orientation.update(reading: reading, rotationRate: (rotation + before) * 0.5, interval: interval)
        return (rotation, orientation.up)
    }

    /// Takes samples in order and calls `found` with each punch they decide, as `process(_:)` on
    /// each sample in turn.
    public mutating func process(_ samples: UnsafeBufferPointer<MotionSample>, found: (Punch) -> Void) {
        for sample in samples { process(sample, found: found) }
    }

    /// Decides a punch still waiting for its confirmation at the end of the stream.
    public mutating func finish() -> Punch? {
        guard let index = candidate, let last = previousSample else { return nil }
        return decide(index, at: last.time)
    }

    // MARK: - Strength of motion

    /// Appends a sample's entry, with the strength of motion over the window that ends with it.
    private mutating func append(time: Double, interval: Double, raw: Vector3, rotation: Vector3, up: Vector3) {
        let linear = raw - gravity.estimate
        let magnitude = linear.length
        // The entry about to be overwritten leaves the window too, should the ring be that short.
        while windowStart < recent.endIndex
            && (recent[windowStart].time < time - configuration.strengthWindow
                || windowStart <= recent.endIndex - RecentMotion.capacity)
        {
            windowSum -= recent[windowStart].magnitude
            windowStart += 1
        }
        // Recomputed from nothing whenever the window empties, so rounding never builds up.
        if windowStart == recent.endIndex { windowSum = 0 }
        windowSum += magnitude
        let strength = windowSum / Double(recent.endIndex - windowStart + 1)
        recent.append(
            .init(
                time: time, interval: interval, raw: raw, linear: linear, magnitude: magnitude, strength: strength,
                rotation: rotation, up: up))
    }

    /// Forgets the recent motion, after a silence.
    private mutating func restart() {
        recent.removeAll()
        // The device may have turned any way in the silence.
        orientation = configuration.orientationFilter
        windowStart = recent.endIndex
        windowSum = 0
        candidate = nil
        stop = nil
        humpDecidedAtStop = false
    }

    // MARK: - Humps

    /// Takes the newest entry into the hump being followed, and decides it when it is due.
    ///
    /// Inlined, with `decideIfDue`, into `process(_:found:)`: a `Punch?` is large, and returned through
    /// a call it was copied at each return, every sample, decision or not.
    @inline(__always)
    private mutating func follow() -> Punch? {
        let newestIndex = recent.endIndex - 1
        let newest = recent.newest
        if let last = lastPunch, newest.time - last.time < configuration.minimumInterval,
            newest.strength > last.strength
        {
            // A punch decided at its stop is a hump still rising: what it reaches is its strength,
            // for the retraction and the trigger, as if it had been decided at its height.
            lastPunch?.strength = newest.strength
            recentStrengths.raiseNewest(to: newest.strength)
            adaptiveTrigger = configuration.relativeTrigger * recentStrengths.median
        }
        if humpDecidedAtStop, let last = lastPunch, newest.strength < configuration.confirmingFall * last.strength {
            humpDecidedAtStop = false
        }
        if !humpDecidedAtStop, candidate.map({ newest.strength > recent[$0].strength }) ?? true,
            newest.strength >= threshold, recent.isStrongest(newest.strength, since: newest.time - configuration.lookBack)
        {
            candidate = newestIndex
        }
        return decideAtStop() ?? decideIfDue(at: newest.time)
    }

    /// Decides the candidate if its strength has stayed the highest long enough by `time`, the
    /// newest entry's, and has fallen since, or if it has waited as long as it may.
    @inline(__always)
    private mutating func decideIfDue(at time: Double) -> Punch? {
        guard let index = candidate else { return nil }
        let waited = time - recent[index].time
        guard
            waited >= configuration.longestConfirmation
                || (waited >= configuration.confirmation
                    && recent.newest.strength < configuration.confirmingFall * recent[index].strength)
        else { return nil }
        return decide(index, at: time)
    }

    /// Decides the candidate at the newest entry if its stop is certain by then (see
    /// `DetectorConfiguration.stopFall`).
    private mutating func decideAtStop() -> Punch? {
        guard let index = candidate else { return nil }
        let peak = stopPeak(of: index)
        let newest = recent.newest
        guard newest.time - recent[peak].time >= configuration.stopSettle,
            newest.magnitude < configuration.stopFall * recent[peak].magnitude, slows(at: peak),
            let punch = decide(index, at: newest.time)
        else { return nil }
        humpDecidedAtStop = true
        return punch
    }

    /// The strongest reading in the strength window of the candidate at `index` (the stop's
    /// peak, as `decide` takes it), carried on from the last candidate's while it stays in.
    private mutating func stopPeak(of index: Int) -> Int {
        let since = recent[index].time - configuration.strengthWindow
        var peak: Int?
        var next = recent.indices(since: since).first ?? index
        if let known = stop, known.candidate <= index, known.peak >= recent.startIndex, recent[known.peak].time >= since {
            if known.candidate == index { return known.peak }
            peak = known.peak
            next = known.candidate + 1
        }
        for entry in next...index where peak.map({ recent[entry].magnitude > recent[$0].magnitude }) ?? true {
            peak = entry
        }
        let found = peak ?? index
        stop = (index, found, stop?.peak == found ? stop?.slowing : nil)
        return found
    }

    /// Whether the reading at entry `peak` slowed the fist: whether it points against the velocity
    /// the motion built over `thrustWindow` before it. Worked out once a peak.
    private mutating func slows(at peak: Int) -> Bool {
        if let slowing = stop?.slowing { return slowing }
        var velocity = Vector3.zero
        for entry in recent.indices(since: recent[peak].time - configuration.thrustWindow) where entry < peak {
            velocity += recent[entry].linear * recent[entry].interval
        }
        let slowing = velocity.dot(recent[peak].linear) < 0
        stop?.slowing = slowing
        return slowing
    }

    // MARK: - Deciding

    /// Decides whether the hump whose strength peaked at entry `index` is a punch, and which kind.
    private mutating func decide(_ index: Int, at decisionTime: Double) -> Punch? {
        candidate = nil
        stop = nil
        let hump = recent[index]
        // The hump's time: the middle of the window whose mean it is.
        let time = hump.time - configuration.strengthWindow / 2
        // The stop's peak: the strongest sample in that window.
        let peak =
            recent.indices(since: hump.time - configuration.strengthWindow).prefix { $0 <= index }
            .max { recent[$0].magnitude < recent[$1].magnitude } ?? index
        let direction = recent[peak].linear.normalized
        if let last = lastPunch {
            let since = time - last.time
            guard since >= configuration.minimumInterval else { return nil }
            if since < configuration.retractionWindow,
                direction.dot(last.direction) < configuration.retractionAlignment,
                hump.strength < last.strength
            {
                return nil
            }
        }
        lastPunch = (time, direction, hump.strength)
        remember(hump.strength)

        let motion = motion(around: peak)
        let turning = gyroscopeMotion(around: peak)
        let features = PunchFeatures(
            rise: motion.rise, stopWidth: motion.stopWidth, bend: motion.bend, stopDirection: direction,
            thrustDirection: motion.thrust, up: motion.up, turnDegrees: turning?.turn?.degrees,
            turnAxisFromVertical: turning?.turn?.axisFromVertical, turnAxis: turning?.turn?.axis,
            sideways: turning?.sideways)
        var kind = defaultKind(of: features)
        var confidence: Double?
        if let learned { (kind, confidence) = learned.kind(of: features, byDefault: kind) }
        let peakG = recent[peak].magnitude
        // A stop is measured against this player's usual one, the profile's or their last
        // punches': a phone strapped to the wrist reads far less of a stop than one in the hand.
        let scaledG = peakG * (learned?.peakScale ?? usualPunch.scale)
        usualPunch.note(peakG)
        let damage = min(max((scaledG * configuration.damagePerG).rounded(), 1), Double(configuration.maximumDamage))
        return Punch(
            time: time, kind: kind, damage: Int(damage),
            peakG: peakG, speed: motion.speed * standardGravity, rise: motion.rise,
            clipped: isFullScale(recent[peak].raw), decidedAt: decisionTime, turn: features.turnDegrees,
            turnAxisFromVertical: features.turnAxisFromVertical, features: features, confidence: confidence)
    }

    /// The kind the default rule gives a punch of these features.
    private func defaultKind(of features: PunchFeatures) -> PunchKind {
        var score =
            features.rise * abs(features.rise) + configuration.stopWidthWeight * features.stopWidth
            + configuration.bendWeight * features.bend
        let turning = features.turnAxisFromVertical
        if let axis = turning {
            score += configuration.turnAxisWeight * (45 - axis) / 45
        }
        let threshold = turning == nil ? configuration.uppercutScore : configuration.turningUppercutScore
        var kind: PunchKind = score > threshold ? .uppercut : .jab
        if turning != nil, let sideways = features.sideways {
            // A hook's fist swings round: its path bends sideways. Many hooks also score as
            // uppercuts (they turn about a tilted axis), so the bend must beat the score there.
            let hook =
                kind == .jab
                ? sideways > configuration.hookSideways
                : sideways - configuration.hookScoreSlope * (score - threshold) > configuration.hookSidewaysOverUppercut
            if hook { kind = .hook }
        }
        return kind
    }

    /// What the gyroscope tells of the punch whose stop peaks at entry `peak`, where it and
    /// gravity were there: one walk over the motion, turning each sample back into the frame of
    /// the walk's start.
    ///
    /// - `turn`: over `thrustWindow` before the peak to `followThrough` after, how far the device
    ///   turned and the angle between that turn's axis and the vertical at its start, in degrees
    ///   (0 a turn round the vertical, 90 round a level axis, as an uppercut's arc or a jab's
    ///   twist). An angle between two directions in one frame: the grip and the hand do not
    ///   change it. Nil where a sample of that time had no gyroscope.
    /// - `sideways`: how much of the fist's acceleration over `hookWindow` before the peak bends
    ///   its path sideways in the level plane: 0 for a straight line or a vertical arc, up to 1
    ///   for a swing round, as a hook's. Gravity is taken out along the filter's up at the
    ///   window's start; the share of the motion across the level velocity, weighted by speed,
    ///   while the fist moves at `hookSpeedShare` of its top level speed or more. A share and a
    ///   sum's absolute value: neither the grip, nor the hand, nor how hard the person punches
    ///   changes it. Nil where a sample of that time had no gyroscope.
    private mutating func gyroscopeMotion(
        around peak: Int
    ) -> (turn: (degrees: Double, axisFromVertical: Double, axis: Vector3)?, sideways: Double?)? {
        guard gravity.seesGravity, recent[peak].up != .zero else { return nil }
        let peakTime = recent[peak].time
        let turnStart = peakTime - configuration.thrustWindow
        let sidewaysStart = peakTime - configuration.hookWindow
        let span = recent.indices(since: min(turnStart, sidewaysStart))
        guard let first = span.first else { return nil }
        var frame = Turn()
        var atTurnStart: (frame: Turn, up: Vector3)?
        var turnSeen = true
        var sidewaysUp: Vector3?
        var sidewaysSeen = true
        var velocity = Vector3.zero
        var topSpeedSquared = 0.0
        var stored = 0
        var previousRotation = recent[first].rotation
        for index in span where recent[index].time <= peakTime + configuration.followThrough {
            let entry = recent[index]
            let hasGyroscope = entry.up != .zero
            if index > first {
                frame.follow(rate: (entry.rotation + previousRotation) * 0.5, interval: entry.interval)
            }
            previousRotation = entry.rotation
            if entry.time >= turnStart {
                if atTurnStart == nil { atTurnStart = (frame, entry.up) }
                turnSeen = turnSeen && hasGyroscope
            }
            guard entry.time >= sidewaysStart, index <= peak else { continue }
            sidewaysSeen = sidewaysSeen && hasGyroscope
            guard let up = sidewaysUp else {
                // Up at the window's start, in the walk's frame.
                sidewaysUp = hasGyroscope ? frame.rotate(entry.up) : .zero
                continue
            }
            // The acceleration in the window's first frame, gravity out, and the velocity it builds.
            let motion = frame.rotate(entry.raw) - up
            velocity += motion * (entry.interval * standardGravity)
            let level = velocity - up * velocity.dot(up)
            topSpeedSquared = max(topSpeedSquared, level.lengthSquared)
            if stored < RecentMotion.capacity {
                pathScratch.withUnsafeMutableBufferPointer { $0[stored] = (motion, level) }
                stored += 1
            }
        }
        var turn: (degrees: Double, axisFromVertical: Double, axis: Vector3)?
        if turnSeen, let start = atTurnStart, start.up != .zero {
            let turned = start.frame.inverse.followed(by: frame)
            let axis = turned.axis
            let degrees = turned.degrees
            turn = (
                degrees, axis == .zero ? 90 : arcCosine(abs(axis.dot(start.up))) * 180 / Double.pi,
                axis * min(1, degrees / 180)
            )
        }
        var sideways: Double?
        if sidewaysSeen, let up = sidewaysUp, up != .zero {
            let least = configuration.hookSpeedShare * configuration.hookSpeedShare * topSpeedSquared
            var across = 0.0
            var whole = 0.0
            for (motion, level) in pathScratch[..<stored] {
                let squared = level.lengthSquared
                guard squared > least, squared > 0 else { continue }
                let speed = squared.squareRoot()
                across += motion.dot(up.cross(level))
                whole += motion.length * speed
            }
            sideways = whole > 0 ? abs(across) / whole : nil
        }
        return (turn, sideways)
    }

    /// What tells the kind, around the stop's peak at entry `peak`:
    /// - `rise`, the sine of the motion's elevation: the signed share of the acceleration's
    ///   energy along up, from `thrustWindow` before the peak to `followThrough` after, against
    ///   the gravity of the moment the thrust began, taken back to a sine (√ keeping the sign).
    ///   Gravity from before the thrust, not the filter's estimate at the peak: the filter has
    ///   taken in part of the thrust by then, and a wrist that turned has moved it too.
    /// - `stopWidth`, how long the reading's length stays more than half as far from 1 g as at
    ///   the peak, in seconds. Lengths, not the acceleration less gravity: they do not change
    ///   when the wrist turns, which on a phone strapped to the hand is half a turn a jab.
    /// - `bend`, the cosine of the angle between the thrust (the motion up to `stopLead` before
    ///   the peak) and the stop: −1 when the stop points straight back against the thrust, as
    ///   it does at the end of a straight line, near 0 or above when the fist swung an arc. An
    ///   angle between two of the motion's own directions: the grip does not change it.
    /// - `speed`, the hand's speed at its fastest over that time, in g·s.
    /// - `thrust`, the thrust's direction, and `up`, up before it (zero without gravity), device frame.
    private func motion(
        around peak: Int
    ) -> (rise: Double, stopWidth: Double, bend: Double, speed: Double, thrust: Vector3, up: Vector3) {
        let peakTime = recent[peak].time
        let span = recent.indices(since: peakTime - configuration.thrustWindow)
        guard let first = span.first else { return (0, 0, 0, 0, .zero, .zero) }
        let before = gravity.seesGravity ? recent[first].raw - recent[first].linear : .zero
        let up = gravity.seesGravity ? before.normalized : configuration.fallbackUp.normalized
        var upward = 0.0
        var energy = 0.0
        var velocity = Vector3.zero
        var fastest = 0.0
        var thrust = Vector3.zero
        for index in span.dropFirst() where recent[index].time <= peakTime + configuration.followThrough {
            let motion = recent[index].raw - before
            if recent[index].time <= peakTime - configuration.stopLead { thrust += motion }
            let along = motion.dot(up)
            upward += along * abs(along)
            energy += motion.lengthSquared
            velocity += motion * recent[index].interval
            fastest = max(fastest, velocity.lengthSquared)
        }
        let share = energy > 0 ? upward / energy : 0
        let rise = share < 0 ? -(-share).squareRoot() : share.squareRoot()
        let bend = thrust.normalized.dot((recent[peak].raw - before).normalized)
        return (
            rise, stopWidth(around: peak), bend, fastest.squareRoot(), thrust.normalized,
            gravity.seesGravity ? up : .zero
        )
    }

    /// How long around the entry `peak` the reading's length stays more than half as far from
    /// gravity's (1 g, or 0 for a source without gravity) as at the peak, in seconds.
    private func stopWidth(around peak: Int) -> Double {
        let rest = gravity.seesGravity ? 1.0 : 0
        func departure(_ index: Int) -> Double { abs(recent[index].raw.length - rest) }
        let half = departure(peak) / 2
        var last = peak
        while last + 1 < recent.endIndex && departure(last + 1) > half { last += 1 }
        var first = peak
        while first > recent.startIndex && departure(first - 1) > half { first -= 1 }
        return recent[last].time - recent[first].time
    }

    /// Keeps a punch's strength for the adaptive trigger.
    private mutating func remember(_ strength: Double) {
        recentStrengths.append(strength)
        adaptiveTrigger = configuration.relativeTrigger * recentStrengths.median
    }
}

// MARK: - Helpers

extension Vector3 {
    /// The vector with each component limited to ±`limit`.
    func clamped(to limit: Double) -> Vector3 {
        Vector3(min(max(x, -limit), limit), min(max(y, -limit), limit), min(max(z, -limit), limit))
    }
}

/// Whether a raw reading has an axis at a common full-scale value (±2, 4, 8, 16 or 32 g, the
/// widest a phone's accelerometer reads), where sensors clip.
func isFullScale(_ raw: Vector3) -> Bool {
    func atFullScale(_ value: Double) -> Bool {
        var range = 2.0
        while range <= 32 {
            if abs(abs(value) - range) <= range * 0.002 { return true }
            range *= 2
        }
        return false
    }
    return atFullScale(raw.x) || atFullScale(raw.y) || atFullScale(raw.z)
}
