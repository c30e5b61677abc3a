// MARK: - Rules

/// The numbers the rules are made of. The defaults are the original app's, but for
/// `missedTurnsToForfeit` and `meter`, which it did not have.
public struct Rules: Hashable, Sendable, Codable {
    /// Stamina each fighter starts a fight with.
    public var startingStamina: Int
    /// Seconds the fighter whose turn it is has to punch before the turn passes to the other;
    /// at least 1 (smaller values are raised to 1, since lapsed turns are counted by division).
    public var turnTimeout: Int64 {
        didSet { turnTimeout = max(1, turnTimeout) }
    }
    /// Seconds a challenge waits for an answer before it expires.
    public var challengeLifetime: Int64
    /// Punches each fighter may throw; when both have thrown them all the fight is decided on stamina.
    public var punchesPerFighter: Int
    /// How far away, in kilometres, matchmaking looks for an opponent.
    public var matchRadiusKm: Double
    /// Turns in a row a fighter may let lapse: the one who lets this many pass without punching
    /// in between loses by forfeit, so a fight nobody punches in ends instead of passing its turn
    /// forever. At least 1.
    public var missedTurnsToForfeit: Int {
        didSet { missedTurnsToForfeit = max(1, missedTurnsToForfeit) }
    }
    /// Each kind's ceiling, and the keyboard's power meter that reaches it.
    public var meter: PowerMeter

    /// Creates rules; every parameter defaults to the game's value.
    public init(
        startingStamina: Int = 100, turnTimeout: Int64 = 60, challengeLifetime: Int64 = 24 * 60 * 60,
        punchesPerFighter: Int = 20, matchRadiusKm: Double = 50, missedTurnsToForfeit: Int = 3,
        meter: PowerMeter = PowerMeter()
    ) {
        self.meter = meter
        self.startingStamina = startingStamina
        self.turnTimeout = max(1, turnTimeout)
        self.challengeLifetime = challengeLifetime
        self.punchesPerFighter = punchesPerFighter
        self.matchRadiusKm = matchRadiusKm
        self.missedTurnsToForfeit = max(1, missedTurnsToForfeit)
    }
}

extension Rules {
    /// The damage one punch may do, in hit points: at least 1, and at most 4 a g (the detector's
    /// default scale, the original app's `magnitude × 4`) at 16 g, the full scale of most phone
    /// and controller accelerometers: a harder stop (phones in the hand pass it) does no more.
    /// The server refuses a stated punch outside it, and brings its own detector's punches (on a
    /// scale of their own, with a cap of their own) into it with `clampedDamage(_:)`, in one place
    /// (FightServer's motion holds).
    public static let punchDamage = 1...64

    /// `damage` brought into `punchDamage`: what a detected punch may claim in a fight.
    public static func clampedDamage(_ damage: Int) -> Int {
        min(max(damage, punchDamage.lowerBound), punchDamage.upperBound)
    }
}
