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
        let length = reading.length
        if abs(length - 1) <= calmTolerance {
            up = (up + (reading / length - up) * min(1, interval / correctionTime)).normalized
        }
    }

    /// `vector` turned by the rotation vector `turn` (its axis, and its length as the angle in
    /// radians), right-handed: Rodrigues' formula, with short series for the sine and cosine of
    /// angles up to a radian (their error is below 2e-6 there), so that a sample costs no
    /// trigonometry at any rate a sensor records at.
    @inlinable
    static func rotate(_ vector: Vector3, by turn: Vector3) -> Vector3 {
        let squared = turn.lengthSquared
        guard squared > 0 else { return vector }
        let angle = squared.squareRoot()
        let axis = turn / angle
        let sine: Double
        let cosine: Double
        if angle <= 1 {
            sine = angle * (1 - squared / 6 * (1 - squared / 20 * (1 - squared / 42)))
            cosine = 1 - squared / 2 * (1 - squared / 12 * (1 - squared / 30 * (1 - squared / 56)))
        } else {
            (sine, cosine) = (_sin(angle), _cos(angle))
        }
        return vector * cosine + axis.cross(vector) * sine + axis * (axis.dot(vector) * (1 - cosine))
    }
}

// Trigonometry without Foundation: PunchKit depends on the standard library alone.
@usableFromInline func _sin(_ x: Double) -> Double { sinSeries(x) }
@usableFromInline func _cos(_ x: Double) -> Double { sinSeries(x + Double.pi / 2) }

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
        let half = rate.length * interval / 2
        guard half > 0 else { return }
        let sine = sinSeries(half)
        let cosine = sinSeries(half + Double.pi / 2)
        let axis = rate.normalized * sine
        // self ⊗ (cosine, axis), then kept at unit length against rounding.
        let newW = w * cosine - axisPart.dot(axis)
        let newAxis = axis * w + axisPart * cosine + axisPart.cross(axis)
        let length = (newW * newW + newAxis.lengthSquared).squareRoot()
        (w, axisPart) = (newW / length, newAxis / length)
    }

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

/// The angle whose cosine is `x` (clamped to −1…1), in radians, by bisection: it runs once a
/// punch, not once a sample, and PunchKit has no libm.
func arcCosine(_ x: Double) -> Double {
    let target = min(1, max(-1, x))
    var low = 0.0
    var high = Double.pi
    for _ in 0..<52 {
        let middle = (low + high) / 2
        if sinSeries(middle + Double.pi / 2) > target { low = middle } else { high = middle }
    }
    return (low + high) / 2
}
