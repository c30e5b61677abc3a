import FightEngine
import FightProtocol

// MARK: - PlayerSession

/// One player's side of a fight server, as a state machine: what happened goes in (`handle`), what
/// to do comes out (`Effect`s), and nothing in here touches a socket, a clock or a sensor.
/// `PlayerDriver` performs the effects; tests feed events and read the effects.
///
/// It keeps the connection up (connecting again with `Backoff` when the server goes away), holds
/// the player's requests until the server has said `welcome` and sends them then, follows the
/// player's fights from the events, throws a sensor's punch only in the player's turn, and ends
/// when the player quits, or when input ended and every fight is over. A script's `quit` first
/// waits, up to `quitWait`, for the replies to what it sent.
public struct PlayerSession: Sendable {
    /// A moment, as the driver's clock gives it.
    public typealias Instant = ContinuousClock.Instant

    /// Who plays, which decides what a failure does.
    public enum Mode: Sendable {
        /// A program: a server that cannot be reached at first, or a sensor that fails, ends the
        /// session with an error, since nobody is there to wait for it to come back; `quit` waits
        /// for the replies to what was sent.
        case script
        /// A person at the full screen: the failure is shown, and the session keeps trying (a
        /// server) or goes on with the keys (a sensor) until they quit, which is at once.
        case screen
    }

    /// How the session behaves.
    public struct Configuration: Sendable {
        /// Who plays.
        public var mode: Mode
        /// The player's username, for what is said about the login.
        public var username: String
        /// The server, for what is said about the connection.
        public var server: String
        /// Whether punches come from a sensor (then one is asked for in each of the player's turns).
        public var hasSensor: Bool
        /// Whether opponents' cards are shown (then the session asks for them).
        public var showsCards: Bool
        /// The waits between connection attempts.
        public var backoff = Backoff(first: .milliseconds(250), longest: .seconds(8))
        /// How long a script's `quit` waits for the server's `welcome` and the replies to what it sent.
        public var quitWait = PlayerSession.quitWait

        /// Creates a configuration.
        public init(mode: Mode, username: String, server: String, hasSensor: Bool, showsCards: Bool) {
            self.mode = mode
            self.username = username
            self.server = server
            self.hasSensor = hasSensor
            self.showsCards = showsCards
        }
    }

    /// How long a script's `quit` waits for the replies to what it sent, unless configured otherwise.
    public static let quitWait = Duration.seconds(5)
    /// How long a typed punch waits for the state of a fight that an event just named (`matched`
    /// is shown before the fight's state comes back) before it is refused as out of turn.
    public static let typedPunchWait = Duration.seconds(5)

    // MARK: Events and effects

    /// Something that happened, for `handle`.
    public enum Event: Sendable {
        /// The session begins: connect.
        case start
        /// Signed in, and the WebSocket is open.
        case connected(Session)
        /// No connection was made: the server refused the login, could not be reached, or failed
        /// otherwise.
        case connectionFailed(ConnectionFailure)
        /// The connection that was open closed; `reason` when it failed (not for a server that went
        /// away, which says nothing more).
        case disconnected(reason: String?)
        /// The server sent `text`, received at `at`.
        case received(String, at: Instant)
        /// What the player asked for: a key, a script's line or a program's request, at `at`.
        /// Requests are held until the server says `welcome`; a `.request` goes as it is (no turn
        /// checked, so that it can be one the server must refuse), and its `ref` is the `send`
        /// effect's.
        case command(PlayerCommand, at: Instant)
        /// Input ended: finish when the fights do.
        case inputEnded
        /// The sensor's next punch, asked for by `awaitPunch(fight:after:since:)`, at `at`; `nil`
        /// when it has no more and did not fail (a failure is `sensorFailed`).
        case punchDetected(DetectedPunch?, fight: Int64, after: Int, at: Instant)
        /// The sensor failed, for the reason given.
        case sensorFailed(String)
        /// A timer started by `startTimer` ran out, at `at`.
        case timerFired(Timer, at: Instant)
        /// Stop now, whatever is pending (a signal, or the end of the keys).
        case interrupted
    }

    /// Why no connection was made.
    public enum ConnectionFailure: Error, Sendable {
        /// The server refused the login: retrying cannot help.
        case refused(ProtocolError)
        /// Nothing answered at the address (`ConnectionError(unreachable:_:)` says it in words).
        case unreachable(String)
        /// Anything else (a connection made and lost while being set up, say), in words.
        case other(String)
    }

    /// The session's timers.
    public enum Timer: Hashable, Sendable {
        /// The wait before connecting again.
        case reconnect
        /// The end of a script's wait for replies after `quit`.
        case quitWait
        /// The end of a typed punch's wait for the fight it may go to.
        case typedPunchWait
    }

    /// Something for the driver to do, in order.
    public enum Effect: Hashable, Sendable {
        /// Sign in (once; the session is kept) and open the WebSocket; then say `connected` or
        /// `connectionFailed`, and `disconnected` when it closes.
        case connect
        /// Send `request` with the session's token and `ref`.
        case send(ClientRequest, ref: Int)
        /// Send text as it is.
        case sendRaw(String)
        /// Start (or start again) `timer`, to fire after `after`.
        case startTimer(Timer, after: Duration)
        /// Stop `timer` if it runs.
        case cancelTimer(Timer)
        /// Ask the sensor for its next punch; from a live sensor, one made at `since` or later.
        case awaitPunch(fight: Int64, after: Int, since: Instant)
        /// The connection's state changed: tell the player.
        case status(String)
        /// Something the client could not do, or a remark: tell the player.
        case note(String)
        /// A message arrived: show it. `answersPlayer` when it is the first answer to a request
        /// the player made (not one the session made itself).
        case show(ServerMessage, text: String, answersPlayer: Bool)
        /// The session is over: close the connection, stop the timers, return.
        case finish
    }

    /// Why the session failed, when it did.
    public enum Failure: Hashable, Sendable, CustomStringConvertible {
        /// The server refused the login.
        case refused(String)
        /// A script's server could not be reached.
        case unreachable(String)
        /// The sensor failed.
        case sensor(String)

        /// What to tell the player.
        public var description: String {
            switch self {
            case .refused(let text), .unreachable(let text), .sensor(let text): text
            }
        }
    }

    // MARK: State

    /// How the session behaves.
    public let configuration: Configuration
    /// The player's fights, as known from the server's events.
    public private(set) var follower = FightFollower()
    /// The player's fighter, once signed in.
    public private(set) var me: Int64?
    /// Why the session failed, for the message and the exit status.
    public private(set) var failure: Failure?
    /// Whether the session is over.
    public private(set) var isOver = false
    /// Whether the session stops taking input: over, or a script's `quit` waiting for replies.
    public var isQuitting: Bool { isOver || quitDeadlineSet }

    private var backoff: Backoff
    private var lastRef = 0
    /// Whether a connection is open, and whether the server said `welcome` on it.
    private var connected = false
    private var welcomed = false
    /// Whether the server said `welcome` once: after that, a lost connection is the server gone.
    private var everWelcomed = false
    /// Whether the last failure to connect was shown on the note line, to clear once connected.
    private var unreachableShown = false
    /// Requests sent and not answered yet: a script's end and its `quit` wait for them.
    private var pending: Set<Int> = []
    /// Requests the player made (not the session itself) and not answered yet: their answer tells
    /// the screen whether the player's last action went through.
    private var playerRefs: Set<Int> = []
    /// What the player asked for while not welcomed, sent once the server says `welcome`.
    private var queued: [Outgoing] = []
    /// Fighters whose cards were asked for (or came on the versus screen): one request each.
    private var cardsAsked: Set<Int64> = []
    /// Whether this player waits in a quick-match room.
    private var waitingInRoom = false
    /// The sensor's punch being thrown: the fight and the sequence it is thrown at.
    private var punching: (fight: Int64, after: Int)?
    /// When this player's turn began in fights whose state is still to come.
    private var turnStarts = TurnStarts<Instant>()
    /// A typed punch waiting for the state of a fight an event named; the commands after it wait too.
    private var heldPunch: (verb: String, kind: PunchType, damage: Int)?
    private var heldCommands: [(command: PlayerCommand, at: Instant)] = []
    private var inputOver = false
    /// Whether a script's `quit` waits for replies.
    private var quitDeadlineSet = false

    /// A message for the server.
    private enum Outgoing {
        case request(ClientRequest)
        case raw(String)
    }

    /// A session that has not started.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        backoff = configuration.backoff
    }

    /// The fight this player may punch in now, if any: the oldest where it is their turn.
    public var fightAwaitingMyPunch: FightView? {
        guard let me else { return nil }
        return follower.fights.values.filter { $0.phase == .active && $0.turn == me }.min { $0.id < $1.id }
    }

    /// The only open fight, for commands that leave the fight out.
    public var onlyOpenFight: FightView? {
        let open = follower.fights.values.filter { $0.phase != .finished }
        return open.count == 1 ? open.first : nil
    }

    // MARK: Handling

    /// Takes in `event` and returns what to do about it, in order. After `finish`, nothing more.
    public mutating func handle(_ event: Event) -> [Effect] {
        guard !isOver else { return [] }
        var effects: [Effect] = []
        switch event {
        case .start:
            effects.append(.connect)
        case .connected(let session):
            connectionOpened(session, &effects)
        case .connectionFailed(let failure):
            connectionFailed(failure, &effects)
        case .disconnected(let reason):
            connectionLost(reason: reason, &effects)
        case .received(let text, let at):
            receive(text, at: at, &effects)
        case .command(let command, let at):
            if heldPunch != nil {
                heldCommands.append((command, at))
            } else {
                perform(command, at: at, &effects)
            }
        case .inputEnded:
            inputOver = true
        case .punchDetected(let punch, let fight, let after, let at):
            punchDetected(punch, in: fight, after: after, at: at, &effects)
        case .sensorFailed(let reason):
            failure = .sensor(reason)
            effects.append(.note("the sensor failed: \(reason)"))
            if configuration.mode == .script { quit(&effects) }
        case .timerFired(.reconnect, _):
            effects.append(.connect)
        case .timerFired(.quitWait, _):
            end(&effects)
        case .timerFired(.typedPunchWait, let at):
            releaseHeldPunch(at: at, &effects)
        case .interrupted:
            end(&effects)
        }
        if !isOver, quitDeadlineSet, !awaitingReplies { end(&effects) }
        if !isOver, isFinished { end(&effects) }
        return effects
    }

    /// Whether a reply is still to come: to a request sent, queued, or the first `hello`.
    private var awaitingReplies: Bool { !pending.isEmpty || !queued.isEmpty || !everWelcomed }

    /// Input ended, nothing is on its way, this player waits in no room and every fight is over
    /// (which only `welcome` can tell: it lists the open fights).
    private var isFinished: Bool {
        guard inputOver, heldPunch == nil, !awaitingReplies, !waitingInRoom else { return false }
        return follower.fights.values.allSatisfy { $0.phase == .finished }
    }

    private mutating func end(_ effects: inout [Effect]) {
        isOver = true
        effects.append(.finish)
    }

    // MARK: Connection

    private mutating func connectionOpened(_ session: Session, _ effects: inout [Effect]) {
        me = session.fighter.id
        connected = true
        backoff.reset()
        if unreachableShown { effects.append(.note("")) }
        unreachableShown = false
        effects.append(.status("connected to \(configuration.server) as \(session.fighter.username)"))
        send(.hello, &effects)
    }

    private mutating func connectionFailed(_ failure: ConnectionFailure, _ effects: inout [Effect]) {
        switch failure {
        case .refused(let error):
            self.failure = .refused("\(configuration.username): \(error.message)")
            end(&effects)
        case .unreachable(let reason) where !everWelcomed:
            // Never connected: the address is wrong or the server is not up.
            if configuration.mode == .script {
                self.failure = .unreachable(reason)
                end(&effects)
                return
            }
            // The reason on a line of its own: with the status it would not fit 80 columns.
            effects.append(.note(reason))
            unreachableShown = true
            retry("could not connect", &effects)
        case .unreachable:
            retry("server gone", &effects)
        case .other(let reason):
            effects.append(.note(reason))
            retry("server gone", &effects)
        }
    }

    private mutating func connectionLost(reason: String?, _ effects: inout [Effect]) {
        connected = false
        welcomed = false
        // Whatever was on its way is lost with the connection; what was queued stays queued.
        pending.removeAll()
        playerRefs.removeAll()
        punching = nil
        if isFinished { return end(&effects) }
        // A script's `quit` waiting for replies connects again too: what it queued is sent then.
        if let reason { effects.append(.note(reason)) }
        retry("server gone", &effects)
    }

    private mutating func retry(_ what: String, _ effects: inout [Effect]) {
        let wait = backoff.next()
        effects.append(.status("\(what); retrying in \(wait)"))
        effects.append(.startTimer(.reconnect, after: wait))
    }

    // MARK: Sending

    /// Sends a request the session makes itself (`hello`, what catching up needs, cards), counted
    /// as waiting for its reply.
    private mutating func send(_ request: ClientRequest, byPlayer: Bool = false, _ effects: inout [Effect]) {
        lastRef += 1
        pending.insert(lastRef)
        if byPlayer { playerRefs.insert(lastRef) }
        effects.append(.send(request, ref: lastRef))
    }

    /// Sends what the player asked for, or keeps it until the server says `welcome`.
    private mutating func sendForPlayer(_ message: Outgoing, _ effects: inout [Effect]) {
        guard welcomed else {
            queued.append(message)
            return
        }
        switch message {
        case .request(let request): send(request, byPlayer: true, &effects)
        case .raw(let text): effects.append(.sendRaw(text))
        }
    }

    // MARK: Input

    /// Acts on one command of the player's.
    private mutating func perform(_ command: PlayerCommand, at: Instant, _ effects: inout [Effect]) {
        guard !isQuitting else { return }
        switch command {
        case .quit:
            quit(&effects)
        case .request(let request):
            sendForPlayer(.request(request), &effects)
        case .raw(let text):
            sendForPlayer(.raw(text), &effects)
        case .answer(let answer, let fight):
            guard let fight = fight ?? onlyOpenFight?.id else {
                effects.append(.note("\(answer.rawValue): expected a fight id (no single fight to assume)"))
                return
            }
            sendForPlayer(.request(answer.request(fight)), &effects)
        case .punch(let verb, let fight?, let kind, let damage):
            guard let target = follower.fights[fight] else { return notYourTurn(verb, &effects) }
            throwTyped(kind, damage, in: target, &effects)
        case .punch(let verb, nil, let kind, let damage):
            if let target = fightAwaitingMyPunch {
                throwTyped(kind, damage, in: target, &effects)
            } else if connected, !follower.awaitingState.isEmpty {
                // A fight the last events named is on its way: its state may give the turn.
                heldPunch = (verb, kind, damage)
                effects.append(.startTimer(.typedPunchWait, after: Self.typedPunchWait))
            } else {
                notYourTurn(verb, &effects)
            }
        }
    }

    private mutating func throwTyped(_ kind: PunchType, _ damage: Int, in fight: FightView, _ effects: inout [Effect]) {
        let punch = PunchRequest(fight: fight.id, kind: kind, damage: damage, after: fight.lastSequence)
        sendForPlayer(.request(.punch(punch)), &effects)
    }

    private func notYourTurn(_ verb: String, _ effects: inout [Effect]) {
        effects.append(.note("\(verb): it is not your turn in any fight"))
    }

    /// Throws the held punch if a fight now awaits it (or says it cannot when `at`, its wait
    /// being over, is given), then performs the lines that came after it.
    private mutating func releaseHeldPunch(at: Instant?, _ effects: inout [Effect]) {
        guard let held = heldPunch else { return }
        if let target = fightAwaitingMyPunch {
            throwTyped(held.kind, held.damage, in: target, &effects)
        } else if at != nil || follower.awaitingState.isEmpty || !connected {
            notYourTurn(held.verb, &effects)
        } else {
            return
        }
        heldPunch = nil
        effects.append(.cancelTimer(.typedPunchWait))
        while heldPunch == nil, !heldCommands.isEmpty {
            let next = heldCommands.removeFirst()
            perform(next.command, at: next.at, &effects)
        }
    }

    /// `quit`: a script waits (up to `quitWait`) for the replies to what it sent, for what it
    /// queued to be sent, and for the server's `welcome` if it has not come yet: a program that
    /// asked and quit wants the answers. A person's stops at once.
    private mutating func quit(_ effects: inout [Effect]) {
        guard configuration.mode == .script, awaitingReplies else { return end(&effects) }
        quitDeadlineSet = true
        effects.append(.startTimer(.quitWait, after: configuration.quitWait))
    }

    // MARK: Receiving

    private mutating func receive(_ text: String, at received: Instant, _ effects: inout [Effect]) {
        var turnSeen = received
        let message: ServerMessage
        do {
            message = try MessageCodec.decodeReply(text)
        } catch {
            effects.append(.note("unreadable message from the server: \(error)"))
            return
        }
        if let ref = message.ref { pending.remove(ref) }
        // Only the first message with the ref: a punch's `ended` follows its `punched`.
        let answersPlayer = message.ref.map { playerRefs.remove($0) != nil } ?? false
        switch message.body {
        case .welcome(let welcome):
            welcomed = true
            everWelcomed = true
            let waiting = queued
            queued.removeAll()
            for outgoing in waiting { sendForPlayer(outgoing, &effects) }
            for need in follower.catchUp(openFights: welcome.openFights) {
                if let request = need.request { send(request, &effects) }
            }
        case .fight(let reply):
            follower.update(reply.fight)
            turnSeen = turnStarts.began(reply.fight, received: received)
        case .history(let reply):
            for view in reply.fights { follower.update(view) }
        case .events(let reply):
            for event in reply.events { follow(event, received: received, &effects) }
        case .event(let event):
            switch event.kind {
            case .openedRoom: waitingInRoom = true
            case .leftRoom, .matched: waitingInRoom = false
            default: break
            }
            follow(event, received: received, &effects)
        case .error(let error):
            // An answer to a request ends the wait for the punch being thrown; a stale punch means
            // the fight moved on unseen (across a reconnect, say): its state is asked for.
            if message.ref != nil, let fight = punching?.fight {
                punching = nil
                if error.code == .stale { send(.fight(FightRef(fight: fight)), &effects) }
            }
        default:
            break
        }
        askForCards(after: message, &effects)
        effects.append(.show(message, text: text, answersPlayer: answersPlayer))
        throwPunchIfMyTurn(since: turnSeen, &effects)
        releaseHeldPunch(at: nil, &effects)
    }

    private mutating func follow(_ event: WireEvent, received: Instant, _ effects: inout [Effect]) {
        let need = follower.apply(event)
        turnStarts.note(event, need: need, player: me, at: received)
        if let request = need.request { send(request, &effects) }
        if let fight = event.fight, punching?.fight == fight, (event.sequence ?? 0) > (punching?.after ?? 0) {
            punching = nil
        }
    }

    /// Asks for the card of each fighter not seen yet, when cards are shown: the opponents in this
    /// player's fights, and whoever `message` (an event) names, so that the screen can say "Bob
    /// challenged you" rather than give his number.
    private mutating func askForCards(after message: ServerMessage, _ effects: inout [Effect]) {
        guard configuration.showsCards, let me else { return }
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
            send(.profile(ProfileRequest(fighter: id)), &effects)
        }
    }

    // MARK: Sensor punches

    /// When it is this player's turn and a sensor is in use, asks for its next punch: from a live
    /// sensor, one made since `turnSeen`, when the client learnt of the turn (before it showed it).
    private mutating func throwPunchIfMyTurn(since turnSeen: Instant, _ effects: inout [Effect]) {
        guard configuration.hasSensor, punching == nil, let fight = fightAwaitingMyPunch else { return }
        punching = (fight.id, fight.lastSequence)
        effects.append(.awaitPunch(fight: fight.id, after: fight.lastSequence, since: turnSeen))
    }

    private mutating func punchDetected(
        _ punch: DetectedPunch?, in fight: Int64, after: Int, at: Instant, _ effects: inout [Effect]
    ) {
        guard let punch else { return effects.append(.note("the sensor has no more punches")) }
        // The turn may have passed while the sensor waited for a punch: one out of turn is not sent.
        guard let view = follower.fights[fight], view.lastSequence == after, view.turn == me else {
            punching = nil
            throwPunchIfMyTurn(since: at, &effects)
            return
        }
        let request = PunchRequest(fight: fight, kind: punch.kind, damage: punch.damage, after: after)
        sendForPlayer(.request(.punch(request)), &effects)
    }
}

// MARK: - DetectedPunch

/// A punch as a fight needs it, from a sensor: kind and damage, and when it was detected.
public struct DetectedPunch: Hashable, Sendable {
    /// What kind of punch.
    public var kind: PunchType
    /// Its damage, within `Rules.punchDamage`.
    public var damage: Int
    /// When the detector found it.
    public var detectedAt: ContinuousClock.Instant

    /// Creates a punch.
    public init(kind: PunchType, damage: Int, detectedAt: ContinuousClock.Instant) {
        self.kind = kind
        self.damage = damage
        self.detectedAt = detectedAt
    }
}
