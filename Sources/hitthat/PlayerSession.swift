import ArgumentParser
import FightClient
import FightEngine
import FightProtocol

// MARK: - PlayFailure

/// Why `hitthat play` gave up: what to tell the player, and the exit status.
struct PlayFailure: Error, CustomStringConvertible {
    var description: String
    var status: ExitCode

    init(_ description: String, status: ExitCode = .failure) {
        self.description = description
        self.status = status
    }

    /// A sensor that could not be opened or read: a trace's problem is data (65, as `detect`
    /// exits), a device's or raw events' is not (1, as `listen` exits).
    init(sensor error: any Error) {
        switch error {
        case let failure as PlayFailure: self = failure
        case let trace as TraceInputError: self.init(trace.description, status: .dataError)
        default: self.init("\(error)")
        }
    }
}

// MARK: - PlayerSession

/// One player's side of `hitthat play`: the connection (kept up, with backoff, across server
/// restarts), the fights as known from the server's events, and the punches the sensor throws.
actor PlayerSession {
    let address: ServerAddress
    let credentials: Credentials
    let punches: PunchFeed?
    let output: any PlayOutput
    let mode: Mode

    /// Who plays, which decides what a failure does.
    enum Mode {
        /// A program: a server that cannot be reached at first, or a sensor that fails, ends the
        /// session with an error, since nobody is there to wait for it to come back.
        case script
        /// A person at the full screen: the failure is shown, and the session keeps trying (a
        /// server) or goes on with the keys (a sensor) until they quit.
        case screen
    }

    /// How long a script's `quit` waits for the replies to what it sent.
    static let quitWait = Duration.seconds(5)

    private var session: Session?
    private var client: FightClient?
    private(set) var follower = FightFollower()
    /// Requests sent and not answered yet: at the end of a script, the client waits for them.
    private var pending: Set<Int> = []
    /// Requests the player made (not the session itself) and not answered yet: their answer tells
    /// the screen whether the player's last action went through.
    private var playerRefs: Set<Int> = []
    /// What was asked for while not connected, sent once the server says `welcome`.
    private var queued: [Outgoing] = []
    /// Fighters whose cards were asked for (or came on the versus screen): one request each.
    private var cardsAsked: Set<Int64> = []
    /// Requests the session made itself that are on their way out (then in `pending`).
    private var sending = 0
    /// Whether the server has said `welcome` on the current connection.
    private var welcomed = false
    /// Whether this player waits in a quick-match room.
    private var waitingInRoom = false
    /// The punch being thrown: the fight and the sequence it is thrown at.
    private var punching: (fight: Int64, after: Int)?
    /// When this player's turn began in fights whose state is still to come.
    private var turnStarts = TurnStarts<ContinuousClock.Instant>()
    private var inputOver = false
    private var quitting = false
    /// Whether the server said `welcome` once: after that, a lost connection is the server gone.
    private var everWelcomed = false
    /// The wait between connection attempts, which quitting cuts short.
    private var backoffWait: Task<Void, Never>?
    /// Whether `run()` returned: nothing more will be sent or received.
    private var ended = false
    /// Why the session failed, for the message and the exit status.
    private(set) var failure: PlayFailure?

    init(
        address: ServerAddress, credentials: Credentials, punches: PunchFeed?, output: any PlayOutput, mode: Mode
    ) {
        self.address = address
        self.credentials = credentials
        self.punches = punches
        self.output = output
        self.mode = mode
    }

    var me: Int64? { session?.fighter.id }

    // MARK: - Connection

    /// Connects, and reconnects with backoff whenever the server goes away, until the player quits
    /// or (in a script) input ended and every fight is over.
    func run() async {
        defer { ended = true }
        if let punches {
            Task {
                if let failure = await punches.stopped() { await self.sensorFailed(failure) }
            }
        }
        var backoff = Duration.milliseconds(250)
        var unreachableShown = false
        while !isFinished {
            var unreachable: ConnectionError?
            do {
                let session = try await signedIn()
                let client = try await FightClient.connect(session, to: address)
                self.client = client
                backoff = .milliseconds(250)
                if unreachableShown { output.note("") }
                unreachableShown = false
                output.status("connected to \(address) as \(session.fighter.username)")
                try await send(.hello)
                for try await text in client.texts {
                    receive(text)
                    if isFinished { break }
                }
            } catch let error as ProtocolError {
                // The server refused the login itself: retrying cannot help.
                failure = PlayFailure("\(credentials.username): \(error.message)")
                quitting = true
            } catch {
                unreachable = ConnectionError(unreachable: address, error)
                if unreachable == nil { output.note("\(error)") }
            }
            await client?.close()
            client = nil
            welcomed = false
            pending.removeAll()
            playerRefs.removeAll()
            punching = nil
            if isFinished { break }
            if let unreachable, !everWelcomed {
                // Never connected: the address is wrong or the server is not up.
                if mode == .script {
                    failure = PlayFailure(unreachable.description)
                    break
                }
                // The reason on a line of its own: with the status it would not fit 80 columns.
                output.note(unreachable.description)
                unreachableShown = true
                output.status("could not connect; retrying in \(backoff)")
            } else {
                output.status("server gone; retrying in \(backoff)")
            }
            let wait = Task<Void, Never> { [backoff] in try? await Task.sleep(for: backoff) }
            backoffWait = wait
            await wait.value
            backoffWait = nil
            backoff = min(backoff * 2, .seconds(8))
        }
    }

    private func signedIn() async throws -> Session {
        if let session { return session }
        let session = try await FightClient.signIn(credentials, at: address)
        self.session = session
        return session
    }

    private var isFinished: Bool {
        if quitting { return true }
        guard inputOver, pending.isEmpty, queued.isEmpty, sending == 0, !waitingInRoom else { return false }
        return follower.fights.values.allSatisfy { $0.phase == "finished" }
    }

    // MARK: - Requests

    /// A message to send.
    enum Outgoing {
        case request(ClientRequest)
        case raw(String)
    }

    /// Sends `message`, or keeps it until the connection is up and welcomed.
    func send(_ message: Outgoing) async throws {
        guard let client, welcomed else {
            queued.append(message)
            return
        }
        switch message {
        case .request(let request): try await send(request, on: client, byPlayer: true)
        case .raw(let text): try await client.sendRaw(text)
        }
    }

    /// Sends `request` now (`hello`, and what the session asks for itself).
    private func send(_ request: ClientRequest) async throws {
        guard let client else { return }
        try await send(request, on: client)
    }

    /// Sends `request`, counting it as waiting for its reply from before it is written: the actor
    /// takes in messages while the request is being written, and the reply can come in then.
    private func send(_ request: ClientRequest, on client: FightClient, byPlayer: Bool = false) async throws {
        let ref = client.newRef()
        pending.insert(ref)
        if byPlayer { playerRefs.insert(ref) }
        do {
            try await client.send(request, ref: ref)
        } catch {
            pending.remove(ref)
            playerRefs.remove(ref)
            throw error
        }
    }

    private func flushQueue() async {
        let waiting = queued
        queued.removeAll()
        // On their way until written, so that neither the end of a script nor its `quit` comes
        // between two of them.
        sending += waiting.count
        for message in waiting {
            try? await send(message)
            await sent()
        }
    }

    /// Acts on one line of a script. `false` when the player quit.
    func perform(_ line: String) async -> Bool {
        do {
            switch try await ScriptCommand(line, session: self) {
            case .quit:
                await quit(waitingForReplies: mode == .script)
                return false
            case .request(let request):
                try await send(.request(request))
            case .raw(let text):
                try await send(.raw(text))
            case .none:
                break
            }
        } catch let error as ScriptCommand.Error {
            output.note(error.description)
        } catch {
            output.note("could not send: \(error)")
        }
        return true
    }

    /// Stops the session. A script's `quit` first waits (up to `quitWait`) for the replies to what
    /// it sent, and for what it queued while connecting to be sent: a program that asked and quit
    /// wants the answers. A person's `q`, and a signal, stop at once.
    func quit(waitingForReplies: Bool) async {
        if waitingForReplies {
            let deadline = ContinuousClock.now + Self.quitWait
            while !ended, !pending.isEmpty || !queued.isEmpty || sending > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        quitting = true
        backoffWait?.cancel()
        await client?.close()
    }

    /// Standard input ended: finish when the fights do.
    func inputEnded() async {
        inputOver = true
        if isFinished { await client?.close() }
    }

    /// The fight a punch typed now goes to. A fight the last events named may still be on its way
    /// (`matched` is shown before the fight's state comes back): up to 5 s, that answer is awaited
    /// rather than the punch refused as out of turn.
    func fightForTypedPunch() async -> FightView? {
        var waits = 0
        while fightAwaitingMyPunch() == nil, !follower.awaitingState.isEmpty, client != nil, waits < 500 {
            try? await Task.sleep(for: .milliseconds(10))
            waits += 1
        }
        return fightAwaitingMyPunch()
    }

    /// The fight this player may punch in now, if any.
    func fightAwaitingMyPunch() -> FightView? {
        guard let me else { return nil }
        return follower.fights.values.filter { $0.phase == "active" && $0.turn == me }.min { $0.id < $1.id }
    }

    /// The only open fight, for commands that leave the fight out.
    func onlyOpenFight() -> FightView? {
        let open = follower.fights.values.filter { $0.phase != "finished" }
        return open.count == 1 ? open.first : nil
    }

    // MARK: - Messages

    private func receive(_ text: String) {
        let received = ContinuousClock.now
        var turnSeen = received
        let message: ServerMessage
        do {
            message = try MessageCodec.decodeReply(text)
        } catch {
            output.note("unreadable message from the server: \(error)")
            return
        }
        if let ref = message.ref { pending.remove(ref) }
        // Only the first message with the ref: a punch's `ended` follows its `punched`.
        let answersPlayer = message.ref.map { playerRefs.remove($0) != nil } ?? false
        switch message.body {
        case .welcome(let welcome):
            welcomed = true
            everWelcomed = true
            Task { await self.flushQueue() }
            for need in follower.catchUp(openFights: welcome.openFights) {
                if let request = need.request { self.request(request) }
            }
        case .fight(let reply):
            follower.update(reply.fight)
            turnSeen = turnStarts.began(reply.fight, received: received)
        case .history(let reply):
            for view in reply.fights { follower.update(view) }
        case .events(let reply):
            for event in reply.events { follow(event, received: received) }
        case .event(let event):
            switch event.kind {
            case .openedRoom: waitingInRoom = true
            case .leftRoom: waitingInRoom = false
            case .matched: waitingInRoom = false
            default: break
            }
            follow(event, received: received)
        case .error(let error):
            if message.ref != nil { punching = nil }
            if error.code == .stale, let fight = punching?.fight { request(.fight(FightRef(fight: fight))) }
        default:
            break
        }
        askForCards(after: message)
        output.show(message, text: text, fights: follower.fights, me: me, answersPlayer: answersPlayer)
        throwPunchIfMyTurn(since: turnSeen)
    }

    /// Asks for the card of each fighter not seen yet, when the output shows cards: the opponents
    /// in this player's fights, and whoever `message` (an event) names, so that the screen can say
    /// "Bob challenged you" rather than give his number.
    private func askForCards(after message: ServerMessage) {
        guard output.showsCards, let me else { return }
        var named = follower.fights.values.flatMap { [$0.challenger, $0.opponent] }
        switch message.body {
        case .event(let event):
            named += [event.challenger, event.opponent, event.by, event.turn, event.winner].compactMap { $0 }
        case .opponent(let reply):
            // The versus screen's card is the card: no need to ask for it again.
            if let card = reply.matchup?.opponent { cardsAsked.insert(card.id) }
        default:
            break
        }
        for id in named where id != me && cardsAsked.insert(id).inserted {
            request(.profile(ProfileRequest(fighter: id)))
        }
    }

    private func follow(_ event: WireEvent, received: ContinuousClock.Instant) {
        let need = follower.apply(event)
        turnStarts.note(event, need: need, player: me, at: received)
        if let request = need.request { self.request(request) }
        if let fight = event.fight, punching?.fight == fight, (event.sequence ?? 0) > (punching?.after ?? 0) {
            punching = nil
        }
    }

    /// Sends a request from inside the actor without waiting for it to be written.
    private func request(_ request: ClientRequest) {
        sending += 1
        Task {
            try? await self.send(request)
            await self.sent()
        }
    }

    /// The reply to a request can arrive before the request counts as sent; then this, not the
    /// receive loop, is the last change, and must end a finished script itself.
    private func sent() async {
        sending -= 1
        if isFinished { await client?.close() }
    }

    // MARK: - Sensor punches

    /// When it is this player's turn and a sensor is in use, throws its next punch: from a live
    /// sensor, one made since `turnSeen`, when the client learnt of the turn (before it showed it).
    private func throwPunchIfMyTurn(since turnSeen: ContinuousClock.Instant = .now) {
        guard let punches, punching == nil, let fight = fightAwaitingMyPunch() else { return }
        punching = (fight.id, fight.lastSequence)
        Task {
            guard let punch = await punches.next(since: turnSeen) else {
                await self.sensorEnded()
                return
            }
            await self.throwPunch(punch, in: fight.id, after: fight.lastSequence)
        }
    }

    private func throwPunch(_ punch: DetectedPunch, in fight: Int64, after: Int) async {
        // The turn may have passed while the sensor waited for a punch: one out of turn is not sent.
        guard let view = follower.fights[fight], view.lastSequence == after, view.turn == me else {
            punching = nil
            throwPunchIfMyTurn()
            return
        }
        do {
            try await send(.punch(PunchRequest(fight: fight, kind: punch.kind, damage: punch.damage, after: after)))
        } catch {
            punching = nil
        }
    }

    /// The sensor has no more punches: said, unless it failed (`sensorFailed` says that).
    private func sensorEnded() {
        if punches?.failureReason == nil { output.note("the sensor has no more punches") }
    }

    /// A sensor that failed is an error: shown at once, and the exit status. A script, which can
    /// no longer punch, ends; a person can still punch with the keys, or quit.
    private func sensorFailed(_ reason: PlayFailure) async {
        failure = reason
        output.note("the sensor failed: \(reason)")
        if mode == .script { await quit(waitingForReplies: true) }
    }
}
