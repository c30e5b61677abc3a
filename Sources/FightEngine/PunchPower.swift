// MARK: - Guard

/// How a fighter covers up against the other's punches. A guard blunts the kinds it matches to
/// half their damage, so the attacker's choice of kind is a guess at the defender's guard.
public enum Guard: String, CaseIterable, Hashable, Sendable, Codable {
    /// Hands at the head: blunts the straight jab and the round hook.
    case high
    /// Forearms across the body: blunts the uppercut coming from below.
    case low

    /// Whether this guard blunts a punch of `kind`.
    public func blunts(_ kind: PunchType) -> Bool {
        switch (self, kind) {
        case (.high, .jab), (.high, .hook), (.low, .uppercut): true
        case (.high, .uppercut), (.low, .jab), (.low, .hook): false
        }
    }

    /// The damage a punch of `kind` and `damage` does through this guard: halved (at least 1)
    /// when the guard blunts the kind.
    public func damage(of kind: PunchType, _ damage: Int) -> Int {
        blunts(kind) ? max(1, damage / 2) : damage
    }
}

// MARK: - Power meter

/// How hard each kind of punch can hit, and the keyboard's power meter that stands for the swing.
///
/// A keyboard player winds up and the meter's level sweeps from 0 up to 1 and back down, again and
/// again; the punch is thrown when the player stops it. The server times the stop on its own clock
/// from the wind-up it received, so no client states its damage: the damage is `floor` plus the
/// kind's share of the way to its `ceiling`, by how close the level was to the kind's sweet spot.
/// The kinds trade safety for reach: the jab's spot is wide and its ceiling low, the uppercut's is
/// a narrow moment at the very top of the sweep with the highest ceiling.
///
/// The ceilings bind a sensor's punches as well, so the two kinds of player meet the same ranges:
/// a sensor punch does 4 per g of its stop up to the kind's ceiling (the punches found in real
/// recordings do 30–36 in the median, the ceiling's range).
public struct PowerMeter: Hashable, Sendable, Codable {
    /// Milliseconds from 0 up to full power and back to 0: one sweep.
    public var sweepMilliseconds: Int64
    /// Damage of a punch stopped outside its kind's sweet spot.
    public var floor: Int
    /// The sweet spot and ceiling of each kind.
    public var jab: SweetSpot
    /// The hook's.
    public var hook: SweetSpot
    /// The uppercut's.
    public var uppercut: SweetSpot

    /// Creates a meter; the defaults are the game's.
    public init(
        sweepMilliseconds: Int64 = 1600, floor: Int = 8,
        jab: SweetSpot = SweetSpot(level: 0.65, halfWidth: 0.45, ceiling: 44),
        hook: SweetSpot = SweetSpot(level: 0.85, halfWidth: 0.30, ceiling: 47),
        uppercut: SweetSpot = SweetSpot(level: 1.00, halfWidth: 0.25, ceiling: 51)
    ) {
        self.sweepMilliseconds = max(2, sweepMilliseconds)
        self.floor = floor
        self.jab = jab
        self.hook = hook
        self.uppercut = uppercut
    }

    /// The sweet spot and ceiling of `kind`.
    public func spot(for kind: PunchType) -> SweetSpot {
        switch kind {
        case .jab: jab
        case .hook: hook
        case .uppercut: uppercut
        }
    }

    /// `duration` in whole milliseconds, the meter's unit (towards zero).
    public static func milliseconds(in duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// The meter's level, 0…1, `milliseconds` after the wind-up: up for half a sweep, down for the
    /// other half, and round again. Before the wind-up (a negative time) it is 0.
    public func level(after milliseconds: Int64) -> Double {
        guard milliseconds > 0 else { return 0 }
        let half = Double(sweepMilliseconds) / 2
        let phase = Double(milliseconds % sweepMilliseconds)
        return phase <= half ? phase / half : (Double(sweepMilliseconds) - phase) / half
    }

    /// The damage of a punch of `kind` stopped `milliseconds` after the wind-up.
    public func damage(of kind: PunchType, stoppedAfter milliseconds: Int64) -> Int {
        let spot = spot(for: kind)
        let closeness = max(0, 1 - abs(level(after: milliseconds) - spot.level) / spot.halfWidth)
        return floor + Int((Double(spot.ceiling - floor) * closeness).rounded())
    }

    /// A sensor's `damage` (4 per g of the stop) as a punch of `kind` may do it: at most the kind's
    /// ceiling.
    public func damage(of kind: PunchType, measured damage: Int) -> Int {
        min(damage, spot(for: kind).ceiling)
    }
}

/// Where on the power meter a kind of punch hits hardest, and how hard.
public struct SweetSpot: Hashable, Sendable, Codable {
    /// The meter's level (0…1) at which the punch does its `ceiling`.
    public var level: Double
    /// How far from `level` the damage falls, linearly, to the meter's floor.
    public var halfWidth: Double
    /// The most damage a punch of this kind does, from the meter or from a sensor.
    public var ceiling: Int

    /// Creates a sweet spot.
    public init(level: Double, halfWidth: Double, ceiling: Int) {
        self.level = level
        self.halfWidth = max(0.01, halfWidth)
        self.ceiling = ceiling
    }
}

// MARK: - How hard a punch was thrown

/// What a punch's damage is worked out from, before the defender's guard.
public enum PunchStrength: Hashable, Sendable, Codable {
    /// A sensor's measure of the swing: 4 per g of its stop, within `Rules.punchDamage`;
    /// `clipped` when an axis was at the sensor's full scale at the stop.
    case measured(damage: Int, clipped: Bool = false)
    /// The power meter, stopped this many milliseconds after the wind-up, by the server's clock.
    case meter(stoppedAfterMilliseconds: Int64)
}
