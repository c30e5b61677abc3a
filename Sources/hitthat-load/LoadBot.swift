import FightClient
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
    /// Chance, each turn, that the client first sends a bad message of some kind.
    var mischiefChance: Double
}

// MARK: - LoadBot

/// One scripted player: signs in, queues for quick matches, punches in turn, drops its connection
/// now and then and comes back with `hello` and `replay`, and keeps every fight event it saw so
/// that the end of the run can check each one against the server's log.
actor LoadBot {
    let credentials: Credentials
    let address: ServerAddress
    let plan: LoadPlan
    let recorder: LoadRecorder

    /// Signs in once, and connects again with that session.
    private let connector: Connector
    private(set) var session: Session?
    private(set) var client: FightClient?
    /// The waits between connection attempts.
    private var backoff = Backoff(first: .milliseconds(100), longest: .seconds(2))
    /// Whether the client left the current connection itself (done, or dropping it on purpose).
    private var leftOnPurpose = false
    private(set) var follower = FightFollower()
    /// Every fight event received, live or replayed.
    private(set) var seen: [LoadRecorder.EventKey: WireEvent] = [:]
    /// What each `ref` sent on the current connection was for.
    private var sent: [Int: Sent] = [:]
    /// Errors expected, in order, for bad messages the server cannot attach a `ref` to.
    var expectedUnreferenced: [Set<ProtocolError.Code>] = []
    /// Fights with a punch on its way, and when it was sent.
    private var punching: [Int64: ContinuousClock.Instant] = [:]
    /// The last punch thrown, to throw again as a duplicate.
    var lastPunch: PunchRequest?
    private var forfeited: Set<Int64> = []
    /// Whether the client waits in a quick-match room; nil when a request about it was on its
    /// way as the connection dropped, since `welcome` does not say.
    private var inRoom: Bool? = false
    private var matchAsked: ContinuousClock.Instant?
    private var rng = SystemRandomNumberGenerator()

    enum Sent {
        /// A punch that would be this event of its fight.
        case punch(LoadRecorder.EventKey)
        case quickMatch
        case mischief(expected: Set<ProtocolError.Code>)
        case other
    }

    init(credentials: Credentials, address: ServerAddress, plan: LoadPlan, recorder: LoadRecorder) {
        self.credentials = credentials
        self.address = address
        self.plan = plan
        self.recorder = recorder
        connector = Connector(address: address, credentials: credentials)
    }

    var me: Int64? { session?.fighter.id }

    /// Whether the client is done: past the time to stop matching, in no room, every fight it has
    /// heard of known and over.
    private var isDone: Bool {
        recorder.clock.now >= plan.stopMatching && inRoom == false && matchAsked == nil && follower.awaitingState.isEmpty
            && follower.fights.values.allSatisfy { $0.phase == .finished }
    }

    // MARK: - Playing

    /// Plays until done, reconnecting (through the play client's `Connector`) whenever the
    /// connection drops or the server goes away.
    func play() async {
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                await self?.tick()
            }
        }
        defer { ticker.cancel() }
        while !isDone {
            let ending = await connector.connectAndRead(
                opened: { client, session in await self.opened(client, as: session) },
                received: { text in await self.received(text) })
            switch ending {
            case .notConnected(.refused(let error)) where error.code == .unauthorized || error.code == .invalid:
                recorder.problem("\(credentials.username): cannot sign in: \(error)")
                return
            case .notConnected:
                recorder.count("connectionsLost")
            case .closed:
                if !leftOnPurpose { recorder.count("connectionsLost") }
            }
            await dropConnection()
            if isDone { break }
            // Spread out, so that clients dropped together do not all come back at once.
            try? await Task.sleep(for: backoff.next() * Double.random(in: 0.5...1.5, using: &rng))
        }
        await dropConnection()
    }

    private func opened(_ client: FightClient, as session: Session) async -> Bool {
        self.session = session
        self.client = client
        leftOnPurpose = false
        backoff.reset()
        recorder.count("connections")
        // A hello that cannot be written means a lost connection, which reading finds.
        try? await send(.hello, as: .other)
        return true
    }

    /// Takes in `text`; `false` to leave the connection: done, or dropping it on purpose.
    private func received(_ text: String) async -> Bool {
        recorder.count("messagesReceived")
        await receive(text)
        if isDone {
            leftOnPurpose = true
        } else if Double.random(in: 0..<1, using: &rng) < plan.disconnectChance {
            recorder.count("dropsOnPurpose")
            leftOnPurpose = true
        }
        return !leftOnPurpose
    }

    private func dropConnection() async {
        await client?.close()
        client = nil
        sent.removeAll()
        expectedUnreferenced.removeAll()
        punching.removeAll()
        // The server may or may not have taken the request: ask again to find out. Otherwise a
        // client that stops believing it is in no room can still be matched, and never hear of it.
        if matchAsked != nil { inRoom = nil }
        matchAsked = nil
    }

    /// Sends `request`, its purpose noted first: the actor takes in messages while the request is
    /// being written, and the reply can be one of them.
    func send(_ request: ClientRequest, as purpose: Sent) async throws {
        guard let client else { return }
        let ref = client.newRef()
        sent[ref] = purpose
        recorder.count("messagesSent")
        try await client.send(request, ref: ref)
    }

    /// Sends without waiting for the connection to take it; a failure shows as the connection ending.
    private func request(_ request: ClientRequest, as purpose: Sent = .other) async {
        try? await send(request, as: purpose)
    }

    // MARK: - Receiving

    private func receive(_ text: String) async {
        let message: ServerMessage
        do {
            message = try MessageCodec.decodeReply(text)
        } catch {
            recorder.problem("\(credentials.username): unreadable message from the server: \(error)")
            return
        }
        let purpose = message.ref.flatMap { sent.removeValue(forKey: $0) }
        switch message.body {
        case .welcome(let welcome):
            await caughtUp(with: welcome)
        case .event(let event):
            await follow(event, live: true)
            if message.ref != nil, case .punch(let key) = purpose { punching[key.fight] = nil }
        case .events(let reply):
            for event in reply.events { await follow(event, live: false) }
        case .fight(let reply):
            follower.update(reply.fight)
        case .error(let error):
            await refused(error, purpose: purpose, hadRef: message.ref != nil)
        default:
            break
        }
        if case .quickMatch = purpose { matchAsked = nil }
        await act()
    }

    /// After `hello`: asks for what happened while away in every fight it follows.
    private func caughtUp(with welcome: Welcome) async {
        for need in follower.catchUp(openFights: welcome.openFights) {
            if let request = need.request { await self.request(request) }
        }
    }

    private func follow(_ event: WireEvent, live: Bool) async {
        if let fight = event.fight, let sequence = event.sequence {
            let key = LoadRecorder.EventKey(fight: fight, sequence: sequence)
            if let earlier = seen[key], earlier != event {
                recorder.problem("fight \(fight) sequence \(sequence): sent twice, differently: \(earlier) then \(event)")
            }
            seen[key] = event
            if live, event.kind == .punched, event.by != me { recorder.punchReceived(key) }
            if event.kind == .ended { recorder.count("fightsEndedSeen") }
        }
        switch event.kind {
        case .openedRoom: inRoom = true
        case .leftRoom, .matched: inRoom = false
        default: break
        }
        if let request = follower.apply(event).request { await self.request(request) }
    }

    private func refused(_ error: ProtocolError, purpose: Sent?, hadRef: Bool) async {
        switch purpose {
        case .mischief(let expected):
            check(error, against: expected)
        case .punch(let key):
            punching[key.fight] = nil
            recorder.punchRefused(key, error.code)
            // The fight moved on without this client seeing it (a reconnect): catch up.
            await request(.fight(FightRef(fight: key.fight)))
        case .quickMatch:
            // A reply lost with a dropped connection leaves the client unsure whether it waits in a room.
            if error.reason == "alreadyWaiting" { inRoom = true }
            if error.reason == "notWaiting" { inRoom = false }
            recorder.error(error.code)
        case .other:
            recorder.error(error.code)
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
                "\(credentials.username): a bad message was answered \(error.code.rawValue) (\(error.message)), expected \(expected.map(\.rawValue).sorted())")
        }
    }

    // MARK: - Acting

    /// Runs every half second: retries what a lost message may have left hanging.
    private func tick() async {
        // Nothing more will come: end the connection so that `play` sees the client is done.
        if isDone, let client {
            await client.close()
            return
        }
        let now = recorder.clock.now
        for (fight, since) in punching where since.duration(to: now) > .seconds(5) {
            punching[fight] = nil
            await request(.fight(FightRef(fight: fight)))
        }
        if let asked = matchAsked, asked.duration(to: now) > .seconds(5) { matchAsked = nil }
        await act()
    }

    /// Looks for a fight, leaves the room when the run is ending, forfeits when it is over, and
    /// punches where it is this client's turn.
    private func act() async {
        guard client != nil, let me else { return }
        let now = recorder.clock.now
        let open = follower.fights.values.filter { $0.phase != .finished }
        if now >= plan.giveUp {
            for fight in open where forfeited.insert(fight.id).inserted {
                recorder.count("forfeitsAfterTheRun")
                await request(.forfeit(FightRef(fight: fight.id)))
            }
        }
        if matchAsked == nil, open.isEmpty {
            if now < plan.stopMatching, inRoom != true {
                matchAsked = now
                await request(.quickMatch, as: .quickMatch)
            } else if now >= plan.stopMatching, inRoom != false {
                matchAsked = now
                await request(.leaveQuickMatch, as: .quickMatch)
            }
        }
        for fight in open where fight.phase == .active && fight.turn == me && punching[fight.id] == nil {
            punching[fight.id] = now
            let pause = plan.think * Double.random(in: 0.5...1.5, using: &rng)
            Task { [weak self] in
                try? await Task.sleep(for: pause)
                await self?.punch(fight.id, after: fight.lastSequence)
            }
        }
    }

    private func punch(_ fight: Int64, after: Int) async {
        guard let view = follower.fights[fight], view.lastSequence == after, view.turn == me, client != nil else {
            punching[fight] = nil
            return
        }
        if Double.random(in: 0..<1, using: &rng) < plan.mischiefChance { await misbehave(in: view) }
        let punch = PunchRequest(
            fight: fight, kind: [.jab, .uppercut].randomElement(using: &rng)!,
            damage: Int.random(in: 8...40, using: &rng), after: after)
        punching[fight] = recorder.clock.now
        let key = LoadRecorder.EventKey(fight: fight, sequence: after + 1)
        recorder.punchSent(as: key)
        lastPunch = punch
        await request(.punch(punch), as: .punch(key))
    }
}
