// MARK: - PunchProfile

/// A player's own punches, learned from a few of each kind they threw on purpose: what the
/// detector types that player's punches by, and how hard their punches usually are.
///
/// People punch differently, and one rule fitted to a few people calls one stranger's uppercuts
/// hooks. A player who holds the device the same way each time makes the same motion, in the
/// device's own frame, for each kind; so a profile keeps, for each kind it was taught, the mean of
/// the punches' features (`PunchFeatures`, the device-frame directions among them), and a
/// punch takes the kind whose mean is nearest, each feature measured in how much it varies within
/// a kind. A kind the profile was not taught falls back to the default rule.
///
/// Codable as a small file a person can read: the features by name.
public struct PunchProfile: Hashable, Sendable, Codable {
    /// The format's version this code writes and reads.
    public static let currentVersion = 1

    /// What one kind's teaching punches were like.
    public struct Taught: Hashable, Sendable, Codable {
        /// The kind.
        public var kind: PunchKind
        /// How many punches taught it.
        public var punches: Int
        /// The mean of each feature over them, by the feature's name.
        public var mean: [String: Double]
        /// How many of them the profile, asked afresh without each one, types right: how sure
        /// it can be of this kind.
        public var recognised: Int

        /// Creates a kind's entry.
        public init(kind: PunchKind, punches: Int, mean: [String: Double], recognised: Int) {
            self.kind = kind
            self.punches = punches
            self.mean = mean
            self.recognised = recognised
        }
    }

    /// The format's version.
    public var version: Int
    /// The hand that threw the teaching punches.
    public var hand: Hand
    /// Whether the teaching punches had a gyroscope, so that its features were learned too.
    public var gyroscope: Bool
    /// Each kind taught.
    public var kinds: [Taught]
    /// How much each feature varies within a kind, by name: each feature's distance is in these.
    public var spread: [String: Double]
    /// The median peak of the teaching punches' stops, in g: this player's usual punch.
    public var typicalPeakG: Double

    /// Creates a profile.
    public init(
        version: Int = Self.currentVersion, hand: Hand, gyroscope: Bool, kinds: [Taught],
        spread: [String: Double], typicalPeakG: Double
    ) {
        self.version = version
        self.hand = hand
        self.gyroscope = gyroscope
        self.kinds = kinds
        self.spread = spread
        self.typicalPeakG = typicalPeakG
    }
}

extension Hand: Codable {}

// MARK: - Features as numbers

/// A punch's features as one vector of numbers, in a fixed order: what a profile's means and
/// spreads are over. The last three say which kind the default rule gives (1 for it, 0 for the
/// others), so that where the rule reads a player right, the profile learns to trust it. A
/// fixed-size value, so that typing a punch allocates nothing.
struct FeatureVector: Hashable, Sendable {
    /// The features' names, in order: the keys of a profile's file.
    static let names = [
        "rise", "stop_width", "bend",
        "stop_x", "stop_y", "stop_z", "thrust_x", "thrust_y", "thrust_z", "up_x", "up_y", "up_z",
        "turn_axis_from_vertical", "sideways", "turn", "turn_axis_x", "turn_axis_y", "turn_axis_z",
        "rule_jab", "rule_uppercut", "rule_hook",
    ]
    /// The gyroscope's features: the lanes that count only where both sides have one.
    static let gyroscopeLanes = 12..<18
    /// Where the default rule's kind is: its lane for a jab, the next for an uppercut, then a hook.
    static let ruleLane = 18
    /// What each feature varies by within a kind before any punch is seen: the prior the
    /// learned spreads are drawn towards, so that three punches cannot make a feature look
    /// exact. Angles are measured in their natural units scaled to about one.
    static let priorSpread: SIMD32<Double> = {
        var prior = SIMD32<Double>(repeating: 1)
        let values: [Double] = [
            0.25, 0.05, 0.35,
            0.35, 0.35, 0.35, 0.35, 0.35, 0.35, 0.25, 0.25, 0.25,
            0.2, 0.15, 0.2, 0.35, 0.35, 0.35,
            0.3, 0.3, 0.3,
        ]
        for (index, value) in values.enumerated() { prior[index] = value }
        return prior
    }()

    /// The numbers; lanes past the features' count are zero.
    var values = SIMD32<Double>()
    /// Whether the gyroscope's features are in.
    var hasGyroscope: Bool

    /// A punch's features as numbers, with the kind the default rule gives it.
    init(_ features: PunchFeatures, rule: PunchKind) {
        hasGyroscope = features.hasGyroscope
        values[0] = features.rise
        values[1] = features.stopWidth
        values[2] = features.bend
        func put(_ vector: Vector3, at lane: Int) {
            values[lane] = vector.x
            values[lane + 1] = vector.y
            values[lane + 2] = vector.z
        }
        put(features.stopDirection, at: 3)
        put(features.thrustDirection, at: 6)
        put(features.up, at: 9)
        if let axis = features.turnAxisFromVertical, let sideways = features.sideways,
            let turnAxis = features.turnAxis, let degrees = features.turnDegrees
        {
            values[12] = axis / 90
            values[13] = sideways
            values[14] = degrees / 180
            put(turnAxis, at: 15)
        }
        values[Self.ruleLane + (rule == .jab ? 0 : rule == .uppercut ? 1 : 2)] = 1
    }

    /// Numbers from a profile's named values (absent names zero).
    init(named: [String: Double], hasGyroscope: Bool) {
        for (index, name) in Self.names.enumerated() { values[index] = named[name] ?? 0 }
        self.hasGyroscope = hasGyroscope
    }

    /// The numbers by name, for a profile's file (the gyroscope's only where they are in).
    var named: [String: Double] {
        var result: [String: Double] = [:]
        for (index, name) in Self.names.enumerated() where hasGyroscope || !Self.gyroscopeLanes.contains(index) {
            result[name] = values[index]
        }
        return result
    }

    /// A mask of the lanes that count: the features both sides have.
    static func lanes(gyroscope: Bool) -> SIMD32<Double> { gyroscope ? allLanes : lanesWithoutGyroscope }

    /// How many lanes hold features.
    static let count = names.count
    /// Every feature's lane: 1, and 0 past them.
    private static let allLanes = mask { _ in true }
    /// Every lane but the gyroscope's.
    private static let lanesWithoutGyroscope = mask { !gyroscopeLanes.contains($0) }

    private static func mask(_ counts: (Int) -> Bool) -> SIMD32<Double> {
        var mask = SIMD32<Double>()
        for index in names.indices where counts(index) { mask[index] = 1 }
        return mask
    }
}

// MARK: - Learning

/// Why a profile cannot be learned from the punches given.
public enum ProfileError: Error, Hashable, Sendable {
    /// No punch was given at all.
    case noPunches
    /// A kind was given fewer punches than a profile needs of each kind it knows.
    case tooFew(kind: PunchKind, punches: Int, needed: Int)
}

extension PunchProfile {
    /// The fewest punches of a kind that teach it.
    public static let punchesPerKind = 3
    /// How many punches' worth the prior spread counts for against the learned one.
    static let priorWeight = 2.0
    /// The peak a usual punch reaches with a device held in the hand, in g (the median of the
    /// hand-held phones' and the Joy-Con's punches in the recordings): with a profile, a
    /// player's usual punch counts as this, so that the same effort does the same damage on any
    /// device and grip.
    public static let usualPeakG = 9.0
    /// How far either side of a label's span its punch may be decided, in seconds (as the
    /// recordings' scorer matches).
    public static let labelSlack = 0.3

    /// The punch a label names among those found in its recording: the strongest whose time
    /// (seconds since the recording's first sample, `origin`) is within the label's span widened
    /// by `labelSlack`; nil where none is.
    public static func punch(for label: PunchLabel, among punches: [Punch], origin: Double) -> Punch? {
        punches.filter {
            let time = $0.time - origin
            return time >= label.start - labelSlack && time <= label.end + labelSlack
        }.max { $0.peakG < $1.peakG }
    }

    /// Learns a profile from punches of known kinds, as the default rule found and typed them
    /// (`DetectorConfiguration` without a profile): at least `punchesPerKind` of each kind it is
    /// to know (one, two or three kinds).
    public static func learn(from taught: [(kind: PunchKind, punch: Punch)], hand: Hand) throws(ProfileError)
        -> PunchProfile
    {
        guard !taught.isEmpty else { throw .noPunches }
        for kind in PunchKind.allCases {
            let count = taught.count { $0.kind == kind }
            if count > 0 && count < punchesPerKind {
                throw .tooFew(kind: kind, punches: count, needed: punchesPerKind)
            }
        }
        // A source with a gyroscope may still have a punch without its features (one in the
        // first moments of a recording, before up is known): such a punch counts where it has
        // features, and the gyroscope's are learned where most punches have them.
        let gyroscope = 2 * taught.count { $0.punch.features.hasGyroscope } > taught.count
        let samples = taught.map {
            let vector = FeatureVector($0.punch.features, rule: $0.punch.kind)
            return (kind: $0.kind, vector: vector.values, lanes: FeatureVector.lanes(gyroscope: vector.hasGyroscope))
        }
        let kinds = PunchKind.allCases.filter { kind in samples.contains { $0.kind == kind } }
        /// Each feature's mean over the punches of `kind` that have it (zero where none has).
        func mean(of kind: PunchKind, leaving left: Int? = nil) -> SIMD32<Double> {
            var sum = SIMD32<Double>()
            var count = SIMD32<Double>()
            for (index, sample) in samples.enumerated() where sample.kind == kind && index != left {
                sum += sample.vector * sample.lanes
                count += sample.lanes
            }
            return sum / pointwiseMax(count, SIMD32(repeating: 1))
        }
        // Spread: the pooled variation within kinds, drawn towards the prior.
        var squares = SIMD32<Double>()
        for sample in samples {
            let off = (sample.vector - mean(of: sample.kind)) * sample.lanes
            squares += off * off
        }
        let freedom = Double(samples.count - kinds.count)
        let prior = FeatureVector.priorSpread
        let spread = ((prior * prior * priorWeight + squares) / (priorWeight + freedom)).squareRoot()
        // How sure: each punch typed by the others of its kind (its own left out).
        var recognised: [PunchKind: Int] = [:]
        for (index, sample) in samples.enumerated() {
            let lanes = gyroscope ? sample.lanes : FeatureVector.lanes(gyroscope: false)
            let means = kinds.map { ($0, mean(of: $0, leaving: $0 == sample.kind ? index : nil)) }
            let nearest = means.min {
                distance(sample.vector, $0.1, spread: spread, lanes: lanes)
                    < distance(sample.vector, $1.1, spread: spread, lanes: lanes)
            }
            if nearest?.0 == sample.kind { recognised[sample.kind, default: 0] += 1 }
        }
        let entries = kinds.map { kind in
            Taught(
                kind: kind, punches: samples.count { $0.kind == kind },
                mean: FeatureVector(values: mean(of: kind), hasGyroscope: gyroscope).named,
                recognised: recognised[kind] ?? 0)
        }
        let peaks = taught.map(\.punch.peakG).sorted()
        return PunchProfile(
            hand: hand, gyroscope: gyroscope, kinds: entries,
            spread: FeatureVector(values: spread, hasGyroscope: gyroscope).named,
            typicalPeakG: peaks[peaks.count / 2])
    }
}

/// The squared distance between two feature vectors over `lanes`, each lane in its spread. Lane
/// by lane over the features alone: a whole SIMD32 of doubles is more work than the features.
func distance(_ a: SIMD32<Double>, _ b: SIMD32<Double>, spread: SIMD32<Double>, lanes: SIMD32<Double>) -> Double {
    var sum = 0.0
    for lane in 0..<FeatureVector.count {
        let off = (a[lane] - b[lane]) / spread[lane] * lanes[lane]
        sum += off * off
    }
    return sum
}

// MARK: - Typing by a profile

extension PunchProfile {
    /// The kind this profile gives a punch of these features that the default rule calls
    /// `fallback`, and how sure it is (0 to 1; nil where the profile does not know that kind and
    /// keeps it). A detector with the profile types each punch so, without reading the profile anew.
    public func kind(of features: PunchFeatures, byDefault fallback: PunchKind) -> (kind: PunchKind, confidence: Double?) {
        LearnedKinds(self).kind(of: features, byDefault: fallback)
    }
}

/// A profile made ready for the detector: its numbers as vectors, read once, so that typing a
/// punch allocates nothing.
struct LearnedKinds: Sendable {
    /// Each kind's mean, in `PunchKind.allCases`' order; a kind not taught is left out of `taught`.
    private let means: (SIMD32<Double>, SIMD32<Double>, SIMD32<Double>)
    /// Which kinds were taught, in the same order.
    private let taught: (Bool, Bool, Bool)
    private let spread: SIMD32<Double>
    private let gyroscope: Bool
    /// What a stop's peak is multiplied by for its damage: the usual peak over this player's.
    let peakScale: Double

    init(_ profile: PunchProfile) {
        gyroscope = profile.gyroscope
        peakScale = PunchProfile.usualPeakG / profile.typicalPeakG
        func mean(of kind: PunchKind) -> SIMD32<Double>? {
            profile.kinds.first { $0.kind == kind }.map {
                FeatureVector(named: $0.mean, hasGyroscope: profile.gyroscope).values
            }
        }
        let (jab, uppercut, hook) = (mean(of: .jab), mean(of: .uppercut), mean(of: .hook))
        means = (jab ?? .zero, uppercut ?? .zero, hook ?? .zero)
        taught = (jab != nil, uppercut != nil, hook != nil)
        // A spread of zero (a file written by hand) would divide by zero: the prior is the least.
        spread = pointwiseMax(
            FeatureVector(named: profile.spread, hasGyroscope: profile.gyroscope).values,
            FeatureVector.priorSpread * 0.1)
    }

    /// The kind of a punch of these features, and how sure (0 to 1); a punch the default rule
    /// calls a kind the profile does not know keeps that kind, unsure. Held in tuples, not arrays,
    /// so that typing a punch retains nothing.
    func kind(of features: PunchFeatures, byDefault fallback: PunchKind) -> (kind: PunchKind, confidence: Double?) {
        guard isTaught(fallback) else { return (fallback, nil) }
        let vector = FeatureVector(features, rule: fallback)
        let lanes = FeatureVector.lanes(gyroscope: gyroscope && vector.hasGyroscope)
        var distances = SIMD4<Double>(repeating: .infinity)
        var best = Self.lane(of: fallback)
        for lane in 0..<3 where isTaught(Self.kind(inLane: lane)) {
            distances[lane] = distance(vector.values, mean(of: Self.kind(inLane: lane)), spread: spread, lanes: lanes)
            if distances[lane] < distances[best] { best = lane }
        }
        // The nearest kind's share of the likelihoods, each exp(−d/2) relative to the nearest's.
        var total = 0.0
        for lane in 0..<3 where distances[lane].isFinite {
            total += exponential(-(distances[lane] - distances[best]) / 2)
        }
        return (Self.kind(inLane: best), 1 / total)
    }

    /// The kind whose mean is in `lane` (0, 1, 2: `PunchKind.allCases`' order).
    private static func kind(inLane lane: Int) -> PunchKind { lane == 0 ? .jab : lane == 1 ? .uppercut : .hook }

    /// The lane of `kind`'s mean.
    private static func lane(of kind: PunchKind) -> Int {
        switch kind {
        case .jab: 0
        case .uppercut: 1
        case .hook: 2
        }
    }

    private func isTaught(_ kind: PunchKind) -> Bool {
        switch kind {
        case .jab: taught.0
        case .uppercut: taught.1
        case .hook: taught.2
        }
    }

    private func mean(of kind: PunchKind) -> SIMD32<Double> {
        switch kind {
        case .jab: means.0
        case .uppercut: means.1
        case .hook: means.2
        }
    }
}

extension FeatureVector {
    /// A vector from its numbers.
    init(values: SIMD32<Double>, hasGyroscope: Bool) {
        self.values = values
        self.hasGyroscope = hasGyroscope
    }
}

/// e to the power `x`, for `x` ≤ 0 (a likelihood's ratio): 2ⁿ times a series on the rest.
/// PunchKit has no libm.
func exponential(_ x: Double) -> Double {
    guard x > -700 else { return 0 }
    let n = (x / 0.6931471805599453).rounded()
    let r = x - n * 0.6931471805599453
    var term = 1.0
    var sum = 1.0
    for k in 1...14 {
        term *= r / Double(k)
        sum += term
    }
    return sum * Double(sign: .plus, exponent: Int(n), significand: 1)
}
