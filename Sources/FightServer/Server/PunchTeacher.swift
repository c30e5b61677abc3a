import FightEngine
import FightProtocol
import Foundation
import MotionInput
import PunchKit

// MARK: - PunchTeacher

/// What the hub keeps of teaching the detector fighters' punches: each fighter's teaching under
/// way (its hold being read and the punches taken so far), and, for fighters connected here, the
/// punch profiles read from the store, so that a swing's detector is made without asking the
/// store, and their usual punch. Nothing in here waits or touches the store; the hub does (`FightHub+Teaching`).
struct PunchTeacher {
    /// A fighter's teaching under way: begun by `teach` on `connection`, over when it is learned,
    /// begun again, or its connection closes.
    struct Teaching {
        /// The hand it teaches.
        let hand: TeachingHand
        /// The connection it began on.
        let connection: Int?
        /// The punches taken, each as the kind the player was asked for.
        var punches: [(kind: PunchKind, punch: Punch)] = []
        /// The hold being read, or the last one, over (a punch found in it, its last batch come,
        /// or refused), whose later batches are dropped.
        var hold: (number: Int, reading: MotionHold?)?

        /// How far it is, as the client is told.
        func progress(
            answering hold: Int? = nil, found punch: (kind: PunchKind, punch: Punch)? = nil
        ) -> TeachingProgress {
            func count(_ kind: PunchKind) -> Int { punches.count { $0.kind == kind } }
            return TeachingProgress(
                hand: hand, punchesPerKind: PunchProfile.punchesPerKind, jabs: count(.jab),
                uppercuts: count(.uppercut), hooks: count(.hook), hold: hold,
                kind: punch.map { PunchType($0.kind) }, peakG: punch?.punch.peakG)
        }

        /// Whether every kind has the punches it needs: the profile is learned at once.
        var isComplete: Bool {
            PunchKind.allCases.allSatisfy { kind in punches.count { $0.kind == kind } >= PunchProfile.punchesPerKind }
        }
    }

    /// What a teaching batch came to.
    enum Outcome {
        /// A batch of a hold over: dropped without an answer.
        case dropped
        /// Nothing found yet: no answer.
        case reading
        /// The hold's punch, taken: its hold and the punch.
        case taken(hold: Int, (kind: PunchKind, punch: Punch))
        /// The hold's last batch, and no punch in it.
        case noPunch
    }

    /// Each fighter's teaching under way.
    private(set) var teachings: [FighterID: Teaching] = [:]
    /// The profiles known here, by fighter: `.some(nil)` for a fighter known to have none; a
    /// fighter not in here has not been read.
    private var profiles: [FighterID: PunchProfile?] = [:]
    /// The usual punch of each fighter connected here, from the swings that landed, so that a
    /// swing's damage is measured against the fighter's own (`UsualPunch`). Kept only here: a
    /// fighter back after their last connection closed starts from the hand-held usual again.
    private var usualPunches: [FighterID: UsualPunch] = [:]
    /// The bounds of every teaching hold: a swing's.
    let limits: MotionHold.Limits

    /// A teacher whose holds keep `limits`.
    init(limits: MotionHold.Limits) { self.limits = limits }

    /// Begins `fighter`'s teaching, dropping one under way.
    mutating func begin(_ fighter: FighterID, hand: TeachingHand, connection: Int?) -> TeachingProgress {
        let teaching = Teaching(hand: hand, connection: connection)
        teachings[fighter] = teaching
        return teaching.progress()
    }

    /// `fighter`'s teaching, refused as `notTeaching` when none is under way.
    func teaching(of fighter: FighterID) throws(ProtocolError) -> Teaching {
        guard let teaching = teachings[fighter] else {
            throw ProtocolError(
                .refused, "no teaching under way: send teach first, then each hold as teachMotion",
                reason: .notTeaching)
        }
        return teaching
    }

    /// Whether `batch` belongs to a hold of `fighter`'s that is over: dropped unread.
    func isOver(_ batch: TeachingBatch, of fighter: FighterID) -> Bool {
        guard let hold = teachings[fighter]?.hold else { return false }
        return hold.number == batch.hold && hold.reading == nil
    }

    /// Feeds `batch` to `fighter`'s teaching hold it belongs to (a new number starts a new hold,
    /// read by a fresh detector without any profile, as a profile is learned from the default
    /// rule's punches), and takes the first punch found as one of the kind asked for.
    /// - Throws: `notTeaching`; a hold's bounds broken (the hold is then over).
    mutating func take(
        _ batch: TeachingBatch, of fighter: FighterID, samples: [MotionSample]
    ) throws(ProtocolError)
        -> Outcome
    {
        var teaching = try teaching(of: fighter)
        defer { teachings[fighter] = teaching }
        let hold: MotionHold
        switch teaching.hold {
        case (batch.hold, nil)?:
            return .dropped
        case (batch.hold, let reading?)?:
            hold = reading
        default:
            hold = MotionHold(limits: limits, pressed: batch.pressed)
            teaching.hold = (batch.hold, hold)
        }
        var punch: Punch?
        do {
            punch = try hold.take(samples)
        } catch {
            teaching.hold = (batch.hold, nil)
            throw ProtocolError(error)
        }
        if punch == nil, batch.final { punch = hold.finish() }
        guard let punch else {
            guard batch.final else { return .reading }
            teaching.hold = (batch.hold, nil)
            return .noPunch
        }
        teaching.hold = (batch.hold, nil)
        let kind = PunchKind(batch.kind)
        teaching.punches.append((kind, punch))
        return .taken(hold: batch.hold, (kind, punch))
    }

    /// Ends `fighter`'s teaching: it was learned, or refused for good.
    mutating func end(_ fighter: FighterID) { teachings[fighter] = nil }

    /// Forgets what is kept of `fighter` when their connection `connection` closed: the teaching
    /// begun on it, and, with their last connection (`last`), their profile (read again when
    /// they come back).
    mutating func disconnected(_ fighter: FighterID, connection: Int, last: Bool) {
        if teachings[fighter]?.connection == connection { teachings[fighter] = nil }
        if last {
            profiles[fighter] = nil
            usualPunches[fighter] = nil
        }
    }

    /// `fighter`'s usual punch so far.
    func usualPunch(of fighter: FighterID) -> UsualPunch { usualPunches[fighter] ?? UsualPunch() }

    /// Takes the peak of a punch found in a swing of `fighter`'s into their usual punch.
    mutating func noteSwing(_ punch: Punch, of fighter: FighterID) {
        usualPunches[fighter, default: UsualPunch()].note(punch.peakG)
    }

    /// `fighter`'s profile as known here: nil when it has not been read (`.some(nil)`: they have none).
    func knownProfile(of fighter: FighterID) -> PunchProfile?? { profiles[fighter] }

    /// Notes `fighter`'s profile (nil: none), read from the store or just taught or forgotten.
    mutating func note(_ profile: PunchProfile?, of fighter: FighterID) { profiles[fighter] = .some(profile) }
}

// MARK: - A profile as the client is shown it

extension WirePunchProfile {
    /// What `profile` learned, for the player.
    init(_ profile: PunchProfile) {
        self.init(
            hand: TeachingHand(profile.hand), gyroscope: profile.gyroscope,
            kinds: profile.kinds.map { taught in
                Kind(kind: PunchType(taught.kind), punches: taught.punches, recognised: taught.recognised)
            },
            typicalPeakG: profile.typicalPeakG)
    }
}

extension PunchProfile {
    /// A profile as the store keeps it (its JSON), checked as a file is; `fighter` names it in errors.
    static func stored(_ json: String, of fighter: FighterID) throws(ProfileFileError) -> PunchProfile {
        try decode(Data(json.utf8), source: "fighter \(fighter.rawValue)'s punch profile")
    }
}
