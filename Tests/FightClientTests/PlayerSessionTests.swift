import FightClient
import FightEngine
import FightProtocol
import Testing

/// The play client's rules without a socket, a clock or a sensor: events in, effects out, time
/// given. Fights come from the engine (`FightFollowerTests.Bout`), as the server makes them.
@Suite struct PlayerSessionTests {
    typealias Effect = PlayerSession.Effect

    /// A player's session fed by hand, against the fight of a `Bout`.
    struct Player {
        var session: PlayerSession
        var bout: FightFollowerTests.Bout
        let me: FighterID
        let t0 = ContinuousClock.now

        /// The session of the fighter whose turn it is in the bout's fight (or of the other one).
        init(_ mode: PlayerSession.Mode = .script, inTurn: Bool = true, sensor: Bool = false) throws {
            bout = try FightFollowerTests.Bout()
            let view = try bout.view()
            let turn = try #require(view.turn)
            me = inTurn ? turn : (turn == view.challenger ? view.opponent : view.challenger)
            session = PlayerSession(
                PlayerSession.Configuration(
                    mode: mode, username: "alice", server: "ws://127.0.0.1:8080", hasSensor: sensor, showsCards: false))
        }

        var card: FighterCard {
            get throws { FighterCard(try #require(bout.state.fighters[me]), showingLocation: true) }
        }

        mutating func handle(_ event: PlayerSession.Event) -> [Effect] { session.handle(event) }

        /// The server sends `body` (answering `ref`), `seconds` after the start.
        mutating func receive(_ body: ServerBody, ref: Int? = nil, after seconds: Int = 0) -> [Effect] {
            handle(.received(MessageCodec.encode(ServerMessage(ref: ref, body)), at: t0 + .seconds(seconds)))
        }

        /// Performs the command `text` is as a script line (which must be one).
        mutating func line(_ text: String) throws -> [Effect] {
            handle(.command(try #require(try PlayerCommand(parsing: text)), at: t0))
        }

        /// Connects and is welcomed with the bout's fight open; returns the effects of the welcome.
        mutating func connectAndWelcome(openFights: [FightView]? = nil) throws -> [Effect] {
            _ = handle(.start)
            let connected = handle(.connected(Session(token: "t", fighter: try card)))
            let hello = try #require(Self.sent(connected).first { $0.request == .hello })
            return receive(
                .welcome(Welcome(fighter: try card, openFights: try openFights ?? [bout.view()])), ref: hello.ref)
        }

        /// The requests among `effects`, with their refs.
        static func sent(_ effects: [Effect]) -> [(request: ClientRequest, ref: Int)] {
            effects.compactMap { if case .send(let request, let ref) = $0 { (request, ref) } else { nil } }
        }
    }

    // MARK: - Connecting

    @Test func commandsWhileDisconnectedAreQueuedAndSentOnceWelcomed() throws {
        var player = try Player()
        #expect(try player.line("profile").isEmpty, "not connected: queued")
        #expect(try player.line("history").isEmpty)
        #expect(player.handle(.start) == [.connect])
        let connected = player.handle(.connected(Session(token: "t", fighter: try player.card)))
        #expect(
            connected == [
                .status(.connected(server: "ws://127.0.0.1:8080", username: try player.card.username)),
                .send(.hello, ref: 1),
            ])
        #expect(try player.line("stats").isEmpty, "connected but not welcomed: still queued")
        let welcomed = player.receive(.welcome(Welcome(fighter: try player.card, openFights: [])), ref: 1)
        #expect(
            Player.sent(welcomed).map { $0.request } == [
                .profile(ProfileRequest()), .history, .statistics(StatisticsRequest()),
            ],
            "in the order typed")
        #expect(Player.sent(try player.line("history")).map { $0.request } == [.history], "welcomed: sent at once")
    }

    /// What a program driving the session (`hitthat-load`) reads off it rather than keeping
    /// itself: whether requests go at once, and whether the player waits in a room, which a room
    /// request lost with the connection makes unknown until the server says.
    @Test func theSessionSaysWhetherItIsWelcomedAndWaitsInARoom() throws {
        var player = try Player(.screen, inTurn: false)
        let me = try player.card.id
        func room(_ kind: WireEvent.Kind) -> ServerBody {
            var event = WireEvent(kind: kind, at: Timestamp(secondsSince1970: 1_800_000_000))
            event.fighter = me
            return .event(event)
        }
        _ = player.handle(.start)
        _ = player.handle(.connected(Session(token: "t", fighter: try player.card)))
        #expect(!player.session.isWelcomed, "connected, not welcomed yet")
        _ = player.receive(.welcome(Welcome(fighter: try player.card, openFights: [])), ref: 1)
        #expect(player.session.isWelcomed)
        #expect(player.session.isWaitingInRoom == false)

        let asked = try #require(Player.sent(player.handle(.command(.request(.quickMatch), at: player.t0))).first)
        _ = player.receive(room(.openedRoom), ref: asked.ref)
        #expect(player.session.isWaitingInRoom == true)
        _ = player.receive(room(.leftRoom))
        #expect(player.session.isWaitingInRoom == false)

        _ = player.handle(.command(.request(.quickMatch), at: player.t0))
        _ = player.handle(.disconnected(reason: nil))
        #expect(!player.session.isWelcomed)
        #expect(player.session.isWaitingInRoom == nil, "the request went with the connection, answered or not")

        _ = player.handle(.connected(Session(token: "t", fighter: try player.card)))
        _ = player.receive(.welcome(Welcome(fighter: try player.card, openFights: [])), ref: 4)
        #expect(player.session.isWaitingInRoom == nil, "welcome does not say")
        let again = try #require(Player.sent(player.handle(.command(.request(.quickMatch), at: player.t0))).first)
        _ = player.receive(.error(ProtocolError(.refused, "already waiting", reason: .alreadyWaiting)), ref: again.ref)
        #expect(player.session.isWaitingInRoom == true, "the refusal says it")
    }

    /// A message that does not read is a typed note, so that a program can count it whatever the
    /// words; the words name the problem.
    @Test func anUnreadableMessageIsATypedNote() throws {
        var player = try Player()
        _ = try player.connectAndWelcome()
        let effects = player.handle(.received(#"{"type":"welcome","v":1}"#, at: player.t0))
        guard case .note(.unreadableMessage(let error)) = try #require(effects.first), effects.count == 1 else {
            Issue.record("expected one unreadable-message note, got \(effects)")
            return
        }
        #expect(error.code == .invalid)
        #expect(
            PlayerSession.Note.unreadableMessage(error).description.hasPrefix("unreadable message from the server: "))
    }

    @Test func rawMessagesWaitForTheWelcomeTooAndGoAsTheyAre() throws {
        var player = try Player()
        #expect(try player.line(#"{"type":"dance","v":1}"#).isEmpty)
        _ = player.handle(.start)
        _ = player.handle(.connected(Session(token: "t", fighter: try player.card)))
        let welcomed = player.receive(.welcome(Welcome(fighter: try player.card, openFights: [])), ref: 1)
        #expect(welcomed.contains(.sendRaw(#"{"type":"dance","v":1}"#)))
    }

    @Test func aFightLeftOutIsTheOnlyOpenOneOrTheCommandSaysSo() throws {
        var player = try Player()
        _ = try player.connectAndWelcome()
        let fight = try player.bout.view().id
        #expect(Player.sent(try player.line("forfeit")).map { $0.request } == [.forfeit(FightRef(fight: fight))])
        var alone = try Player()
        _ = try alone.connectAndWelcome(openFights: [])
        #expect(try alone.line("accept") == [.note(.noSingleFight(.accept))])
        #expect(Player.sent(try alone.line("decline 9")).map { $0.request } == [.decline(FightRef(fight: FightID(9)))])
    }

    @Test func aProgramsRequestWaitsForTheWelcomeAndGoesAsItIsWithoutATurnChecked() throws {
        var player = try Player(inTurn: false)
        #expect(player.handle(.command(.request(.history), at: player.t0)).isEmpty, "not welcomed: queued")
        _ = player.handle(.start)
        let connected = player.handle(.connected(Session(token: "t", fighter: try player.card)))
        let hello = try #require(Player.sent(connected).first)
        let welcomed = player.receive(.welcome(Welcome(fighter: try player.card, openFights: [])), ref: hello.ref)
        #expect(Player.sent(welcomed).map { $0.request } == [.history])
        // Out of turn, in a fight it does not know: a line would be refused here.
        let punch = PunchRequest(fight: FightID(999), kind: .jab, after: 1)
        #expect(try player.line("punch 999 jab") == [.note(.notYourTurn(verb: "punch"))])
        #expect(
            player.handle(.command(.request(.punch(punch)), at: player.t0)) == [
                .send(.punch(punch), ref: hello.ref + 2)
            ])
    }

    @Test func aConnectionThatFailedSaysWhyAndIsRetried() throws {
        var player = try Player(.screen)
        _ = try player.connectAndWelcome()
        let lost = player.handle(.disconnected(reason: "connection reset by peer"))
        #expect(lost.first == .note(.connectionFailed("connection reset by peer")))
        #expect(lost.contains(.startTimer(.reconnect, after: .milliseconds(250))))
    }

    @Test func aLostConnectionIsRetriedWithGrowingWaitsAndCatchesUp() throws {
        var player = try Player(.screen)
        let known = try player.bout.view()
        _ = try player.connectAndWelcome()
        #expect(
            player.handle(.disconnected(reason: nil)) == [
                .status(.retrying(.serverGone, in: .milliseconds(250))),
                .startTimer(.reconnect, after: .milliseconds(250)),
            ])
        #expect(player.handle(.timerFired(.reconnect, at: player.t0)) == [.connect])
        let failed = player.handle(.connectionFailed(.unreachable(ConnectionError("cannot reach the server"))))
        #expect(failed.contains(.startTimer(.reconnect, after: .milliseconds(500))), "twice as long: \(failed)")
        #expect(
            !failed.contains { if case .note = $0 { true } else { false } }, "it was reached before: the server is gone"
        )
        // Back: hello again, and what happened meanwhile is asked for rather than skipped.
        try player.bout.punch(10)
        _ = player.handle(.timerFired(.reconnect, at: player.t0))
        let connected = player.handle(.connected(Session(token: "t", fighter: try player.card)))
        let hello = try #require(Player.sent(connected).first)
        #expect(hello.request == .hello)
        let welcomed = player.receive(
            .welcome(Welcome(fighter: try player.card, openFights: [try player.bout.view()])), ref: hello.ref)
        #expect(
            Player.sent(welcomed).map { $0.request } == [
                .replay(ReplayRequest(fight: known.id, after: known.lastSequence))
            ])
        // Connected again: the next wait starts over.
        let lostAgain = player.handle(.disconnected(reason: nil))
        #expect(lostAgain.contains(.startTimer(.reconnect, after: .milliseconds(250))))
    }

    @Test func theWaitBetweenAttemptsDoublesUpToItsLongest() {
        var backoff = Backoff(first: .milliseconds(250), longest: .seconds(1))
        #expect(
            (0..<4).map { _ in backoff.next() } == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(1)])
        backoff.reset()
        #expect(backoff.next() == .milliseconds(250))
    }

    @Test func aScaledBackoffWaitsThatMuchLongerAtEveryStep() {
        var backoff = Backoff(first: .milliseconds(250), longest: .seconds(1)).scaled(by: 1.2000004)
        #expect(
            (0..<4).map { _ in backoff.next() } == [
                .milliseconds(300), .milliseconds(600), .milliseconds(1200), .milliseconds(1200),
            ])
    }

    @Test func aScriptThatNeverReachesTheServerFails() throws {
        var player = try Player(.script)
        _ = player.handle(.start)
        let unreachable = ConnectionError("cannot reach the server at h:1")
        #expect(player.handle(.connectionFailed(.unreachable(unreachable))) == [.finish])
        #expect(player.session.failure == .unreachable(unreachable))
        #expect(player.session.failure?.description == "cannot reach the server at h:1")
    }

    @Test func aScreenThatNeverReachedTheServerSaysWhyAndKeepsTrying() throws {
        var player = try Player(.screen)
        _ = player.handle(.start)
        #expect(
            player.handle(.connectionFailed(.unreachable(ConnectionError("cannot reach the server at h:1")))) == [
                .note(.unreachable(ConnectionError("cannot reach the server at h:1"))),
                .status(.retrying(.couldNotConnect, in: .milliseconds(250))),
                .startTimer(.reconnect, after: .milliseconds(250)),
            ])
        #expect(player.session.failure == nil)
        let connected = player.handle(.connected(Session(token: "t", fighter: try player.card)))
        #expect(connected.first == .note(.cleared), "the reason is cleared once connected")
    }

    /// A server that took too many sign-ins from this address is busy, not refusing: even a
    /// script waits and signs in again.
    @Test func aRateLimitedSignInIsTriedAgainLater() throws {
        var player = try Player(.script)
        _ = player.handle(.start)
        let busy = ProtocolError(.rateLimited, "more than 1 account request a second from this address")
        #expect(
            player.handle(.connectionFailed(.rateLimited(busy))) == [
                .note(.connectionFailed(busy.message)),
                .status(.retrying(.serverBusy, in: .milliseconds(250))),
                .startTimer(.reconnect, after: .milliseconds(250)),
            ])
        #expect(player.session.failure == nil && !player.session.isOver)
        #expect(player.handle(.timerFired(.reconnect, at: player.t0)) == [.connect])
    }

    @Test func aRefusedLoginEndsTheSession() throws {
        var player = try Player(.screen)
        _ = player.handle(.start)
        let refusal = ProtocolError(.unauthorized, "username or password does not match")
        #expect(player.handle(.connectionFailed(.refused(refusal))) == [.finish])
        #expect(player.session.failure == .refused(username: "alice", refusal))
        #expect(player.session.failure?.description == "alice: username or password does not match")
        #expect(try player.line("profile").isEmpty, "over: nothing more")
    }

    // MARK: - The power meter

    /// A wind-up goes to the fight awaiting the player's punch and shows the meter from the
    /// moment it was sent; a second one in the same turn only changes the aim; the punch that
    /// stops it goes alone, without damage, and the meter is gone.
    @Test func aWindUpShowsTheMeterAndThePunchStopsIt() throws {
        var player = try Player(.screen)
        _ = try player.connectAndWelcome()
        let view = try player.bout.view()
        let wound = try player.line("windup uppercut")
        let sent = try #require(Player.sent(wound).first)
        #expect(sent.request == .windUp(WindUpRequest(fight: view.id, after: view.lastSequence)))
        let shown = AimedMeter(fight: view.id, kind: .uppercut, since: player.t0, meter: Rules().meter)
        #expect(wound.contains(.meter(shown)))
        // The server's meter replaces the one drawn meanwhile.
        var served = Rules().meter
        served.sweepMilliseconds = 2000
        #expect(
            player.receive(.meter(MeterReply(fight: view.id, after: view.lastSequence, meter: served)), ref: sent.ref)
                .contains(.meter(AimedMeter(fight: view.id, kind: .uppercut, since: player.t0, meter: served))))
        let reaimed = try player.line("windup jab")
        #expect(Player.sent(reaimed).isEmpty, "the meter sweeps on: not wound up again")
        #expect(reaimed == [.meter(AimedMeter(fight: view.id, kind: .jab, since: player.t0, meter: served))])
        let thrown = try player.line("hook")
        #expect(
            Player.sent(thrown).map(\.request) == [
                .punch(PunchRequest(fight: view.id, kind: .hook, after: view.lastSequence))
            ])
        #expect(thrown.contains(.meter(nil)))
    }

    /// The meter ends without a punch when its wind-up is refused, when the fight moves past the
    /// sequence it was wound up at, and when the connection drops.
    @Test func theMeterEndsWhenItCanNoLongerStopAPunch() throws {
        var refused = try Player(.screen)
        _ = try refused.connectAndWelcome()
        let ref = try #require(Player.sent(try refused.line("windup")).first?.ref)
        #expect(refused.receive(.error(ProtocolError(Refusal.waitYourTurn(refused.bout.fight))), ref: ref).contains(.meter(nil)))

        var passed = try Player(.screen)
        _ = try passed.connectAndWelcome()
        _ = try passed.line("windup")
        passed.bout.now = passed.bout.now + 61
        try passed.bout.run(.settleDeadlines)
        let lapse = try #require(passed.bout.events().last)
        #expect(passed.receive(.event(lapse)).contains(.meter(nil)))

        var dropped = try Player(.screen)
        _ = try dropped.connectAndWelcome()
        _ = try dropped.line("windup")
        #expect(dropped.handle(.disconnected(reason: nil)).contains(.meter(nil)))
    }

    /// `guard` with no stance switches: high first, then low once the server says high is up.
    @Test func aGuardSwitchesFromWhatTheServerSaysIsUp() throws {
        var player = try Player(.screen)
        _ = try player.connectAndWelcome()
        let fight = player.bout.fight
        let first = player.handle(.command(.raiseGuard(nil, fight: nil), at: player.t0))
        #expect(Player.sent(first).map(\.request) == [.raiseGuard(GuardRequest(fight: fight, guard: .high))])
        var view = try player.bout.view()
        view.ownGuard = .high
        _ = player.receive(.fight(FightReply(fight: view)))
        let second = player.handle(.command(.raiseGuard(nil, fight: nil), at: player.t0))
        #expect(Player.sent(second).map(\.request) == [.raiseGuard(GuardRequest(fight: fight, guard: .low))])
        #expect(Player.sent(try player.line("guard high")).map(\.request) == [.raiseGuard(GuardRequest(fight: fight, guard: .high))])
    }

    // MARK: - Punches in turn

    @Test func aTypedPunchGoesToTheFightAwaitingItAndOnlyThere() throws {
        var inTurn = try Player(inTurn: true)
        _ = try inTurn.connectAndWelcome()
        let view = try inTurn.bout.view()
        // Not wound up first: the meter is wound up and stopped at once.
        #expect(
            Player.sent(try inTurn.line("uppercut")).map { $0.request } == [
                .windUp(WindUpRequest(fight: view.id, after: view.lastSequence)),
                .punch(PunchRequest(fight: view.id, kind: .uppercut, after: view.lastSequence)),
            ])
        var waiting = try Player(inTurn: false)
        _ = try waiting.connectAndWelcome()
        #expect(try waiting.line("jab") == [.note(.notYourTurn(verb: "jab"))])
    }

    /// A punch pressed while the server is gone is not queued to arrive stale after whatever
    /// the downtime brought: it is said not sent, in words, and the next one once welcomed goes.
    @Test func aPunchWhileTheConnectionIsDownIsSaidNotSent() throws {
        var player = try Player(.screen)
        _ = try player.connectAndWelcome()
        _ = player.handle(.disconnected(reason: nil))
        let pressed = try player.line("jab")
        #expect(pressed == [.note(.punchNotSent(verb: "jab"))])
        #expect(PlayerSession.Note.punchNotSent(verb: "jab").description.contains("not sent"))
        _ = player.handle(.timerFired(.reconnect, at: player.t0))
        let connected = player.handle(.connected(Session(token: "t", fighter: try player.card)))
        let hello = try #require(Player.sent(connected).first)
        let welcomed = player.receive(
            .welcome(Welcome(fighter: try player.card, openFights: [try player.bout.view()])), ref: hello.ref)
        #expect(!Player.sent(welcomed).contains { if case .punch = $0.request { true } else { false } }, "nothing queued")
        #expect(Player.sent(try player.line("jab")).contains { if case .punch = $0.request { true } else { false } })
    }

    @Test func aTypedPunchWaitsForTheStateOfAFightJustMatchedAndTheLinesAfterItWait() throws {
        var player = try Player(inTurn: true)
        _ = try player.connectAndWelcome(openFights: [])
        let view = try player.bout.view()
        // The event names a fight the client does not know: its state is asked for.
        let heard = player.receive(.event(try #require(player.bout.events().last)))
        let asked = try #require(Player.sent(heard).first)
        #expect(asked.request == .fight(FightRef(fight: view.id)))
        #expect(try player.line("jab") == [.startTimer(.heldCommandWait, after: PlayerSession.heldCommandWait)])
        #expect(try player.line("history").isEmpty, "behind the punch")
        let answered = player.receive(.fight(FightReply(fight: view)), ref: asked.ref)
        #expect(
            Player.sent(answered).map { $0.request } == [
                .windUp(WindUpRequest(fight: view.id, after: view.lastSequence)),
                .punch(PunchRequest(fight: view.id, kind: .jab, after: view.lastSequence)), .history,
            ])
        #expect(answered.contains(.cancelTimer(.heldCommandWait)))
    }

    /// A guard that names no fight, typed just after `matched` (before the fight's state came),
    /// waits for it as a punch does, and goes to that fight; with no fight coming it is refused
    /// at once, and when its wait is over it is refused as having no fight under way.
    @Test func aGuardWaitsForTheStateOfAFightJustMatched() throws {
        var player = try Player(inTurn: false)
        _ = try player.connectAndWelcome(openFights: [])
        #expect(try player.line("guard low") == [.note(.noFightUnderWay(verb: "guard"))], "no fight is coming")
        let view = try player.bout.view()
        let matched = try #require(player.bout.events().last)
        let asked = try #require(Player.sent(player.receive(.event(matched))).first)
        #expect(try player.line("guard low") == [.startTimer(.heldCommandWait, after: PlayerSession.heldCommandWait)])
        let answered = player.receive(.fight(FightReply(fight: view)), ref: asked.ref)
        #expect(Player.sent(answered).map { $0.request } == [.raiseGuard(GuardRequest(fight: view.id, guard: .low))])
        #expect(answered.contains(.cancelTimer(.heldCommandWait)))

        var late = try Player(inTurn: false)
        _ = try late.connectAndWelcome(openFights: [])
        _ = late.receive(.event(try #require(late.bout.events().last)))
        _ = try late.line("guard high")
        #expect(
            late.handle(.timerFired(.heldCommandWait, at: late.t0 + .seconds(5))) == [
                .note(.noFightUnderWay(verb: "guard")), .cancelTimer(.heldCommandWait),
            ])
    }

    @Test func aHeldPunchIsRefusedWhenItsWaitIsOver() throws {
        var player = try Player(inTurn: true)
        _ = try player.connectAndWelcome(openFights: [])
        _ = player.receive(.event(try #require(player.bout.events().last)))
        _ = try player.line("jab")
        #expect(
            player.handle(.timerFired(.heldCommandWait, at: player.t0 + .seconds(5))) == [
                .note(.notYourTurn(verb: "jab")), .cancelTimer(.heldCommandWait),
            ])
    }

    /// Motion as a sensor reads it: `count` samples at 60 Hz from `start` seconds.
    static func rows(_ count: Int, from start: Double = 0) -> [MotionRow] {
        (0..<count).map { MotionRow(time: start + Double($0) / 60, acceleration: SIMD3(0.1, 9.8, Double($0 % 3) * 0.1)) }
    }

    @Test func aSensorIsAskedForMotionInThePlayersTurnOnlyAndItIsStreamedWhileTheTurnLasts() throws {
        var player = try Player(inTurn: true, sensor: true)
        let view = try player.bout.view()
        let welcomed = try player.connectAndWelcome()
        let asked = try #require(
            welcomed.first { if case .awaitMotion = $0 { true } else { false } }, "my turn: \(welcomed)")
        #expect(asked == .awaitMotion(hold: 1, since: player.t0))
        // 70 samples go as two batches (at most 64 a batch), and more are asked for.
        let rows = Self.rows(70)
        let streamed = player.handle(.motionRead(rows, hold: 1, at: player.t0))
        #expect(
            Player.sent(streamed).map { $0.request } == [
                .motion(MotionBatch(fight: view.id, after: view.lastSequence, hold: 1, samples: Array(rows[0..<64]), pressed: 0)),
                .motion(MotionBatch(fight: view.id, after: view.lastSequence, hold: 1, samples: Array(rows[64...]), pressed: 0)),
            ])
        #expect(streamed.last == .awaitMotion(hold: 1, since: player.t0))

        var other = try Player(inTurn: false, sensor: true)
        let welcomedOther = try other.connectAndWelcome()
        #expect(!welcomedOther.contains { if case .awaitMotion = $0 { true } else { false } }, "not their turn")
    }

    /// A hold ends after `holdRollover` seconds of samples with a last batch; the server's
    /// `holdEnded` (no punch in it) begins the next hold while the turn lasts.
    @Test func aLongHoldEndsAndTheNextBeginsWhenTheServerFoundNoPunch() throws {
        var player = try Player(inTurn: true, sensor: true)
        let view = try player.bout.view()
        _ = try player.connectAndWelcome()
        var sent: [(request: ClientRequest, ref: Int)] = []
        var start = 0.0
        while !sent.contains(where: { if case .motion(let batch) = $0.request { batch.final } else { false } }) {
            let effects = player.handle(
                .motionRead(Self.rows(30, from: start), hold: 1, at: player.t0))
            sent += Player.sent(effects)
            start += 0.5
            try #require(start < 10, "the hold never ended")
        }
        guard case .motion(let last) = try #require(sent.last).request else { return }
        #expect(last.final && last.samples.last!.time >= PlayerSession.holdRollover)
        #expect(last.samples.last!.time < MotionLimits.holdSeconds)
        let ended = player.receive(
            .holdEnded(HoldEnded(fight: view.id, hold: 1, samples: 240, seconds: 4)), ref: try #require(sent.last).ref)
        #expect(ended.contains(.awaitMotion(hold: 2, since: player.t0)))
    }

    /// A hold that follows the sensor's last rows (a hold rolled over, a recording played on) begins
    /// with the last 2 s of them as its lead-in, pressed at its own first row; rows more than 2 s
    /// before it (a live sensor's motion out of turn is never read), and rows on a clock that
    /// started again (times that go back), are no lead-in.
    @Test func aHoldBeginsWithTheLastTwoSecondsBeforeItAsItsLeadIn() throws {
        for gap in [0.0, 5.0, -3.0] {
            var player = try Player(inTurn: true, sensor: true)
            let view = try player.bout.view()
            _ = try player.connectAndWelcome()
            // Hold 1 reads half a second at a time until it rolls over, and the server found nothing.
            var read: [MotionRow] = []
            var final: (request: ClientRequest, ref: Int)?
            while final == nil {
                let rows = Self.rows(30, from: Double(read.count) / 60)
                read += rows
                final = Player.sent(
                    player.handle(.motionRead(rows, hold: 1, at: player.t0))
                ).first { if case .motion(let batch) = $0.request { batch.final } else { false } }
                try #require(read.count < 600, "hold 1 never ended")
            }
            let ended = try #require(final)
            _ = player.receive(.holdEnded(HoldEnded(fight: view.id, hold: 1, samples: read.count, seconds: 4)), ref: ended.ref)
            // Hold 2: the next rows, straight after, `gap` s later, or 3 s back.
            let pressed = Double(read.count) / 60 + gap
            let rows = Self.rows(30, from: pressed)
            let sent = Player.sent(
                player.handle(.motionRead(rows, hold: 2, at: player.t0)))
            let batches = sent.compactMap { if case .motion(let batch) = $0.request { batch } else { nil } }
            let lead = gap == 0 ? read.filter { $0.time >= pressed - MotionLimits.leadSeconds } : []
            #expect(batches.flatMap(\.samples) == lead + rows, "gap \(gap)")
            #expect(batches.allSatisfy { $0.hold == 2 && $0.pressed == pressed && !$0.final }, "gap \(gap)")
            #expect(gap != 0 || lead.count == 120, "2 s of 60 Hz")
        }
    }

    /// A live sensor's motion from before the hold (read out of turn, never sent as the turn's)
    /// comes with the hold's first rows and goes as its lead-in, the last 2 s of it; later reads'
    /// is ignored.
    @Test func aLiveSensorsMotionBeforeTheHoldIsItsLeadIn() throws {
        var player = try Player(inTurn: true, sensor: true)
        _ = try player.connectAndWelcome()
        let before = Self.rows(180, from: 7)
        let pressed = 7 + 180.0 / 60
        let rows = Self.rows(30, from: pressed)
        let first = Player.sent(player.handle(.motionRead(rows, hold: 1, at: player.t0, lead: before)))
        let batches = first.compactMap { if case .motion(let batch) = $0.request { batch } else { nil } }
        let lead = before.filter { $0.time >= pressed - MotionLimits.leadSeconds }
        #expect(lead.count == 120)
        #expect(batches.flatMap(\.samples) == lead + rows)
        #expect(batches.allSatisfy { $0.pressed == pressed })
        let more = Self.rows(30, from: pressed + 0.5)
        let next = Player.sent(player.handle(.motionRead(more, hold: 1, at: player.t0, lead: before)))
        let nextRows = next.flatMap { sent -> [MotionRow] in
            if case .motion(let batch) = sent.request { return batch.samples }
            return []
        }
        #expect(nextRows == more)
    }

    /// The sensor's end is the hold's end: its last batch goes, empty, so that the server decides
    /// what its detector still waits on; no hold begins after.
    @Test func theSensorsEndSendsTheHoldsLastBatch() throws {
        var player = try Player(inTurn: true, sensor: true)
        let view = try player.bout.view()
        _ = try player.connectAndWelcome()
        _ = player.handle(.motionRead(Self.rows(10), hold: 1, at: player.t0))
        let ended = player.handle(.motionRead(nil, hold: 1, at: player.t0))
        #expect(ended.contains(.note(.sensorEnded)))
        #expect(
            Player.sent(ended).map { $0.request } == [
                .motion(MotionBatch(fight: view.id, after: view.lastSequence, hold: 1, samples: [], final: true, pressed: 0))
            ])
        #expect(!ended.contains { if case .awaitMotion = $0 { true } else { false } })
    }

    @Test func aBatchRefusedAsStaleAsksForTheFightsStateAndANewHoldBegins() throws {
        var player = try Player(inTurn: true, sensor: true)
        let view = try player.bout.view()
        _ = try player.connectAndWelcome()
        let thrown = try #require(
            Player.sent(
                player.handle(.motionRead(Self.rows(5), hold: 1, at: player.t0))
            ).first)
        let refused = player.receive(.error(ProtocolError(.stale, "the fight moved on")), ref: thrown.ref)
        #expect(Player.sent(refused).map { $0.request } == [.fight(FightRef(fight: view.id))])
        #expect(
            refused.contains(.awaitMotion(hold: 2, since: player.t0)),
            "still its turn as far as it knows: a new hold begins")
    }

    @Test func motionReadAfterTheTurnPassedIsNotSent() throws {
        var player = try Player(inTurn: true, sensor: true)
        let before = try player.bout.view()
        _ = try player.connectAndWelcome()
        // The turn passes (the player was too slow) before the sensor's motion arrives.
        player.bout.state = try player.bout.referee.reduce(
            player.bout.state, .settleDeadlines, at: player.bout.now + Rules().turnTimeout + 1
        ).get().state
        let passed = try player.bout.view()
        #expect(passed.turn != before.turn)
        _ = player.receive(.fight(FightReply(fight: passed)))
        let effects = player.handle(
            .motionRead(Self.rows(5), hold: 1, at: player.t0))
        #expect(Player.sent(effects).isEmpty, "out of turn: \(effects)")
    }

    // MARK: - Quitting

    @Test func aScriptsQuitWaitsForTheRepliesToWhatItSent() throws {
        var player = try Player(.script)
        _ = try player.connectAndWelcome()
        let asked = try #require(Player.sent(try player.line("profile")).first)
        #expect(try player.line("quit") == [.startTimer(.quitWait, after: PlayerSession.quitWait)])
        #expect(player.session.isQuitting && !player.session.isOver)
        #expect(try player.line("history").isEmpty, "nothing is read after quit")
        let answered = player.receive(.profile(ProfileReply(fighter: try player.card)), ref: asked.ref)
        #expect(answered.last == .finish, "the reply is shown, then the session ends: \(answered)")
        #expect(answered.contains { if case .show = $0 { true } else { false } })
    }

    @Test func aScriptsQuitWaitsNoLongerThanItsLimit() throws {
        var player = try Player(.script)
        _ = try player.connectAndWelcome()
        _ = try player.line("profile")
        _ = try player.line("quit")
        #expect(player.handle(.timerFired(.quitWait, at: player.t0 + PlayerSession.quitWait)) == [.finish])
        #expect(player.session.isOver)
    }

    @Test func aScriptsQuitWaitsAsLongAsConfigured() throws {
        var player = try Player(.script)
        var configuration = player.session.configuration
        configuration.quitWait = .milliseconds(40)
        player.session = PlayerSession(configuration)
        _ = try player.connectAndWelcome()
        _ = try player.line("profile")
        #expect(try player.line("quit") == [.startTimer(.quitWait, after: .milliseconds(40))])
    }

    @Test func aPersonsQuitAndASignalStopAtOnce() throws {
        var person = try Player(.screen)
        _ = try person.connectAndWelcome()
        _ = try person.line("profile")
        #expect(try person.line("quit") == [.finish])
        var script = try Player(.script)
        _ = try script.connectAndWelcome()
        _ = try script.line("profile")
        #expect(script.handle(.interrupted) == [.finish])
    }

    @Test func theEndOfInputFinishesOnceTheFightsAreOver() throws {
        var player = try Player(.script)
        _ = try player.connectAndWelcome()
        #expect(player.handle(.inputEnded).isEmpty, "the fight is still on")
        try player.bout.run(.forfeit(player.bout.fight, by: player.me))
        let ended = try #require(player.bout.events().last)
        #expect(ended.kind == .ended)
        #expect(player.receive(.event(ended)).last == .finish)
    }

    // MARK: - The sensor

    /// An error of the sensor's own type, which the session must hand back as it got it.
    enum Unplugged: Error, CustomStringConvertible {
        case cable
        var description: String { "the cable came out" }
    }

    /// A sensor's failure stays the error the sensor threw, through the session's failure and its
    /// note, so that the program that made the sensor can act on what it was.
    @Test func aSensorsFailureIsKeptAsTheErrorItThrew() throws {
        var player = try Player(.screen, inTurn: true, sensor: true)
        _ = try player.connectAndWelcome()
        let effects = player.handle(.sensorFailed(SensorFailure(Unplugged.cable)))
        guard case .sensor(let failure) = player.session.failure else {
            Issue.record("no sensor failure: \(String(describing: player.session.failure))")
            return
        }
        #expect(failure.error as? Unplugged == .cable)
        #expect(player.session.failure?.description == "the cable came out")
        #expect(effects.contains(.note(.sensorFailed(SensorFailure(Unplugged.cable)))))
        #expect(PlayerSession.Note.sensorFailed(failure).description == "the sensor failed: the cable came out")
    }
}
