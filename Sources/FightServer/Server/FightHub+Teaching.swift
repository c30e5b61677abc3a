import FightEngine
import FightProtocol
import FightStore
import MotionInput
import PunchKit

// MARK: - Teaching the detector a fighter's punches

extension FightHub {
    /// Answers the teaching requests (`teach`, `teachMotion`, `teachDone`, `forgetPunchProfile`);
    /// see PROTOCOL.md's "Teaching the detector your punches". A profile learned is saved with
    /// the fighter and used for their swings from then on (`detectorConfiguration(for:)`).
    func teaching(_ request: ClientRequest, by me: FighterID, connection: Int?) async throws -> ServerBody? {
        switch request {
        case .teach(let request):
            return .teaching(teacher.begin(me, hand: request.hand, connection: connection))
        case .teachMotion(let batch):
            return try await teachingHold(batch, by: me)
        case .teachDone:
            return try await learn(for: me)
        case .forgetPunchProfile:
            _ = try await store.forgetPunchProfile(of: me)
            teacher.note(nil, of: me)
            return .punchProfile(PunchProfileReply(profile: nil))
        default:
            throw ProtocolError(.internalError, "a request that teaches nothing reached the teacher")
        }
    }

    /// Feeds a teaching hold's batch: the hold's first punch is taken as one of the kind asked for
    /// (answered `teaching`, or `taught` when it completes every kind); its last batch without one
    /// is refused `noPunchFound`. Counted against the fighter's motion samples as `motion` is.
    private func teachingHold(_ batch: TeachingBatch, by me: FighterID) async throws -> ServerBody? {
        _ = try teacher.teaching(of: me)
        if teacher.isOver(batch, of: me) { return nil }
        try await takeMotionSamples(batch.samples.count, of: me)
        switch try teacher.take(batch, of: me, samples: batch.samples.map(MotionSample.init(wire:))) {
        case .dropped, .reading:
            return nil
        case .noPunch:
            throw ProtocolError(
                .refused, "no punch found in that swing; throw the \(batch.kind.rawValue) again", field: "samples",
                reason: .noPunchFound)
        case .taken(let hold, let punch):
            let teaching = try teacher.teaching(of: me)
            guard teaching.isComplete else { return .teaching(teaching.progress(answering: hold, found: punch)) }
            return try await learn(for: me)
        }
    }

    /// Learns `me`'s profile from their teaching's punches, saves it (replacing the one before)
    /// and uses it from now on; answered `taught`. Too few of a kind is refused `tooFewPunches`,
    /// and the teaching goes on.
    private func learn(for me: FighterID) async throws -> ServerBody {
        let teaching = try teacher.teaching(of: me)
        let profile: PunchProfile
        do {
            profile = try PunchProfile.learn(
                from: teaching.punches, hand: Hand(teaching.hand))
        } catch .noPunches {
            throw ProtocolError(
                .refused,
                "no teaching punch yet: expected at least \(PunchProfile.punchesPerKind) of each kind taught; hold and throw the kind asked for",
                reason: .tooFewPunches)
        } catch .tooFew(let kind, let punches, let needed) {
            throw ProtocolError(
                .refused,
                "\(kind.rawValue): \(punches) teaching punch\(punches == 1 ? "" : "es"); expected at least \(needed) of each kind taught (throw more, or leave the kind out)",
                field: "kind", reason: .tooFewPunches)
        }
        let json = profile.json
        let now = clock.now()
        try await store.savePunchProfile(json, of: me, at: now)
        teacher.note(profile, of: me)
        // A teaching begun again meanwhile (on another connection) is that one's own.
        if teacher.teachings[me]?.connection == teaching.connection { teacher.end(me) }
        return .taught(TaughtReply(profile: WirePunchProfile(profile)))
    }

    /// The detector's settings for `me`'s swings: typed by their punch profile, if they taught
    /// one. Read from the store once, then kept here while they are connected (a new teaching
    /// replaces it). A stored profile that cannot be read is logged and left unused.
    func detectorConfiguration(for me: FighterID) async throws -> DetectorConfiguration {
        var configuration = DetectorConfiguration()
        if let known = teacher.knownProfile(of: me) {
            configuration.profile = known
            return configuration
        }
        let profile = try await storedProfile(of: me)
        // Taught meanwhile: that one is newer than what was read.
        if let known = teacher.knownProfile(of: me) {
            configuration.profile = known
        } else {
            teacher.note(profile, of: me)
            configuration.profile = profile
        }
        return configuration
    }

    /// `me`'s profile as the store has it, read off the hub's thread; one that cannot be read is
    /// logged and taken as none (the fighter teaches again).
    nonisolated func storedProfile(of me: FighterID) async throws -> PunchProfile? {
        guard let json = (try await store.punchProfile(of: me)) else { return nil }
        do {
            return try PunchProfile.stored(json, of: me)
        } catch {
            logger.error("a stored punch profile cannot be read", metadata: ["error": "\(error)"])
            return nil
        }
    }
}

extension MotionSample {
    /// A `motion` row as the detector reads it: m/s² and °/s.
    init(wire row: MotionRow) {
        self.init(
            time: row.time, acceleration: Vector3(row.acceleration), in: .metersPerSecondSquared,
            rotationRate: row.rotationRate.map(Vector3.init), in: .degreesPerSecond)
    }
}
