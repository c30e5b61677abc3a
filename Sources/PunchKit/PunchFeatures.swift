// MARK: - PunchFeatures

/// What the detector measured of one punch's motion, from its thrust to its stop: what its kind
/// is told from, by the default rule or by a player's own profile (`PunchProfile`).
///
/// Some are angles between directions of the motion itself or against up, which no grip or
/// hand changes (`rise`, `bend`, `turnAxisFromVertical`, `sideways`); the directions are in the
/// device's own frame, which depends on how the device sits in the hand: useless across people,
/// telling for one person who holds it the same way each time.
public struct PunchFeatures: Hashable, Sendable {
    /// The sine of the motion's elevation: the signed share of its energy along up.
    public var rise: Double
    /// How long the reading's length stays more than half as far from 1 g as at the stop's peak,
    /// in seconds: a jab's lockout is a spike, an uppercut's muscular stop is wide.
    public var stopWidth: Double
    /// The cosine between the thrust and the stop: −1 for a straight line stopped, higher for an arc.
    public var bend: Double
    /// The stop's direction (the acceleration at its peak, gravity removed), device frame, unit.
    public var stopDirection: Vector3
    /// The thrust's direction (the motion up to just before the stop), device frame, unit.
    public var thrustDirection: Vector3
    /// Up as it was when the thrust began, device frame, unit; zero for a source without gravity.
    public var up: Vector3
    /// How far the device turned over the punch, in degrees; nil without a gyroscope.
    public var turnDegrees: Double?
    /// The angle between that turn's axis and the vertical, in degrees; nil without a gyroscope.
    public var turnAxisFromVertical: Double?
    /// That turn's axis times the share of a half turn it turned (so that a small turn's axis,
    /// which is mostly noise, weighs little), device frame; nil without a gyroscope.
    public var turnAxis: Vector3?
    /// The share of the fist's acceleration that bends its path sideways in the level plane
    /// (0 straight or a vertical arc, up to 1 a swing round, as a hook's); nil without a gyroscope.
    public var sideways: Double?

    /// Creates features.
    public init(
        rise: Double, stopWidth: Double, bend: Double, stopDirection: Vector3, thrustDirection: Vector3,
        up: Vector3, turnDegrees: Double? = nil, turnAxisFromVertical: Double? = nil, turnAxis: Vector3? = nil,
        sideways: Double? = nil
    ) {
        self.rise = rise
        self.stopWidth = stopWidth
        self.bend = bend
        self.stopDirection = stopDirection
        self.thrustDirection = thrustDirection
        self.up = up
        self.turnDegrees = turnDegrees
        self.turnAxisFromVertical = turnAxisFromVertical
        self.turnAxis = turnAxis
        self.sideways = sideways
    }

    /// Whether the gyroscope's features are there.
    public var hasGyroscope: Bool { turnAxisFromVertical != nil && sideways != nil && turnAxis != nil }

    /// A punch whose motion measured nothing (for punches made by hand, in tests and simulations).
    public static let none = PunchFeatures(
        rise: 0, stopWidth: 0, bend: 0, stopDirection: .zero, thrustDirection: .zero, up: .zero)
}
