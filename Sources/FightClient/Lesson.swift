import FightEngine
import FightProtocol

// MARK: - Lesson

/// Teaching the server the player's punches, as the client runs it (PROTOCOL.md's "Teaching the
/// detector your punches"): `teach`, then each kind asked for by name (jab, uppercut, hook, three
/// of each), each a hold of the sensor's motion, until the server answers `taught`. A state
/// machine in the session's style: what happened goes in, what to do comes out (`Action`s); the
/// session sends, holds and says.
public enum Lesson: Hashable, Sendable {
    /// Nothing is being taught.
    case idle
    /// `teach` was sent for `hand`; its `teaching` is awaited.
    case starting(hand: TeachingHand)
    /// `kind` is asked for: the server has taught `progress` so far.
    case asking(TeachingProgress, kind: PunchType)
    /// `teachDone` was sent with `progress` taught; `taught` (or a refusal) is awaited.
    case finishing(TeachingProgress?)

    /// What the session does for the lesson, in order.
    public enum Action: Hashable, Sendable {
        /// Send `request`; its answer (or error) is the lesson's.
        case send(ClientRequest)
        /// Stream a new hold of the sensor's motion, teaching `kind`.
        case hold(PunchType)
        /// Tell the player.
        case note(Note)
    }

    /// What the lesson tells the player, kept typed until it is shown.
    public enum Note: Hashable, Sendable, CustomStringConvertible {
        /// Asks for a punch of `kind`: the `number`th of `of`.
        case throwOne(PunchType, number: Int, of: Int)
        /// The hold came without a punch in it: `kind` again.
        case noPunch(PunchType)
        /// The server refused the hold (`reason`, its words): `kind` again.
        case again(PunchType, reason: String)
        /// The profile the server learned, now the player's.
        case learned(WirePunchProfile)
        /// The server's profile, as asked for (`nil`: none taught).
        case stored(WirePunchProfile?)
        /// The lesson stopped: the server refused it (`message`), or it could not go on.
        case stopped(String)

        /// The note's words.
        public var description: String {
            switch self {
            case .throwOne(let kind, let number, let of):
                "teach: throw \(article(kind)) \(kind.rawValue) (\(number) of \(of))"
            case .noPunch(let kind): "teach: no punch found in that swing; throw the \(kind.rawValue) again"
            case .again(let kind, let reason): "teach: \(reason); throw the \(kind.rawValue) again"
            case .learned(let profile): "learned your punches: " + Self.summary(of: profile)
            case .stored(let profile?): "your punches: " + Self.summary(of: profile)
            case .stored(nil): "your punches: not taught (t teaches them)"
            case .stopped(let reason): "teach: \(reason)"
            }
        }

        /// What a profile learned and how sure it is, in a line: each kind's punches typed back,
        /// the usual punch, and whether the gyroscope was in.
        public static func summary(of profile: WirePunchProfile) -> String {
            let kinds = profile.kinds.map { "\($0.kind.rawValue) \($0.recognised) of \($0.punches) typed back" }
            let peak = (profile.typicalPeakG * 10).rounded() / 10
            return kinds.joined(separator: ", ")
                + "; usual punch \(peak) g; \(profile.hand.rawValue) hand"
                + (profile.gyroscope ? ", gyroscope" : ", no gyroscope")
        }

        private func article(_ kind: PunchType) -> String { kind == .uppercut ? "an" : "a" }
    }

    /// The kinds in the order they are asked for.
    public static let order: [PunchType] = [.jab, .uppercut, .hook]

    /// The kind asked for now, if any: a hold of the sensor is then the lesson's.
    public var kindAsked: PunchType? {
        if case .asking(_, let kind) = self { kind } else { nil }
    }

    /// Whether a lesson is under way.
    public var isUnderWay: Bool { self != .idle }

    /// The player asked to be taught (again): a lesson under way starts over.
    public mutating func begin(hand: TeachingHand) -> [Action] {
        self = .starting(hand: hand)
        return [.send(.teach(TeachRequest(hand: hand)))]
    }

    /// The player asked to learn from what was taught so far.
    public mutating func finish() -> [Action] {
        switch self {
        case .idle:
            return [.note(.stopped("nothing is being taught; t (or teach) starts"))]
        case .asking(let progress, _):
            self = .finishing(progress)
        case .starting, .finishing:
            self = .finishing(nil)
        }
        return [.send(.teachDone)]
    }

    /// The server's `teaching`: the next kind short of its punches is asked for.
    public mutating func progressed(_ progress: TeachingProgress) -> [Action] {
        guard isUnderWay else { return [] }
        guard let kind = Self.order.first(where: { progress.punches(of: $0) < progress.punchesPerKind }) else {
            self = .finishing(progress)
            return [.send(.teachDone)]
        }
        self = .asking(progress, kind: kind)
        return [
            .note(.throwOne(kind, number: progress.punches(of: kind) + 1, of: progress.punchesPerKind)), .hold(kind),
        ]
    }

    /// The server refused a batch of the lesson's hold, which is then over: the same kind again,
    /// in a new hold (no punch found in it, or its motion refused: too fast, say). Only a lesson
    /// the server no longer has (`notTeaching`) ends.
    public mutating func holdRefused(_ error: ProtocolError) -> [Action] {
        guard case .asking(_, let kind) = self else { return [] }
        switch error.reason?.known {
        case .noPunchFound: return [.note(.noPunch(kind)), .hold(kind)]
        case .notTeaching: return refused(error)
        default: return [.note(.again(kind, reason: error.message)), .hold(kind)]
        }
    }

    /// The server's `taught`: the lesson is over.
    public mutating func learned(_ profile: WirePunchProfile) -> [Action] {
        self = .idle
        return [.note(.learned(profile))]
    }

    /// The server refused a request of the lesson. Too few punches of a kind to finish: that
    /// kind is asked for again, and the lesson goes on; anything else ends it.
    public mutating func refused(_ error: ProtocolError) -> [Action] {
        if error.reason == .known(.tooFewPunches), case .finishing(let progress?) = self {
            self = .starting(hand: progress.hand)
            return [.note(.stopped(error.message))] + progressed(progress)
        }
        self = .idle
        return [.note(.stopped(error.message))]
    }

    /// The lesson cannot go on (`reason`): the connection closed, or the sensor ended.
    public mutating func stop(_ reason: String) -> [Action] {
        guard isUnderWay else { return [] }
        self = .idle
        return [.note(.stopped(reason))]
    }
}
