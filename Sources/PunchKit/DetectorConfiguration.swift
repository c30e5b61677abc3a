// MARK: - Hand

/// The hand that holds the sensor.
public enum Hand: String, CaseIterable, Hashable, Sendable {
    /// The left hand.
    case left
    /// The right hand.
    case right
}

// MARK: - DetectorConfiguration

/// The thresholds of the punch detector, each set from real recordings (phones in the hand and
/// strapped to it, a Joy-Con, a sensor in a glove; 25–100 Hz) rather than from simulation.
/// docs/DETECTOR.md ("How a punch is found") says why each is where it is.
public struct DetectorConfiguration: Hashable, Sendable {
    /// The trigger's floor, in g: the least strength of motion (the mean length of the
    /// acceleration with gravity removed over `strengthWindow`) that can be a punch. Shadow
    /// boxing with a phone strapped to the hand reaches 1.25–2 g; standing and walking stay
    /// below 0.5 g, jogging with the phone in the hand below 1.05 g.
    public var trigger: Double = 1.1
    /// The trigger adapts to how hard this person punches: it is at least this share of the
    /// median strength of their last eight punches, so that the small jolts around a hard punch
    /// (a bag's rebound, the retraction) do not count.
    public var relativeTrigger: Double = 0.3
    /// The time over which the strength of motion is averaged, in seconds: a stop lasts about
    /// 0.1–0.3 s, and one sharp sample, or a sensor's rattle, is not a punch.
    public var strengthWindow: Double = 0.25
    /// A punch is the strongest motion within this long before it, in seconds.
    public var lookBack: Double = 0.35
    /// A punch is decided once its strength has stayed the highest this long, in seconds, and
    /// has fallen below `confirmingFall` of its peak: a hump still at its height may be the
    /// shoulder of a stronger one (a hook's swing before its stop).
    public var confirmation: Double = 0.1
    /// The share of its peak below which a hump's strength must fall before it is decided.
    public var confirmingFall: Double = 0.9
    /// A punch is decided as soon as its stop is certain, without waiting for the confirmation:
    /// once the motion has fallen below this share of the stop's peak, at least `stopSettle`
    /// after it, where the peak slowed the fist down (it points against the velocity the motion
    /// built over `thrustWindow` before it). A punch's thrust is a hump of its own before the
    /// stop, of the same height or more, and is not taken for it: it speeds the fist up.
    public var stopFall: Double = 0.8
    /// How long after the stop's peak a punch is decided at the soonest, in seconds: the kind is
    /// told from the motion up to `followThrough` after it, and a sample or two is the least
    /// that says the motion has fallen.
    public var stopSettle: Double = 0.03
    /// The longest a punch waits for its decision, in seconds: with half the strength window,
    /// how late a punch is written after its time at the most (0.25 s), so a player sees it land.
    public var longestConfirmation: Double = 0.125
    /// Two punches of one hand are at least this far apart, in seconds.
    public var minimumInterval: Double = 0.3
    /// How long after a punch a motion that points back against it, and is no stronger, is that
    /// punch's retraction (the hand going back to guard), in seconds.
    public var retractionWindow: Double = 1.5
    /// How squarely a motion must point back against the last punch (the cosine of the angle
    /// between their directions) to be its retraction.
    public var retractionAlignment: Double = -0.2
    /// The time constant of the low-pass filter that follows gravity, in seconds.
    public var gravityTimeConstant: Double = 0.6
    /// How far before the stop's peak the motion is taken for the punch's kind, in seconds: a
    /// punch's thrust lasts 0.2–0.4 s.
    public var thrustWindow: Double = 0.4
    /// How far after the stop's peak the motion is taken for the punch's kind, in seconds: the
    /// peak may come a sample or two before the stop is over; a punch decided at its stop has
    /// little more than this after it, and one decided later is told from the same span.
    public var followThrough: Double = 0.05
    /// What the width of the stop's peak adds to a punch's uppercut score, per second. A jab ends
    /// on the elbow's lockout, a spike 0.03–0.1 s wide at half its height; an uppercut is stopped
    /// by the muscles, over 0.15–0.26 s.
    public var stopWidthWeight: Double = 6
    /// What the bend of a punch's path adds to its uppercut score: the cosine of the angle
    /// between the thrust and the stop. A straight punch stops straight back against its
    /// thrust (a cosine of −0.9 in the median); an uppercut swings an arc, so its stop points
    /// across the thrust (−0.2 to +0.5).
    public var bendWeight: Double = 0.5
    /// How long before the stop's peak the thrust ends, in seconds, for the bend: the stop's
    /// own rise is not part of the thrust.
    public var stopLead: Double = 0.05
    /// The score above which a punch is an uppercut: the signed share of its motion along up
    /// (−1 straight down, 1 straight up), plus `stopWidthWeight` × the stop's width, plus
    /// `bendWeight` × the bend. A level straight punch is an uppercut from a stop 0.2 s wide;
    /// a rising or bent one sooner, a falling one later.
    public var uppercutScore: Double = 0.7
    /// Where the source has a gyroscope: what the turn's axis adds to the uppercut score, per 45°
    /// it comes nearer the vertical than 45°. An uppercut's arc turns the fist about an axis
    /// tilted 40–50° from the vertical (the median on two sets), a jab's twist about a level one
    /// (67–84°). Leaving one set out: 0.97–0.98 of jabs and uppercuts right.
    public var turnAxisWeight: Double = 1.0
    /// The uppercut score's threshold where the source has a gyroscope (the turn's axis is in
    /// the score): above it, an uppercut.
    public var turningUppercutScore: Double = 0.0
    /// Where the source has a gyroscope: how long before the stop's peak the path is followed
    /// for a hook's sideways bend, in seconds (a hook's swing is longer than a jab's thrust).
    public var hookWindow: Double = 0.6
    /// The sideways share of a punch's acceleration (see docs/DETECTOR.md) above which a punch
    /// that scores as a jab is a hook. Straight punches bend little (the median jab 0.1–0.2),
    /// hooks a lot (0.35–0.7); a glove on a bag, whose hooks are short, at the low end. Chosen by
    /// leaving one person out (docs/DETECTOR.md): every fold chose 0.26–0.32; 0.40, fitted to all
    /// the people at once, held for them and not for a person left out.
    public var hookSideways: Double = 0.30
    /// The sideways share, less `hookScoreSlope` × the uppercut score above its threshold, above
    /// which a punch that scores as an uppercut is a hook: most hooks turn about a tilted axis as
    /// uppercuts do, so there the bend must beat how uppercut-like the rest is.
    public var hookSidewaysOverUppercut: Double = 0.15
    /// See `hookSidewaysOverUppercut`.
    public var hookScoreSlope: Double = 0.20
    /// The share of the top level speed below which the path's bend is not counted: a fist at
    /// rest has no direction to bend from.
    public var hookSpeedShare: Double = 0.3
    /// How long the orientation filter's accelerometer takes to pull up back to the measured
    /// gravity, in seconds (0.3–3 s give the same kinds).
    public var orientationCorrectionTime: Double = 1.0
    /// How far from 1 g a reading's length may be to correct the orientation filter, in g.
    public var orientationCalmTolerance: Double = 0.1

    /// A new orientation filter with these settings.
    var orientationFilter: OrientationFilter {
        OrientationFilter(correctionTime: orientationCorrectionTime, calmTolerance: orientationCalmTolerance)
    }

    /// Hit points per g of the stop's peak (the original app's `magnitude × 4`).
    public var damagePerG: Double = 4.0
    /// The most damage the detector reports for one punch: the original app's cap (its
    /// `magnitude × 4` out of a stamina of 100), so that one absurd reading cannot report an
    /// absurd number. It bounds the detector's own scale only: detection knows nothing of fights,
    /// and a fight bounds a punch by its own rule (FightEngine's `Rules.punchDamage`), which the
    /// server applies where a punch its detector found in a sensor's motion enters a fight.
    public var maximumDamage: Int = 100
    /// The device axis taken as up when the source has no gravity in it (linear acceleration).
    /// The original app held the phone upright: an uppercut's stop was along −Y.
    public var fallbackUp = Vector3(0, 1, 0)
    /// A longer silence between samples than this, in seconds, starts the detector afresh.
    public var maximumGap: Double = 0.25
    /// A player's own punches, learned (`PunchProfile.learn`): where set, punches are typed by it,
    /// and their damage is measured against the player's usual punch.
    public var profile: PunchProfile?

    /// The default configuration.
    public init() {}
}
