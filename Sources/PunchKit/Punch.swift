// MARK: - Punch

/// A punch the detector decided on: found at its stop, typed by its thrust.
public struct Punch: Hashable, Sendable {
    /// The source's time of the stop's peak, in seconds.
    public var time: Double
    /// What kind of punch it is.
    public var kind: PunchKind
    /// Hit points: the stop's peak as a share of the player's usual one (the profile's, or their
    /// last punches': `UsualPunch`) times `PunchProfile.usualPeakG`, times the configured damage
    /// per g; at least 1, at most the configured cap.
    public var damage: Int
    /// The stop's peak: the length of the acceleration with gravity removed, in g.
    public var peakG: Double
    /// The speed the thrust built before the stop, in m/s.
    public var speed: Double
    /// The sine of the thrust's angle above horizontal (1 straight up, 0 level, −1 down).
    public var rise: Double
    /// Whether a sensor axis was at a full-scale value at the peak, so the real peak was higher.
    public var clipped: Bool
    /// The source's time of the sample that decided the punch, in seconds.
    public var decidedAt: Double
    /// How far the device turned over the punch (its thrust and stop), in degrees, where the
    /// source has a gyroscope.
    public var turn: Double?
    /// The angle between the axis of that turn and the vertical, in degrees: 0 a turn round
    /// the vertical (a hook's swing), 90 round a level axis (an uppercut's arc, a jab's twist).
    public var turnAxisFromVertical: Double?
    /// What the detector measured of the punch's motion: what its kind was told from.
    public var features: PunchFeatures
    /// How sure the kind is, from 0 to 1, where a player's profile typed it; nil for the default rule.
    public var confidence: Double?

    /// Creates a punch.
    public init(
        time: Double, kind: PunchKind, damage: Int, peakG: Double, speed: Double, rise: Double,
        clipped: Bool, decidedAt: Double, turn: Double? = nil, turnAxisFromVertical: Double? = nil,
        features: PunchFeatures = .none, confidence: Double? = nil
    ) {
        self.time = time
        self.kind = kind
        self.damage = damage
        self.peakG = peakG
        self.speed = speed
        self.rise = rise
        self.clipped = clipped
        self.decidedAt = decidedAt
        self.turn = turn
        self.turnAxisFromVertical = turnAxisFromVertical
        self.features = features
        self.confidence = confidence
    }
}
