// MARK: - Hand

/// The hand that holds the sensor.
public enum Hand: String, CaseIterable, Hashable, Sendable {
    /// The left hand: its hooks curve clockwise seen from above.
    case left
    /// The right hand: its hooks curve counterclockwise seen from above.
    case right
}

// MARK: - DetectorConfiguration

/// The thresholds of the punch detector. The defaults keep the original app's rule at the heart:
/// a punch fires at a stop of 2 g and does 4 hit points per g of that stop.
public struct DetectorConfiguration: Hashable, Sendable {
    /// The smallest stop, in g of acceleration with gravity removed, that can be a punch.
    public var trigger: Double = 2.0
    /// Hit points per g of the stop's peak (the original app's `magnitude × 4`).
    public var damagePerG: Double = 4.0
    /// The most damage one punch can do (a fighter's whole stamina).
    public var maximumDamage: Int = 100
    /// The least speed, in g·s (1 g·s ≈ 9.8 m/s), that the thrust must have built against the stop.
    /// It is what tells a punch's stop from a jolt, a tap or the start of a thrust.
    public var minimumThrust: Double = 0.1
    /// How squarely a stop must point against the hand's velocity (the cosine of the angle
    /// between them): a stop brakes the motion, while an arc's pull points across it.
    public var stopAlignment: Double = 0.5
    /// How long before a stop the acceleration it is measured against is averaged, in seconds.
    public var referenceWindow: Double = 0.1
    /// How strong a stop must be against the strongest push of its thrust: a stop is sharp, so
    /// the thrust's own peak, which a wind-up seems to oppose, is not taken for a stop.
    public var stopSharpness: Double = 0.8
    /// How far back before a stop the thrust is looked for, in seconds.
    public var thrustWindow: Double = 0.5
    /// How far back before a stop the thrust's direction, which gives the kind, is taken from,
    /// in seconds: a thrust lasts 0.1–0.3 s, and what came before it would pull the direction off.
    public var directionWindow: Double = 0.35
    /// How long a stop's peak must stay the highest before it is decided, in seconds.
    public var confirmationDelay: Double = 0.025
    /// How long after a punch a stop in the opposite direction is its retraction, in seconds.
    public var retractionWindow: Double = 0.8
    /// How squarely a stop must point back against the last punch's stop (the cosine of the
    /// angle between them, negative) to be that punch's retraction.
    public var retractionAlignment: Double = -0.3
    /// The least angle above horizontal, in degrees, at which a punch is an uppercut.
    public var uppercutElevation: Double = 30
    /// Whether hooks are told apart from jabs at all. Off by default: on real recordings a jab's
    /// thrust is rarely straight (the wrist turns, the sensor rattles), so telling a hook by its
    /// curve mislabels jabs more often than it finds hooks.
    public var reportsHooks: Bool = false
    /// How straight a thrust may be (0…1: the length of its summed acceleration over the sum of
    /// its lengths) and still be a hook's arc; straighter thrusts are jabs.
    public var hookStraightness: Double = 0.8
    /// The hand holding the sensor: a hook is reported only when it curves the way that hand's do.
    public var hand: Hand = .right
    /// The device axis taken as up when the source has no gravity in it (linear acceleration).
    /// The original app held the phone upright: an uppercut's stop was along −Y.
    public var fallbackUp = Vector3(0, 1, 0)
    /// A longer silence between samples than this, in seconds, starts the detector afresh.
    public var maximumGap: Double = 0.25

    /// The default configuration.
    public init() {}

    /// The sine of `uppercutElevation`, which is what the detector compares against.
    var uppercutRise: Double { sine(degrees: uppercutElevation) }
}

// MARK: - Helpers

/// The sine of an angle in degrees, by its Taylor series on a reduced angle: PunchKit has only
/// the standard library, which has no trigonometry, and this is needed once per configuration.
func sine(degrees: Double) -> Double {
    var angle = degrees.truncatingRemainder(dividingBy: 360)
    if angle > 180 { angle -= 360 } else if angle < -180 { angle += 360 }
    if angle > 90 { angle = 180 - angle } else if angle < -90 { angle = -180 - angle }
    let x = angle * Double.pi / 180
    var term = x
    var sum = x
    for n in stride(from: 2, through: 20, by: 2) {
        term *= -x * x / Double(n * (n + 1))
        sum += term
    }
    return sum
}
