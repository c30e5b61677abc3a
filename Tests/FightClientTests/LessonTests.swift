import FightClient
import FightEngine
import FightProtocol
import Testing

/// Teaching the server the player's punches from the client: each kind asked for by name, three
/// of each, every hold of the sensor streamed as the lesson's, until the server says what it
/// learned.
@Suite struct LessonTests {
    typealias Player = PlayerSessionTests.Player

    static func progress(
        jabs: Int = 0, uppercuts: Int = 0, hooks: Int = 0, hold: Int? = nil, kind: PunchType? = nil
    )
        -> TeachingProgress
    {
        TeachingProgress(
            hand: .right, punchesPerKind: 3, jabs: jabs, uppercuts: uppercuts, hooks: hooks, hold: hold, kind: kind,
            peakG: kind.map { _ in 10 })
    }

    static let profile = WirePunchProfile(
        hand: .right, gyroscope: true,
        kinds: [
            .init(kind: .jab, punches: 3, recognised: 3), .init(kind: .uppercut, punches: 3, recognised: 2),
            .init(kind: .hook, punches: 3, recognised: 3),
        ], typicalPeakG: 11.46)

    @Test func eachKindIsAskedForByNameAndEachHoldIsTheLessonsUntilItIsLearned() throws {
        var player = try Player(inTurn: false, sensor: true)
        _ = try player.connectAndWelcome(openFights: [])
        let teach = try #require(Player.sent(try player.line("teach")).first)
        #expect(teach.request == .teach(TeachRequest(hand: .right)))
        #expect(player.session.lesson == .starting(hand: .right))

        // The server's counts, none yet: a jab is asked for, and the sensor's motion is the lesson's.
        let started = player.receive(.teaching(Self.progress()), ref: teach.ref)
        #expect(started.contains(.note(.lesson(.throwOne(.jab, number: 1, of: 3)))))
        #expect(started.contains(.awaitMotion(hold: 1, since: player.t0)))
        let rows = PlayerSessionTests.rows(30)
        let streamed = Player.sent(player.handle(.motionRead(rows, hold: 1, at: player.t0)))
        #expect(
            streamed.map(\.request) == [.teachMotion(TeachingBatch(kind: .jab, hold: 1, samples: rows, pressed: 0))])

        // The first jab taken: the second is asked for, in a new hold.
        let taken = player.receive(.teaching(Self.progress(jabs: 1, hold: 1, kind: .jab)), ref: streamed[0].ref)
        #expect(taken.contains(.note(.lesson(.throwOne(.jab, number: 2, of: 3)))))
        #expect(taken.contains(.awaitMotion(hold: 2, since: player.t0)))
        // Rows read for the hold that is over are not sent.
        #expect(Player.sent(player.handle(.motionRead(rows, hold: 1, at: player.t0))).isEmpty)

        // No punch in the next hold: the same kind again.
        let more = PlayerSessionTests.rows(10, from: 1)
        let second = try #require(Player.sent(player.handle(.motionRead(more, hold: 2, at: player.t0))).first)
        let refused = player.receive(
            .error(ProtocolError(.refused, "no punch found in that swing", field: "samples", reason: .noPunchFound)),
            ref: second.ref)
        #expect(refused.contains(.note(.lesson(.noPunch(.jab)))))
        #expect(refused.contains(.awaitMotion(hold: 3, since: player.t0)))

        // Jabs done: an uppercut is asked for next.
        let uppercut = player.receive(.teaching(Self.progress(jabs: 3, hold: 3, kind: .jab)))
        #expect(uppercut.contains(.note(.lesson(.throwOne(.uppercut, number: 1, of: 3)))))

        // The server learned: what it learned is said, and no hold is asked for.
        let learned = player.receive(.taught(TaughtReply(profile: Self.profile)))
        #expect(learned.contains(.note(.lesson(.learned(Self.profile)))))
        #expect(!learned.contains { if case .awaitMotion = $0 { true } else { false } })
        #expect(player.session.lesson == .idle)
    }

    @Test func withoutASensorTeachingSaysWhatItNeedsAndSendsNothing() throws {
        var player = try Player(inTurn: false, sensor: false)
        _ = try player.connectAndWelcome(openFights: [])
        let effects = try player.line("teach")
        #expect(Player.sent(effects).isEmpty)
        #expect(
            effects.contains(
                .note(.lesson(.stopped("teaching needs the motion of a sensor: play --sensor FILE|NODE")))))
    }

    /// Finishing early with too few of a kind: the server's words, and that kind asked for again.
    @Test func tooFewOfAKindAsksForItAgain() {
        var lesson = Lesson.idle
        #expect(lesson.begin(hand: .left) == [.send(.teach(TeachRequest(hand: .left)))])
        _ = lesson.progressed(Self.progress(jabs: 3, uppercuts: 1))
        #expect(lesson.kindAsked == .uppercut)
        #expect(lesson.finish() == [.send(.teachDone)])
        let error = ProtocolError(.refused, "uppercut: 1 teaching punch; expected at least 3", reason: .tooFewPunches)
        #expect(
            lesson.refused(error) == [
                .note(.stopped(error.message)), .note(.throwOne(.uppercut, number: 2, of: 3)), .hold(.uppercut),
            ])
        #expect(lesson.stop("the connection closed") == [.note(.stopped("the connection closed"))])
        #expect(lesson == .idle)
    }

    @Test func whatWasLearnedIsSaidInALine() {
        #expect(
            Lesson.Note.learned(Self.profile).description
                == "learned your punches: jab 3 of 3 typed back, uppercut 2 of 3 typed back, hook 3 of 3 typed back; usual punch 11.5 g; right hand, gyroscope"
        )
        #expect(Lesson.Note.throwOne(.uppercut, number: 2, of: 3).description == "teach: throw an uppercut (2 of 3)")
    }

    @Test func theScriptsTeachingCommands() throws {
        #expect(try PlayerCommand(parsing: "teach") == .teach(nil))
        #expect(try PlayerCommand(parsing: "teach left") == .teach(.left))
        #expect(try PlayerCommand(parsing: "teach done") == .teachDone)
        #expect(try PlayerCommand(parsing: "punches") == .request(.punchProfile))
        #expect(try PlayerCommand(parsing: "forget punches") == .request(.forgetPunchProfile))
        #expect(throws: PlayerCommand.ParseError(description: "teach: expected left, right or done, got 'both'")) {
            try PlayerCommand(parsing: "teach both")
        }
    }
}

extension LessonTests {
    /// A teaching hold refused (no punch, motion too fast) asks for the same kind again in a new
    /// hold; a lesson the server no longer has ends.
    @Test func aRefusedHoldAsksForTheSameKindAgain() {
        var lesson = Lesson.idle
        _ = lesson.begin(hand: .right)
        _ = lesson.progressed(Self.progress(jabs: 3))
        let noPunch = ProtocolError(.refused, "no punch found in that swing", reason: .noPunchFound)
        #expect(lesson.holdRefused(noPunch) == [.note(.noPunch(.uppercut)), .hold(.uppercut)])
        let fast = ProtocolError(.rateLimited, "samples: too many", field: "samples")
        #expect(lesson.holdRefused(fast) == [.note(.again(.uppercut, reason: "samples: too many")), .hold(.uppercut)])
        #expect(lesson.kindAsked == .uppercut)
        let gone = ProtocolError(.refused, "no teaching under way", reason: .notTeaching)
        #expect(lesson.holdRefused(gone) == [.note(.stopped("no teaching under way"))])
        #expect(lesson == .idle)
    }
}
