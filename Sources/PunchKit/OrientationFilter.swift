// MARK: - OrientationFilter

/// Follows which way is up in the device's own frame through a swing, from the gyroscope and
/// the accelerometer together: a complementary filter on the gravity direction.
///
/// - The gyroscope turns it: a direction fixed in the world, seen from a device turning at ω,
///   turns at −ω. This holds through a punch, when the device turns a quarter to half a turn in
///   0.3 s and the accelerometer reads the punch rather than gravity.
/// - The accelerometer pulls it back, with a time constant of `correctionTime`, and only when
///   the reading is within `calmTolerance` of 1 g, so that the gyroscope's bias cannot build up
///   while a punch's several g cannot drag it off.
///
/// - For `warmUp` seconds after its first reading it trusts the accelerometer more
///   (`warmUpCalmTolerance`, `warmUpCorrectionTime`): it starts from that first reading, which a
///   stream cut into holds may take mid-swing, and while someone boxes a reading within the calm
///   tolerance is rare, so the seed's error would outlast the few seconds before the first punch.
///   (Replaying real phone recordings as holds with 2 s before the press, the kinds came right for
///   46 and 40 of 60 punches against 52 and 54 with 15 s; with the warm-up, 54 and 48.)
///
/// It keeps a direction only, not the heading round the vertical: kinds need up, and a heading
/// from a gyroscope alone drifts.
public struct OrientationFilter: Sendable {
    /// How long the accelerometer takes to pull the estimate back to the measured gravity, in
    /// seconds: longer than a punch (0.2–0.4 s), much shorter than a gyroscope's drift.
    public var correctionTime: Double = 1.0
    /// How far from 1 g a reading's length may be, in g, to count as gravity.
    public var calmTolerance: Double = 0.25

    /// Up, in the device's frame: a unit vector, the direction a reading at rest points; zero
    /// before the first reading.
    public private(set) var up: Vector3 = .zero
    /// How long after the first reading the accelerometer is trusted more, in seconds.
    public var warmUp: Double = 2
    /// The calm tolerance while warming up, in g (the usual one, if that is wider).
    public var warmUpCalmTolerance: Double = 0.5
    /// The correction time while warming up, in seconds (the usual one, if that is shorter).
    public var warmUpCorrectionTime: Double = 0.5
    /// Seconds since the first reading, counted until the warm-up is over.
    private var warmedFor = 0.0

    /// Creates a filter with the default time constants.
    public init() {}

    /// Creates a filter with the given correction time and calm tolerance.
    public init(correctionTime: Double, calmTolerance: Double) {
        self.correctionTime = correctionTime
        self.calmTolerance = calmTolerance
    }

    /// Whether the filter has taken a reading that could tell up (one with some length).
    public var isSeeded: Bool { up != .zero }

    /// Takes the next reading (g, gravity included) and rotation rate (rad/s), `interval`
    /// seconds after the previous ones.
    public mutating func update(reading: Vector3, rotationRate: Vector3, interval: Double) {
        guard isSeeded else {
            up = reading.normalized
            return
        }
        up = Self.rotate(up, by: rotationRate * -interval)
        let warming = warmedFor < warmUp
        if warming { warmedFor += interval }
        let tolerance = warming ? max(calmTolerance, warmUpCalmTolerance) : calmTolerance
        // Lengths compared squared: the square root only for a reading that counts as gravity.
        let squared = reading.lengthSquared
        let low = max(0, 1 - tolerance)
        let high = 1 + tolerance
        if squared >= low * low && squared <= high * high {
            let time = warming ? min(correctionTime, warmUpCorrectionTime) : correctionTime
            up += (reading / squared.squareRoot() - up) * min(1, interval / time)
        }
        // Back to unit length. Both steps keep it within a hair of 1, where one Newton step for
        // 1/√x makes it exact to rounding with no square root; a correction that pulled it far
        // off (a long gap, a reading opposite) is normalised outright.
        let lengthSquared = up.lengthSquared
        up = abs(lengthSquared - 1) < 1e-3 ? up * ((3 - lengthSquared) / 2) : up.normalized
    }

    /// `vector` turned by the rotation vector `turn` (its axis, and its length as the angle in
    /// radians), right-handed: Rodrigues' formula in the turn vector itself, v cos θ + (t × v)
    /// sin θ/θ + t (t·v)(1 − cos θ)/θ², whose three factors are series in θ² up to a radian
    /// (error below 3e-6 there, 2e-12 at a sample's usual hundredth of one): no square root and
    /// no trigonometry a sample, at any rate a sensor records at.
    @inlinable
    static func rotate(_ vector: Vector3, by turn: Vector3) -> Vector3 {
        let squared = turn.lengthSquared
        guard squared > 0 else { return vector }
        let cosine: Double
        let sinc: Double
        let versine: Double
        if squared <= 1 {
            cosine = 1 - squared / 2 * (1 - squared / 12 * (1 - squared / 30 * (1 - squared / 56)))
            sinc = 1 - squared / 6 * (1 - squared / 20 * (1 - squared / 42))
            versine = 0.5 * (1 - squared / 12 * (1 - squared / 30 * (1 - squared / 56)))
        } else {
            let angle = squared.squareRoot()
            cosine = cosSeries(angle)
            sinc = sinSeries(angle) / angle
            versine = (1 - cosine) / squared
        }
        return vector * cosine + turn.cross(vector) * sinc + turn * (turn.dot(vector) * versine)
    }
}

// Trigonometry without Foundation: PunchKit depends on the standard library alone.

/// The cosine of `x`, as the sine a quarter turn on.
@usableFromInline func cosSeries(_ x: Double) -> Double { sinSeries(x + Double.pi / 2) }

/// The sine of `x`, reduced to ±π/2 and summed as a series to 1e-15.
@usableFromInline func sinSeries(_ x: Double) -> Double {
    // Into [−π, π], then onto [−π/2, π/2] by sin(π − x) = sin x.
    var reduced = x - (x / (2 * Double.pi)).rounded() * 2 * Double.pi
    if reduced > Double.pi / 2 { reduced = Double.pi - reduced }
    if reduced < -Double.pi / 2 { reduced = -Double.pi - reduced }
    let squared = reduced * reduced
    var term = reduced
    var sum = reduced
    for n in stride(from: 2, through: 24, by: 2) {
        term *= -squared / Double(n * (n + 1))
        sum += term
    }
    return sum
}

// MARK: - Turn

/// A rotation as a unit quaternion, for adding up a punch's turns into one: its angle and the
/// axis it turned about.
struct Turn: Sendable {
    var w = 1.0
    var axisPart = Vector3.zero

    /// Followed by a turn at `rate` (rad/s, in the frame reached so far) for `interval` seconds.
    mutating func follow(rate: Vector3, interval: Double) {
        // The half-turn as a vector; its sine over its angle and its cosine as series in the
        // angle squared (a sample's half-turn is a few hundredths of a radian), the general
        // ones beyond half a radian.
        let half = rate * (interval / 2)
        let squared = half.lengthSquared
        guard squared > 0 else { return }
        let sinc: Double
        let cosine: Double
        if squared <= 0.25 {
            sinc = 1 - squared / 6 * (1 - squared / 20 * (1 - squared / 42))
            cosine = 1 - squared / 2 * (1 - squared / 12 * (1 - squared / 30))
        } else {
            let angle = squared.squareRoot()
            (sinc, cosine) = (sinSeries(angle) / angle, cosSeries(angle))
        }
        self = followed(by: Turn(w: cosine, axisPart: half * sinc))
    }

    /// This turn, then `other` (given in the frame this one reached): the product. Both factors
    /// are unit, so it is too, but for rounding of 1e-16 a step: a punch's hundred steps need no
    /// renormalising.
    func followed(by other: Turn) -> Turn {
        Turn(
            w: w * other.w - axisPart.dot(other.axisPart),
            axisPart: other.axisPart * w + axisPart * other.w + axisPart.cross(other.axisPart))
    }

    /// The turn back.
    var inverse: Turn { Turn(w: w, axisPart: axisPart * -1) }

    /// `vector`, given in the frame the turn reached, in the frame it began in.
    func rotate(_ vector: Vector3) -> Vector3 {
        let twice = axisPart.cross(vector) * 2
        return vector + twice * w + axisPart.cross(twice)
    }

    /// The axis turned about, a unit vector in the frame the turn began in (zero for no turn).
    var axis: Vector3 { axisPart.normalized }

    /// The angle turned, in degrees, from 0 to 180.
    var degrees: Double { 2 * arcCosine(min(1, abs(w))) * 180 / Double.pi }
}

/// The angle whose cosine is `x` (clamped to −1…1), in radians: Abramowitz and Stegun's
/// polynomial 4.4.46 (error below 2e-8), then one Newton step on the cosine where the sine is not
/// too small to divide by. PunchKit has no libm.
func arcCosine(_ x: Double) -> Double {
    let clamped = min(1, max(-1, x))
    let magnitude = abs(clamped)
    let m = magnitude
    let polynomial =
        1.5707963050 + m
        * (-0.2145988016 + m
            * (0.0889789874 + m
                * (-0.0501743046 + m * (0.0308918810 + m * (-0.0170881256 + m * (0.0066700901 - m * 0.0012624911))))))
    let ofMagnitude = (1 - magnitude).squareRoot() * polynomial
    var angle = clamped < 0 ? Double.pi - ofMagnitude : ofMagnitude
    let sine = sinSeries(angle)
    if abs(sine) > 1e-4 { angle += (cosSeries(angle) - clamped) / sine }
    return angle
}
