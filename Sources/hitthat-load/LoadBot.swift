import FightClient
import FightEngine
import FightProtocol

// MARK: - LoadPlan

/// How every client of a load run behaves.
struct LoadPlan: Sendable {
    /// When clients stop looking for new fights (they finish the ones they are in).
    var stopMatching: ContinuousClock.Instant
    /// When a client still in a fight forfeits it.
    var giveUp: ContinuousClock.Instant
    /// Mean pause before throwing a punch (each pause is 0.5 to 1.5 times it).
    var think: Duration
    /// Chance, for each message received, that the client drops its connection and comes back.
    var disconnectChance: Double
    /// Chance, each turn, that the client also sends a bad message of some kind.
    var mischiefChance: Double
}

extension LoadPlan {
    /// The server client `index` of `clients` is on first, of `servers`: round-robin, so that
    /// each server holds its share and, as quick match pairs whoever waited longest, about
    /// `1 - 1/servers` of fights are between two servers.
    static func home(ofClient index: Int, servers: Int) -> Int { index % servers }

    /// Whether client `index` fights: the first `fighting` clients do; the others stay connected
    /// and idle, as players who have the app open between fights. Spread over the servers as the
    /// fighters are.
    static func fights(client index: Int, fighting: Int) -> Bool { index < fighting }
}

// MARK: - LoadBot

/// One scripted player, played through the play client's `PlayerDriver`: the session connects,
/// reconnects (hello and replay), queues and throws its punches in turn, as `play`'s does. The bot
/// queues for quick matches, drops its connection now and then, sends bad messages, and keeps
/// every fight event it saw so that the end of the run can check each one against the server's log.
actor LoadBot {
    let credentials: Credentials
    let connector: LoadConnector
    /// Whether the bot looks for fights, or only stays connected.
    let fights: Bool
    let plan: LoadPlan
    let recorder: LoadRecorder
    /// The server the bot is connected to (or last was): an index in the connector's addresses.
    private(set) var server: Int

    /// The session signed in with, once connected: the check at the end connects with it again.
    private(set) var session: Session?
    /// The play session as of the last thing it handled: its fights, whether it is welcomed and
    /// whether it waits in a room. The bot keeps none of that itself.
    private var played: PlayerSession?
    /// The fights as the play session followed them.
    var follower: FightFollower { played?.follower ?? FightFollower() }
    /// The bot's fighter, once signed in.
    var me: FighterID? { played?.me }
    /// Every fight event received, live or replayed.
    private(set) var seen: [LoadRecorder.EventKey: WireEvent] = [:]
    /// The fight events received live (pushed), to tell one pushed twice.
    private var pushed: Set<LoadRecorder.EventKey> = []
    /// By fight, the latest sequence of its state the session took whole, skipping the events
    /// before it: a `fight` reply (asked for after a stale punch, or for a fight heard of by an
    /// event), or `welcome`'s view of a fight the session did not know yet.
    private(set) var stateTaken: [FightID: Int] = [:]
    /// The fights the session knew before the message being taken in.
    private var knownBefore: Set<FightID> = []
    /// What the requests this bot cares about went out for, by `ref`.
    private var sent: [Int: Sent] = [:]
    /// Errors expected, in order, for bad messages the server cannot attach a `ref` to.
    var expectedUnreferenced: [Set<ProtocolError.Code>] = []
    /// The last motion batch the session streamed, to send again once it is stale.
    var lastPunch: MotionBatch?
    private var forfeited: Set<FightID> = []
    /// When the bot last asked to join or leave a quick-match room, until it is answered (or
    /// five seconds pass, and it asks again).
    private var matchAsked: ContinuousClock.Instant?
    /// Until when the bot waits to hear of a fight before it finishes: its leaving the room was
    /// answered `notWaiting`, so it may have been matched meanwhile, on another server, whose push
    /// comes through PostgreSQL after that answer.
    private var waitForAMatchUntil: ContinuousClock.Instant?
    /// Whether the bot dropped the connection itself, so that its end is not counted as a loss.
    private var droppingOnPurpose = false
    private var rng = SystemRandomNumberGenerator()

    enum Sent {
        /// A punch that would be this event of its fight.
        case punch(LoadRecorder.EventKey)
        case quickMatch
        case mischief(expected: Set<ProtocolError.Code>)
    }

    init(credentials: Credentials, connector: LoadConnector, fights: Bool, plan: LoadPlan, recorder: LoadRecorder) async {
        self.credentials = credentials
        self.connector = connector
        self.fights = fights
        self.plan = plan
        self.recorder = recorder
        server = await connector.current
    }

    /// The server the bot is on.
    var address: ServerAddress { connector.addresses[server] }

    /// Whether the client is done: past the time to stop matching, in no room, every fight it has
    /// heard of known and over. A client that does not fight is done then.
    private var isDone: Bool {
        let now = recorder.clock.now
        guard now >= plan.stopMatching, now >= waitForAMatchUntil ?? now else { return false }
        guard fights else { return true }
        return played?.isWaitingInRoom == false && matchAsked == nil
            && follower.awaitingState.isEmpty
            && follower.fights.values.allSatisfy { $0.phase == .finished }
    }

    // MARK: - Playing

    /// What the bot acts on, one at a time and in order: what the play session handled, and the
    /// half-second tick that retries what a lost message may have left hanging.
    private enum Observation: Sendable {
        case handled(PlayerSession.Event, [PlayerSession.Effect], PlayerSession)
        case tick
    }

    /// Passes what the session handled on to the bot; the bot shows nothing.
    private struct Observer: PlayerDisplay {
        let observations: AsyncStream<Observation>.Continuation

        func status(_ status: ConnectionStatus) {}
        func note(_ text: String) {}
        func show(
            _ message: ServerMessage, text: String, fights: [FightID: FightView], me: FighterID?, answersPlayer: Bool
        ) {
        }
        func handled(_ event: PlayerSession.Event, effects: [PlayerSession.Effect], session: PlayerSession) {
            observations.yield(.handled(event, effects, session))
        }
    }

    /// Plays until done. The driver reconnects whenever the connection drops or the server goes
    /// away; everything the bot does goes through it.
    func play() async {
        let (observations, observer) = AsyncStream.makeStream(of: Observation.self)
        // Like a person at the screen, a bot keeps trying while the server is away.
        var configuration = PlayerSession.Configuration(
            mode: .screen, username: credentials.username, server: address.description, hasSensor: true,
            showsCards: false)
        // Each bot its own pace, so that bots dropped together (a server kill) do not all
        // reconnect at the same instants.
        configuration.backoff = Backoff(first: .milliseconds(100), longest: .seconds(2))
            .scaled(by: .random(in: 0.5...1.5))
        let driver = PlayerDriver(
            connector: connector, configuration: configuration, display: Observer(observations: observer),
            motion: ThinkingPuncher(think: plan.think))
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                observer.yield(.tick)
            }
        }
        let playing = Task {
            await driver.run()
            observer.finish()
        }
        // One at a time: a reply is taken in only after the request it answers had its purpose noted.
        for await observation in observations {
            switch observation {
            case .handled(let event, let effects, let session): await take(event, effects, session, driver)
            case .tick: await tick(driver)
            }
        }
        ticker.cancel()
        await playing.value
        if let failure = await driver.failure, case .refused = failure {
            recorder.problem("cannot sign in: \(failure)")
        }
    }

    private func take(
        _ event: PlayerSession.Event, _ effects: [PlayerSession.Effect], _ state: PlayerSession, _ driver: PlayerDriver
    ) async {
        knownBefore = Set(follower.fights.keys)
        played = state
        recorder.client(
            credentials.username, isInAFight: state.follower.fights.values.contains { $0.phase == .active })
        switch event {
        case .connected(let signedIn):
            session = signedIn
            let previous = server
            server = await connector.current
            recorder.count("connections")
            if server != previous { recorder.count("reconnectedToAnotherServer") }
        case .connectionFailed:
            recorder.count("connectionsLost")
        case .disconnected:
            if !droppingOnPurpose { recorder.count("connectionsLost") }
            droppingOnPurpose = false
            forgetTheConnection()
        case .received:
            recorder.count("messagesReceived")
            // What the session could not decode it says in a note. (A message that arrives after
            // the session is over gives no effect at all, and is no problem.)
            for case .note(let note) in effects {
                if case .unreadableMessage = note { recorder.problem("\(credentials.username): \(note)") }
            }
        default:
            break
        }
        // A punch the bot did not send itself is the session's, thrown in turn.
        let sentByTheBot = if case .command(.request, _) = event { true } else { false }
        var thrown: MotionBatch?
        for effect in effects {
            switch effect {
            case .send(let request, let ref):
                recorder.count("messagesSent")
                if !sentByTheBot, case .motion(let batch) = request {
                    // The batch the punch is found in is the punch sent: the latest before it lands.
                    let key = LoadRecorder.EventKey(fight: batch.fight, sequence: batch.after + 1)
                    sent[ref] = .punch(key)
                    recorder.punchSent(as: key, through: server)
                    thrown = batch
                }
            case .sendRaw:
                recorder.count("messagesSent")
            case .show(let message, _, _):
                receive(message)
            default:
                break
            }
        }
        if let thrown {
            lastPunch = thrown
            if let fight = follower.fights[thrown.fight], Double.random(in: 0..<1, using: &rng) < plan.mischiefChance {
                await misbehave(in: fight, through: driver)
            }
        }
        guard case .received = event else { return }
        if Double.random(in: 0..<1, using: &rng) < plan.disconnectChance, await driver.dropConnection() {
            recorder.count("dropsOnPurpose")
            droppingOnPurpose = true
        }
        await act(driver)
    }

    /// The connection dropped: what was on its way is not answered.
    private func forgetTheConnection() {
        sent.removeAll()
        expectedUnreferenced.removeAll()
        // The server may or may not have taken a room request on its way: the session no longer
        // knows whether it waits in a room (`isWaitingInRoom` is nil), and the bot asks again to
        // find out. Otherwise a client that stops believing it is in no room can still be
        // matched, and never hear of it.
        matchAsked = nil
    }

    /// Sends `request` through the session, noting its purpose under the `ref` it went with.
    func send(_ request: ClientRequest, as purpose: Sent?, through driver: PlayerDriver) async {
        let ref = await driver.send(request)
        if let ref, let purpose { sent[ref] = purpose }
    }

    // MARK: - Receiving

    private func receive(_ message: ServerMessage) {
        let purpose = message.ref.flatMap { sent.removeValue(forKey: $0) }
        switch message.body {
        case .event(let event):
            follow(event, live: true)
        case .events(let reply):
            for event in reply.events { follow(event, live: false) }
        case .fight(let reply):
            tookState(of: reply.fight)
        case .welcome(let welcome):
            for view in welcome.openFights where !knownBefore.contains(view.id) { tookState(of: view) }
        case .error(let error):
            refused(error, purpose: purpose, hadRef: message.ref != nil)
        default:
            break
        }
        if case .quickMatch = purpose { matchAsked = nil }
    }

    private func tookState(of view: FightView) {
        stateTaken[view.id] = max(stateTaken[view.id] ?? 0, view.lastSequence)
    }

    private func follow(_ event: WireEvent, live: Bool) {
        if let fight = event.fight, let sequence = event.sequence {
            let key = LoadRecorder.EventKey(fight: fight, sequence: sequence)
            if let earlier = seen[key], earlier != event {
                recorder.problem(
                    "\(fight) sequence \(sequence): sent twice, differently: \(earlier) then \(event)")
            }
            if seen[key] == nil, !live { recorder.count("eventsCaughtUpByReplay") }
            seen[key] = event
            if live, !pushed.insert(key).inserted {
                // The follower drops it (it applies each sequence once); a server that pushes an
                // event twice is counted all the same.
                recorder.count("eventsPushedTwice")
            }
            if live, event.kind == .punched, event.by != me { recorder.punchReceived(key, through: server) }
            if event.kind == .ended { recorder.count("fightsEndedSeen") }
        }
    }

    private func refused(_ error: ProtocolError, purpose: Sent?, hadRef: Bool) {
        switch purpose {
        case .mischief(let expected):
            check(error, against: expected)
        case .punch(let key):
            // The session asks for the fight's state when the punch went stale.
            recorder.punchRefused(key, error.code)
        case .quickMatch:
            // `alreadyWaiting` and `notWaiting` tell the session whether it waits in a room, when
            // a reply lost with a dropped connection left it unsure.
            recorder.error(error.code)
            if error.reason?.known == .notWaiting, recorder.clock.now >= plan.stopMatching {
                waitForAMatchUntil = recorder.clock.now + .seconds(10)
            }
        case nil where !hadRef && !expectedUnreferenced.isEmpty && error.code != .rateLimited:
            check(error, against: expectedUnreferenced.removeFirst())
        case nil:
            recorder.error(error.code)
        }
    }

    private func check(_ error: ProtocolError, against expected: Set<ProtocolError.Code>) {
        recorder.count("badMessagesAnswered")
        if !expected.contains(error.code) {
            recorder.problem(
                "\(credentials.username): a bad message was answered \(error.code.rawValue) (\(error.message)), expected \(expected.map(\.rawValue).sorted())"
            )
        }
    }

    // MARK: - Acting

    /// Runs every half second: a quick match asked for and never answered is asked for again.
    private func tick(_ driver: PlayerDriver) async {
        if let asked = matchAsked, asked.duration(to: recorder.clock.now) > .seconds(5) { matchAsked = nil }
        await act(driver)
    }

    /// Ends the session once done; otherwise looks for a fight, leaves the room when the run is
    /// ending, and forfeits when it is over. The session throws the punches.
    private func act(_ driver: PlayerDriver) async {
        if isDone { return await driver.interrupt() }
        guard let played, played.isWelcomed else { return }
        let inRoom = played.isWaitingInRoom
        let now = recorder.clock.now
        let open = follower.fights.values.filter { $0.phase != .finished }
        if now >= plan.giveUp {
            for fight in open where forfeited.insert(fight.id).inserted {
                recorder.count("forfeitsAfterTheRun")
                await send(.forfeit(FightRef(fight: fight.id)), as: nil, through: driver)
            }
        }
        // A fight heard of whose state has not come yet (the one a quick match just started, say)
        // is open too: a bot that asked again meanwhile was matched twice.
        if fights, matchAsked == nil, open.isEmpty, follower.awaitingState.isEmpty {
            if now < plan.stopMatching, inRoom != true {
                matchAsked = now
                await send(.quickMatch, as: .quickMatch, through: driver)
            } else if now >= plan.stopMatching, inRoom != false {
                matchAsked = now
                await send(.leaveQuickMatch, as: .quickMatch, through: driver)
            }
        }
    }
}

// MARK: - ThinkingPuncher

/// The bot's sensor: after a pause of 0.5 to 1.5 times `think`, a straight punch of 2 to 10 g (8 to
/// 40 damage), streamed for the server's detector to find. The session asks for motion in each of
/// the bot's turns and streams it while the turn lasts.
struct ThinkingPuncher: MotionSource {
    let think: Duration

    func nextRows(since start: ContinuousClock.Instant) async -> [MotionRow]? {
        try? await Task.sleep(for: think * Double.random(in: 0.5...1.5))
        // Each swing on a clock of its own: every call of a hold after the punch is dropped, and a
        // new hold may begin its times anywhere. The seconds since the turn began keep them rising.
        let since = ContinuousClock.now - start
        let seconds = Double(since.components.seconds) + Double(since.components.attoseconds) / 1e18
        return SyntheticSwing.rows(peakG: .random(in: 2...10), from: seconds)
    }

    /// It never fails.
    var failure: (any Error)? { nil }

    /// It never fails, so there is nothing to wait for.
    func stopped() async -> (any Error)? { nil }
}
