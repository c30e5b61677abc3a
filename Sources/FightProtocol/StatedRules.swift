import FightEngine

// MARK: - StatedRules

/// The rules a server plays by, as `welcome` states them: every number a client shows a player or
/// keeps to, taken from what the server enforces, so that no client copies one (a server run with
/// `--turn-timeout 30` is shown as 30 s by every client, with no client to change).
public struct StatedRules: Hashable, Sendable, Codable {
    /// The stamina each fighter starts a fight with.
    public var startingStamina: Int
    /// Seconds a turn lasts before it passes to the other fighter.
    public var turnSeconds: Int64
    /// Seconds a challenge waits for an answer before it expires.
    public var challengeSeconds: Int64
    /// Punches each fighter may throw; once both have thrown them, the fight goes to points.
    public var punchesPerFighter: Int
    /// How far matchmaking looks for an opponent, in kilometres.
    public var matchRadiusKm: Double
    /// Turns in a row a fighter may let pass: the one who lets this many pass loses by forfeit.
    public var missedTurnsToForfeit: Int
    /// The power meter: its sweep, floor, and each kind's sweet spot and ceiling (the `meter` a
    /// `windUp` is answered with is this one).
    public var meter: PowerMeter
    /// What the server takes of a sensor's `motion`.
    public var motion: StatedMotionLimits
    /// How long a client waits before connecting again after losing the server.
    public var reconnect: ReconnectBackoff

    /// States `rules`, the protocol's motion limits and `reconnect`.
    public init(_ rules: Rules = Rules(), reconnect: ReconnectBackoff = .standard) {
        startingStamina = rules.startingStamina
        turnSeconds = rules.turnTimeout
        challengeSeconds = rules.challengeLifetime
        punchesPerFighter = rules.punchesPerFighter
        matchRadiusKm = rules.matchRadiusKm
        missedTurnsToForfeit = rules.missedTurnsToForfeit
        meter = rules.meter
        motion = StatedMotionLimits()
        self.reconnect = reconnect
    }
}

/// `MotionLimits` as a client reads them: the bounds of a hold's batches, each one the server
/// refuses a batch beyond.
public struct StatedMotionLimits: Hashable, Sendable, Codable {
    /// The most rows in one batch.
    public var samplesPerBatch: Int
    /// The fastest sample rate taken, in hertz, by the rows' own times.
    public var maximumRate: Double
    /// The longest hold, in seconds, from the press to its last row.
    public var holdSeconds: Double
    /// The longest lead-in before the press, in seconds.
    public var leadSeconds: Double
    /// The largest acceleration on any axis, in m/s².
    public var acceleration: Double
    /// The largest rotation rate on any axis, in °/s.
    public var rotationRate: Double

    /// The limits this build of the protocol enforces (`MotionLimits`).
    public init() {
        samplesPerBatch = MotionLimits.samplesPerBatch
        maximumRate = MotionLimits.maximumRate
        holdSeconds = MotionLimits.holdSeconds
        leadSeconds = MotionLimits.leadSeconds
        acceleration = MotionLimits.acceleration
        rotationRate = MotionLimits.rotationRate
    }
}

/// How long a client waits before it connects again: `firstMilliseconds`, then twice as long each
/// time up to `longestMilliseconds`, and the first wait again once connected. The server states
/// it because it is the server that is hammered, or found late, when clients guess.
public struct ReconnectBackoff: Hashable, Sendable, Codable {
    /// The first wait, in milliseconds.
    public var firstMilliseconds: Int64
    /// The longest wait, in milliseconds.
    public var longestMilliseconds: Int64

    /// Waits from `firstMilliseconds` doubling up to `longestMilliseconds` (at least the first).
    public init(firstMilliseconds: Int64, longestMilliseconds: Int64) {
        self.firstMilliseconds = max(0, firstMilliseconds)
        self.longestMilliseconds = max(self.firstMilliseconds, longestMilliseconds)
    }

    /// A quarter of a second, doubling up to 8 s: a restarted server is found within seconds, and
    /// a thousand clients waiting for it try at most every 8 s each.
    public static let standard = ReconnectBackoff(firstMilliseconds: 250, longestMilliseconds: 8000)
}
