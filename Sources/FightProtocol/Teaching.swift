import FightEngine

// MARK: - Teaching: what the client sends

/// The hand that throws a player's punches, as `teach` names it.
public enum TeachingHand: String, Hashable, Sendable, Codable, CaseIterable {
    /// The left hand.
    case left
    /// The right hand (the default).
    case right
}

/// The body of `teach`: starts teaching the server this fighter's punches (and drops a teaching
/// not finished).
public struct TeachRequest: Hashable, Sendable {
    /// The hand that throws the teaching punches, and will throw the fights' punches.
    public var hand: TeachingHand

    /// Starts a teaching with `hand`.
    public init(hand: TeachingHand = .right) { self.hand = hand }
}

extension TeachRequest: Codable {
    private enum CodingKeys: String, CodingKey { case hand }

    /// Decodes a request; `hand` left out is the right hand.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hand = try container.decodeIfPresent(TeachingHand.self, forKey: .hand) ?? .right
    }

    /// Encodes `hand`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hand, forKey: .hand)
    }
}

/// The body of `teachMotion`: a batch of a teaching hold, exactly a `motion` batch (`MotionBatch`:
/// the same rows, bounds, lead-in and errors) but naming the kind the player was asked for
/// instead of a fight.
public struct TeachingBatch: Hashable, Sendable {
    /// The kind the player was asked to throw: the hold's punch teaches this kind.
    public var kind: PunchType
    /// The client's number for this hold of the button: a new number starts a new hold.
    public var hold: Int
    /// The samples, oldest first; every row of a hold has the same width.
    public var samples: [MotionRow]
    /// Whether this is the hold's last batch (the button was released).
    public var final: Bool
    /// When the button was pressed, on the samples' clock, if the hold begins with a lead-in.
    public var pressed: Double?

    /// Creates a batch.
    public init(kind: PunchType, hold: Int, samples: [MotionRow], final: Bool = false, pressed: Double? = nil) {
        self.kind = kind
        self.hold = hold
        self.samples = samples
        self.final = final
        self.pressed = pressed
    }
}

extension TeachingBatch: Codable {
    enum CodingKeys: String, CodingKey { case kind }

    /// Decodes the batch, its rows checked as a `motion` batch's are.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(PunchType.self, forKey: .kind)
        let fields = try HoldBatchFields(from: decoder)
        (hold, samples, final, pressed) = (fields.hold, fields.samples, fields.final, fields.pressed)
    }

    /// Encodes the batch with each row as the wire's array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try HoldBatchFields(hold: hold, samples: samples, final: final, pressed: pressed).encode(to: encoder)
    }
}

// MARK: - Teaching: what the server answers

/// The body of `teaching`: how far a teaching is, after `teach` and after each teaching punch.
public struct TeachingProgress: Hashable, Sendable, Codable {
    /// The hand the teaching is for.
    public var hand: TeachingHand
    /// The fewest punches of a kind that teach it.
    public var punchesPerKind: Int
    /// The jabs taught so far.
    public var jabs: Int
    /// The uppercuts taught so far.
    public var uppercuts: Int
    /// The hooks taught so far.
    public var hooks: Int
    /// The hold whose punch this answers, when it answers one.
    public var hold: Int?
    /// The kind that punch taught.
    public var kind: PunchType?
    /// That punch's peak at its stop, in g.
    public var peakG: Double?

    /// Creates the message.
    public init(
        hand: TeachingHand, punchesPerKind: Int, jabs: Int, uppercuts: Int, hooks: Int, hold: Int? = nil,
        kind: PunchType? = nil, peakG: Double? = nil
    ) {
        self.hand = hand
        self.punchesPerKind = punchesPerKind
        self.jabs = jabs
        self.uppercuts = uppercuts
        self.hooks = hooks
        self.hold = hold
        self.kind = kind
        self.peakG = peakG
    }

    /// How many punches of `kind` are taught so far.
    public func punches(of kind: PunchType) -> Int {
        switch kind {
        case .jab: jabs
        case .uppercut: uppercuts
        case .hook: hooks
        }
    }
}

/// A fighter's punch profile as the player is shown it: what it learned and how sure it is.
public struct WirePunchProfile: Hashable, Sendable, Codable {
    /// One kind the profile was taught.
    public struct Kind: Hashable, Sendable, Codable {
        /// The kind.
        public var kind: PunchType
        /// How many punches taught it.
        public var punches: Int
        /// How many of them the profile, asked afresh without each, types back as this kind.
        public var recognised: Int

        /// Creates a kind's line.
        public init(kind: PunchType, punches: Int, recognised: Int) {
            self.kind = kind
            self.punches = punches
            self.recognised = recognised
        }
    }

    /// The hand that threw the teaching punches.
    public var hand: TeachingHand
    /// Whether the teaching punches had a gyroscope.
    public var gyroscope: Bool
    /// Each kind taught; the others fall back to the detector's default rule.
    public var kinds: [Kind]
    /// The player's usual punch: the median peak of the teaching punches' stops, in g.
    public var typicalPeakG: Double

    /// Creates a profile's summary.
    public init(hand: TeachingHand, gyroscope: Bool, kinds: [Kind], typicalPeakG: Double) {
        self.hand = hand
        self.gyroscope = gyroscope
        self.kinds = kinds
        self.typicalPeakG = typicalPeakG
    }
}

/// The body of `taught`: the profile a teaching learned, now the fighter's.
public struct TaughtReply: Hashable, Sendable, Codable {
    /// What was learned.
    public var profile: WirePunchProfile

    /// Creates the message.
    public init(profile: WirePunchProfile) { self.profile = profile }
}

/// The body of `punchProfile`: the fighter's stored profile, absent when they have none.
public struct PunchProfileReply: Hashable, Sendable, Codable {
    /// The profile, if the fighter has one.
    public var profile: WirePunchProfile?

    /// Creates the message.
    public init(profile: WirePunchProfile?) { self.profile = profile }
}
