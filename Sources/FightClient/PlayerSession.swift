import FightEngine
import FightProtocol

// MARK: - PlayerSession

/// One player's side of a fight server, as a state machine: what happened goes in (`handle`), what
/// to do comes out (`Effect`s), and nothing in here touches a socket, a clock or a sensor.
/// `PlayerDriver` performs the effects; tests feed events and read the effects.
///
/// It keeps the connection up (connecting again with `Backoff` when the server goes away), holds
/// the player's requests until the server has said `welcome` and sends them then, follows the
/// player's fights from the events, streams a sensor's motion only in the player's turn, and ends
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
        /// Whether punches come from a sensor (then its motion is streamed in each of the player's turns).
        public var hasSensor: Bool
        /// Whether opponents' cards are shown (then the session asks for them).
        public var showsCards: Bool
        /// The hand that throws, for teaching the server the player's punches.
        public var hand = TeachingHand.right
        /// The waits between connection attempts.
        public var backoff = Backoff(first: .milliseconds(250), longest: .seconds(8))
        /// How long a script's `quit` waits for the server's `welcome` and the replies to what it sent.
        public var quitWait = PlayerSession.quitWait
        /// Whether each open fight not followed yet is replayed from its first event, so that a
        /// log (the screen's) shows its past after a restart, not only what comes next.
        public var replaysPast = false

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
    /// How long a typed punch or guard that names no fight waits for the state of a fight that an
    /// event just named (`matched` is shown before the fight's state comes back) before it is
    /// refused: out of turn, or no fight under way.
    public static let heldCommandWait = Duration.seconds(5)

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
        /// The sensor's next samples, asked for by `awaitMotion(hold:since:)` for hold `hold`, at
        /// `at`; `nil` when it has no more and did not fail (a failure is `sensorFailed`). With
        /// the hold's first samples, what a live sensor read in the moments before it (`lead`:
        /// `MotionSource.rows(before:seconds:)`), sent as the hold's lead-in.
        case motionRead([MotionRow]?, hold: Int, at: Instant, lead: [MotionRow] = [])
        /// The sensor failed.
        case sensorFailed(SensorFailure)
        /// A timer started by `startTimer` ran out, at `at`.
        case timerFired(Timer, at: Instant)
        /// Stop now, whatever is pending (a signal, or the end of the keys).
        case interrupted
    }

    /// Why no connection was made.
    public enum ConnectionFailure: Error, Sendable {
        /// The server refused the login: retrying cannot help.
        case refused(ProtocolError)
        /// Nothing answered at the address (`ConnectionError(unreachable:_:)`).
        case unreachable(ConnectionError)
        /// The server took too many sign-ins from this address lately: trying later can help.
        case rateLimited(ProtocolError)
        /// Anything else (a connection made and lost while being set up, say), in words.
        case other(String)
    }

    /// The session's timers.
    public enum Timer: Hashable, Sendable {
        /// The wait before connecting again.
        case reconnect
        /// The end of a script's wait for replies after `quit`.
        case quitWait
        /// The end of a held punch's or guard's wait for the fight it may go to.
        case heldCommandWait
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
        /// Ask the sensor for its next samples, for hold `hold` (a punch's in a fight, or a
        /// lesson's); from a live sensor, ones made at `since` or later.
        case awaitMotion(hold: Int, since: Instant)
        /// The connection's state changed: tell the player.
        case status(ConnectionStatus)
        /// Something the client could not do, or a remark: tell the player (`Note.description`).
        case note(Note)
        /// The power meter the player wound up, to show as it sweeps; `nil` when it is gone (the
        /// punch was thrown, or the fight moved on without it).
        case meter(AimedMeter?)
        /// A message arrived: show it. `answersPlayer` when it is the first answer to a request
        /// the player made (not one the session made itself).
        case show(ServerMessage, text: String, answersPlayer: Bool)
        /// The session is over: close the connection, stop the timers, return.
        case finish
    }

    /// What the session tells the player on the note line, kept typed until it is shown: a
    /// program acts on the case (`hitthat-load` counts `unreadableMessage`), not on the words.
    public enum Note: Hashable, Sendable, CustomStringConvertible {
        /// The last note is over: an empty line.
        case cleared
        /// `accept`, `decline` or `forfeit` left the fight out, and there is not one open fight.
        case noSingleFight(PlayerCommand.FightAnswer)
        /// A punch asked for (by `verb`, the word it was asked with) when no fight awaits one.
        case notYourTurn(verb: String)
        /// A punch asked for while the connection is down: not sent, since the fight may have
        /// moved on by the time it is back.
        case punchNotSent(verb: String)
        /// A guard asked for with the fight left out, and there is not one fight under way.
        case noFightUnderWay(verb: String)
        /// The server could not be reached (yet).
        case unreachable(ConnectionError)
        /// The connection failed, or was lost, for this reason.
        case connectionFailed(String)
        /// The server sent something that is not a protocol message this client reads.
        case unreadableMessage(ProtocolError)
        /// The sensor failed.
        case sensorFailed(SensorFailure)
        /// The sensor has no more punches.
        case sensorEnded
        /// Teaching the server the player's punches: what to throw, what was learned.
        case lesson(Lesson.Note)

        /// The note's words.
        public var description: String {
            switch self {
            case .cleared: ""
            case .noSingleFight(let answer): "\(answer.rawValue): expected a fight id (no single fight to assume)"
            case .notYourTurn(let verb): "\(verb): it is not your turn in any fight"
            case .punchNotSent(let verb): "\(verb): not sent, the server is not connected; throw it again once it is back"
            case .noFightUnderWay(let verb): "\(verb): expected a fight id (no single fight under way to assume)"
            case .unreachable(let error): error.description
            case .connectionFailed(let reason): reason
            case .unreadableMessage(let error): "unreadable message from the server: \(error)"
            case .sensorFailed(let reason): "the sensor failed: \(reason)"
            case .sensorEnded: "the sensor has no more punches"
            case .lesson(let note): note.description
            }
        }
    }

    /// Why the session failed, when it did.
    public enum Failure: Hashable, Sendable, CustomStringConvertible {
        /// The server refused `username`'s login.
        case refused(username: String, ProtocolError)
        /// A script's server could not be reached.
        case unreachable(ConnectionError)
        /// The sensor failed.
        case sensor(SensorFailure)

        /// What to tell the player.
        public var description: String {
            switch self {
            case .refused(let username, let error): "\(username): \(error.message)"
            case .unreachable(let error): error.description
            case .sensor(let failure): failure.description
            }
        }
    }

    // MARK: State

    /// How the session behaves.
    public let configuration: Configuration
    /// The player's fights, as known from the server's events.
    public private(set) var follower = FightFollower()
    /// The player's fighter, once signed in.
    public private(set) var me: FighterID?
    /// Why the session failed, for the message and the exit status. Set before the session is
    /// over when the sensor fails at the full screen, which plays on with the keys.
    public private(set) var failure: Failure?
    /// Whether this player waits in a quick-match room: `openedRoom` says so, `leftRoom` and
    /// `matched` (and the refusals `alreadyWaiting`, `notWaiting`) say otherwise. `nil` when a
    /// request about the room was on its way as the connection dropped: `welcome` does not say,
    /// and the request may or may not have been taken.
    public private(set) var isWaitingInRoom: Bool? = false
    /// Teaching the server the player's punches: under way while it asks for them. A hold of the
    /// sensor is then the lesson's, and none is streamed to a fight until it is over.
    public private(set) var lesson = Lesson.idle
    /// The rules the server states in `welcome` (this build's own until it has).
    public private(set) var rules = StatedRules()

    /// Where the connection stands: one case at a time, with what only that case has, so that
    /// (say) a request cannot be pending on a connection that is not open.
    private enum Connection {
        /// No connection: before the start, while connecting, or waiting to connect again.
        /// `unreachableShown` when the last failure to connect is on the note line, to clear once
        /// connected.
        case closed(unreachableShown: Bool)
        /// A connection is open.
        case open(OpenConnection)
        /// The session is over.
        case over
    }

    /// What an open connection has, and loses when it closes.
    private struct OpenConnection {
        /// Whether the server said `welcome` on it.
        var welcomed = false
        /// Requests sent on it and not answered yet: a script's end and its `quit` wait for them.
        var pending: Set<Int> = []
        /// Those of them the player made (not the session itself): their answer tells the screen
        /// whether the player's last action went through.
        var playerRefs: Set<Int> = []
        /// Those of them about the quick-match room.
        var roomRefs: Set<Int> = []
        /// Those of them the lesson sent (`teach`, `teachDone`): a refusal is the lesson's.
        var lessonRefs: Set<Int> = []
        /// The sensor's hold being streamed.
        var holding: Holding?
        /// The power meter wound up on it: the meter shown, the sequence it was wound up at, and
        /// the `ref` of its `windUp` (a refusal of it ends the meter).
        var windUp: (meter: AimedMeter, after: Int, ref: Int)?
    }

    /// Where the player's input stands.
    private enum Input {
        /// Commands come.
        case reading
        /// Input ended: the session ends when the fights do.
        case ended
        /// A script's `quit` waits for the replies to what it sent.
        case quitting
    }

    /// A typed punch or guard that names no fight, waiting for the state of a fight an event
    /// named, and the commands that came after it, which wait too.
    private struct HeldCommand {
        var command: PlayerCommand
        var at: Instant
        var commandsAfter: [(command: PlayerCommand, at: Instant)] = []
    }

    /// A hold of the sensor's motion being streamed: the server's detector finds the punch in it.
    private struct Holding {
        /// What a hold is for.
        enum Target {
            /// A punch in `fight`, thrown at sequence `after`.
            case fight(FightID, after: Int)
            /// A teaching punch of the kind the lesson asked for.
            case lesson(PunchType)
        }

        /// What this one is for.
        var target: Target
        /// The hold's number, for the server.
        var number: Int
        /// When the turn began: a live sensor's motion before it is not sent.
        var since: Instant
        /// When the hold began on the samples' clock (its first new sample's time, what came
        /// before being its lead-in), once a batch was sent: the batches' `pressed`.
        var first: Double?
        /// The `ref`s of its batches: an error to one ends the hold.
        var refs: Set<Int> = []
        /// Whether its last batch was sent: the server's answer (`punched` or `holdEnded`) is awaited.
        var ending = false

        /// The fight it throws in, if it is a fight's.
        var fight: FightID? {
            if case .fight(let fight, _) = target { fight } else { nil }
        }

        /// Whether it is the lesson's.
        var isLesson: Bool {
            if case .lesson = target { true } else { false }
        }
    }

    /// How long a hold streams before it ends and the next begins, in seconds of the samples: the
    /// server takes holds of up to `MotionLimits.holdSeconds`, and a batch adds a fraction of a second.
    public static let holdRollover = MotionLimits.holdSeconds - 1

    private var connection = Connection.closed(unreachableShown: false)
    private var input = Input.reading
    private var held: HeldCommand?
    /// Whether a command may be held now: not while the held one is performed at the end of its wait.
    private var mayHold = true
    private var backoff: Backoff
    private var lastRef = 0
    /// The last hold's number.
    private var lastHold = 0
    /// Whether the sensor has no more motion: no hold begins after.
    private var sensorEnded = false
    /// The sensor's newest rows, `MotionLimits.leadSeconds` of them: the next hold's lead-in,
    /// where they come just before it (a recording played on, a hold rolled over), so that its
    /// detector knows what the arm was doing as `detect` does over the whole recording.
    private var recentRows: [MotionRow] = []
    /// Whether the server said `welcome` once: after that, a lost connection is the server gone.
    private var everWelcomed = false
    /// What the player asked for while not welcomed, sent once the server says `welcome`.
    private var queued: [Outgoing] = []
    /// Fighters whose cards were asked for (or came on the versus screen): one request each.
    var cardsAsked: Set<FighterID> = []
    /// When this player's turn began in fights whose state is still to come.
    private var turnStarts = TurnStarts<Instant>()

    /// A message for the server.
    private enum Outgoing {
        case request(ClientRequest)
        case raw(String)
        /// A lesson begun (or finished) once the server says `welcome`.
        case teach(TeachingHand)
        case teachDone
    }

    /// Whether the session is over.
    public var isOver: Bool {
        if case .over = connection { true } else { false }
    }

    /// Whether the session stops taking input: over, or a script's `quit` waiting for replies.
    public var isQuitting: Bool {
        if case .quitting = input { true } else { isOver }
    }

    /// Whether a connection is open and the server said `welcome` on it: requests go at once.
    public var isWelcomed: Bool {
        if case .open(let open) = connection { open.welcomed } else { false }
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
            if held != nil {
                held?.commandsAfter.append((command, at))
            } else {
                perform(command, at: at, &effects)
            }
        case .inputEnded:
            if case .reading = input { input = .ended }
        case .motionRead(let rows, let hold, let at, let lead):
            motionRead(rows, hold: hold, at: at, lead: lead, &effects)
        case .sensorFailed(let sensorFailure):
            failure = .sensor(sensorFailure)
            effects.append(.note(.sensorFailed(sensorFailure)))
            if configuration.mode == .script { quit(&effects) }
        case .timerFired(.reconnect, _):
            effects.append(.connect)
        case .timerFired(.quitWait, _):
            end(&effects)
        case .timerFired(.heldCommandWait, let at):
            releaseHeldCommand(at: at, &effects)
        case .interrupted:
            end(&effects)
        }
        if !isOver, case .quitting = input, !awaitingReplies { end(&effects) }
        if !isOver, isFinished { end(&effects) }
        return effects
    }

    /// Whether a reply is still to come: to a request sent, queued, or the first `hello`.
    private var awaitingReplies: Bool {
        if case .open(let open) = connection, !open.pending.isEmpty { return true }
        return !queued.isEmpty || !everWelcomed
    }

    /// Input ended, nothing is on its way, this player is not known to wait in a room and every
    /// fight is over (which only `welcome` can tell: it lists the open fights).
    private var isFinished: Bool {
        guard case .ended = input, held == nil, !awaitingReplies, isWaitingInRoom != true else { return false }
        return follower.fights.values.allSatisfy { $0.phase == .finished }
    }

    private mutating func end(_ effects: inout [Effect]) {
        connection = .over
        effects.append(.finish)
    }

    // MARK: Connection

    private mutating func connectionOpened(_ session: Session, _ effects: inout [Effect]) {
        me = session.fighter.id
        if case .closed(unreachableShown: true) = connection { effects.append(.note(.cleared)) }
        connection = .open(OpenConnection())
        backoff.reset()
        effects.append(.status(.connected(server: configuration.server, username: session.fighter.username)))
        send(.hello, &effects)
    }

    private mutating func connectionFailed(_ failure: ConnectionFailure, _ effects: inout [Effect]) {
        switch failure {
        case .refused(let error):
            self.failure = .refused(username: configuration.username, error)
            end(&effects)
        case .unreachable(let error) where !everWelcomed:
            // Never connected: the address is wrong or the server is not up.
            if configuration.mode == .script {
                self.failure = .unreachable(error)
                end(&effects)
                return
            }
            // The reason on a line of its own: with the status it would not fit 80 columns.
            effects.append(.note(.unreachable(error)))
            connection = .closed(unreachableShown: true)
            retry(.couldNotConnect, &effects)
        case .unreachable:
            retry(.serverGone, &effects)
        case .rateLimited(let error):
            effects.append(.note(.connectionFailed(error.message)))
            retry(.serverBusy, &effects)
        case .other(let reason):
            effects.append(.note(.connectionFailed(reason)))
            retry(.serverGone, &effects)
        }
    }

    private mutating func connectionLost(reason: String?, _ effects: inout [Effect]) {
        // Whatever was on its way is lost with the connection; what was queued stays queued. A
        // request about the room may or may not have been taken.
        if case .open(let open) = connection, !open.roomRefs.isEmpty { isWaitingInRoom = nil }
        // A wind-up is the server's moment on that connection: gone with it.
        if case .open(let open) = connection, open.windUp != nil { effects.append(.meter(nil)) }
        connection = .closed(unreachableShown: false)
        // A teaching is the server's on that connection: gone with it.
        apply(lesson.stop("the connection closed; teach again once it is back"), at: nil, &effects)
        if isFinished { return end(&effects) }
        // A script's `quit` waiting for replies connects again too: what it queued is sent then.
        if let reason { effects.append(.note(.connectionFailed(reason))) }
        retry(.serverGone, &effects)
    }

    private mutating func retry(_ why: ConnectionStatus.Retry, _ effects: inout [Effect]) {
        let wait = backoff.next()
        effects.append(.status(.retrying(why, in: wait)))
        effects.append(.startTimer(.reconnect, after: wait))
    }

    // MARK: Sending

    /// Sends a request the session makes itself (`hello`, what catching up needs, cards), counted
    /// as waiting for its reply.
    mutating func send(_ request: ClientRequest, byPlayer: Bool = false, _ effects: inout [Effect]) {
        guard case .open(var open) = connection else { return }
        lastRef += 1
        open.pending.insert(lastRef)
        if byPlayer { open.playerRefs.insert(lastRef) }
        if request == .quickMatch || request == .leaveQuickMatch { open.roomRefs.insert(lastRef) }
        connection = .open(open)
        effects.append(.send(request, ref: lastRef))
    }

    /// Sends what the player asked for, or keeps it until the server says `welcome`.
    private mutating func sendForPlayer(_ message: Outgoing, _ effects: inout [Effect]) {
        guard isWelcomed else {
            queued.append(message)
            return
        }
        switch message {
        case .request(let request): send(request, byPlayer: true, &effects)
        case .raw(let text): effects.append(.sendRaw(text))
        case .teach(let hand): apply(lesson.begin(hand: hand), at: nil, &effects)
        case .teachDone: apply(lesson.finish(), at: nil, &effects)
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
                effects.append(.note(.noSingleFight(answer)))
                return
            }
            sendForPlayer(.request(answer.request(fight)), &effects)
        case .teach where !configuration.hasSensor:
            apply([.note(.stopped("teaching needs the motion of a sensor: play --sensor FILE|NODE"))], at: at, &effects)
        case .teach(let hand):
            sendForPlayer(.teach(hand ?? configuration.hand), &effects)
        case .teachDone:
            sendForPlayer(.teachDone, &effects)
        case .punch(let verb, _, _) where !isWelcomed:
            // Queued, it would reach the fight after whatever the downtime brought: refused then
            // as stale, in sequence numbers. Said now, in words.
            effects.append(.note(.punchNotSent(verb: verb)))
        case .windUp(let kind, _) where !isWelcomed:
            effects.append(.note(.punchNotSent(verb: kind.rawValue)))
        case .raiseGuard where !isWelcomed:
            effects.append(.note(.punchNotSent(verb: "guard")))
        case .windUp(let kind, let fight):
            guard let target = fight.map({ follower.fights[$0] }) ?? fightAwaitingMyPunch else {
                return notYourTurn(kind.rawValue, &effects)
            }
            windUp(kind, in: target, at: at, &effects)
        case .raiseGuard(let stance, let fight):
            guard let id = fight ?? singleFightUnderWay else {
                if !hold(command, at: at, &effects) { effects.append(.note(.noFightUnderWay(verb: "guard"))) }
                return
            }
            // Switching starts from the guard the server last said this player has.
            let next = stance ?? (follower.fights[id]?.ownGuard == .high ? .low : .high)
            sendForPlayer(.request(.raiseGuard(GuardRequest(fight: id, guard: next))), &effects)
        case .punch(let verb, let fight?, let kind):
            guard let target = follower.fights[fight] else { return notYourTurn(verb, &effects) }
            throwTyped(kind, in: target, &effects)
        case .punch(let verb, nil, let kind):
            if let target = fightAwaitingMyPunch {
                throwTyped(kind, in: target, &effects)
            } else if !hold(command, at: at, &effects) {
                notYourTurn(verb, &effects)
            }
        }
    }

    /// The one fight under way, if there is just one: where a guard that names none goes.
    private var singleFightUnderWay: FightID? {
        let underWay = follower.fights.values.filter { $0.phase == .active }
        return underWay.count == 1 ? underWay.first?.id : nil
    }

    /// Holds `command` (a punch or guard that names no fight) when the state of a fight the last
    /// events named is on its way and may be the one it goes to, for `heldCommandWait` at most;
    /// returns whether it did.
    private mutating func hold(_ command: PlayerCommand, at: Instant, _ effects: inout [Effect]) -> Bool {
        guard mayHold, held == nil, case .open = connection, !follower.awaitingState.isEmpty else { return false }
        held = HeldCommand(command: command, at: at)
        effects.append(.startTimer(.heldCommandWait, after: Self.heldCommandWait))
        return true
    }

    /// Starts the power meter in `fight` with `kind` as the aim; a meter already sweeping there
    /// at the same sequence only changes its aim (winding up again would start it over).
    private mutating func windUp(_ kind: PunchType, in fight: FightView, at: Instant, _ effects: inout [Effect]) {
        guard case .open(var open) = connection else { return }
        if var current = open.windUp, current.meter.fight == fight.id, current.after == fight.lastSequence {
            current.meter.kind = kind
            open.windUp = current
            connection = .open(open)
            return effects.append(.meter(current.meter))
        }
        send(.windUp(WindUpRequest(fight: fight.id, after: fight.lastSequence)), byPlayer: true, &effects)
        // Until the server's `meter` comes, the meter is drawn as its `welcome` stated it.
        let meter = AimedMeter(fight: fight.id, kind: kind, since: at, meter: rules.meter)
        guard case .open(var sent) = connection else { return }
        sent.windUp = (meter, fight.lastSequence, lastRef)
        connection = .open(sent)
        effects.append(.meter(meter))
    }

    /// Ends the meter shown, if any.
    private mutating func endWindUp(_ effects: inout [Effect]) {
        guard case .open(var open) = connection, open.windUp != nil else { return }
        open.windUp = nil
        connection = .open(open)
        effects.append(.meter(nil))
    }

    private mutating func throwTyped(_ kind: PunchType, in fight: FightView, _ effects: inout [Effect]) {
        // One not wound up at this sequence is wound up now, and so stopped at once, at the floor.
        let wound = if case .open(let open) = connection, let windUp = open.windUp {
            windUp.meter.fight == fight.id && windUp.after == fight.lastSequence
        } else { false }
        if !wound {
            sendForPlayer(.request(.windUp(WindUpRequest(fight: fight.id, after: fight.lastSequence))), &effects)
        }
        endWindUp(&effects)
        let punch = PunchRequest(fight: fight.id, kind: kind, after: fight.lastSequence)
        sendForPlayer(.request(.punch(punch)), &effects)
    }

    private func notYourTurn(_ verb: String, _ effects: inout [Effect]) {
        effects.append(.note(.notYourTurn(verb: verb)))
    }

    /// Performs the held command once the fight it may go to is known, or, when `at` (its wait
    /// being over) is given or no state is on its way any more, as it stands (which refuses it);
    /// then performs the commands that came after it.
    private mutating func releaseHeldCommand(at: Instant?, _ effects: inout [Effect]) {
        guard let waiting = held else { return }
        let isOpen = if case .open = connection { true } else { false }
        let canGo: Bool
        switch waiting.command {
        case .raiseGuard: canGo = singleFightUnderWay != nil
        default: canGo = fightAwaitingMyPunch != nil
        }
        guard canGo || at != nil || follower.awaitingState.isEmpty || !isOpen else { return }
        held = nil
        // The held command is performed as it stands: held again, it would wait for nothing.
        mayHold = false
        perform(waiting.command, at: waiting.at, &effects)
        mayHold = true
        effects.append(.cancelTimer(.heldCommandWait))
        var queue = waiting.commandsAfter[...]
        while held == nil, let next = queue.popFirst() {
            perform(next.command, at: next.at, &effects)
        }
        // A command may have been held again: those still waiting go behind it, in order.
        held?.commandsAfter += queue
    }

    /// `quit`: a script waits (up to `quitWait`) for the replies to what it sent, for what it
    /// queued to be sent, and for the server's `welcome` if it has not come yet: a program that
    /// asked and quit wants the answers. A person's stops at once.
    private mutating func quit(_ effects: inout [Effect]) {
        guard configuration.mode == .script, awaitingReplies else { return end(&effects) }
        input = .quitting
        effects.append(.startTimer(.quitWait, after: configuration.quitWait))
    }

    // MARK: Receiving

    private mutating func receive(_ text: String, at received: Instant, _ effects: inout [Effect]) {
        var turnSeen = received
        let message: ServerMessage
        do {
            message = try MessageCodec.decodeReply(text)
        } catch {
            effects.append(.note(.unreadableMessage(error)))
            return
        }
        // Only the first message with the ref answers the player: a punch's `ended` follows its
        // `punched`.
        var answersPlayer = false
        var lessonRefused: ProtocolError?
        if case .open(var open) = connection {
            if let ref = message.ref {
                open.pending.remove(ref)
                answersPlayer = open.playerRefs.remove(ref) != nil
                open.roomRefs.remove(ref)
                if open.lessonRefs.remove(ref) != nil, case .error(let error) = message.body {
                    lessonRefused = error
                }
                if let windUp = open.windUp, windUp.ref == ref {
                    // The server's meter replaces the one drawn meanwhile; a refusal ends it.
                    if case .meter(let reply) = message.body {
                        open.windUp?.meter.meter = reply.meter
                        effects.append(.meter(open.windUp?.meter))
                    } else if case .error = message.body {
                        open.windUp = nil
                        effects.append(.meter(nil))
                    }
                }
            }
            if case .welcome = message.body { open.welcomed = true }
            connection = .open(open)
        }
        switch message.body {
        case .welcome(let welcome):
            everWelcomed = true
            rules = welcome.rules
            askForPasts(of: welcome.openFights, &effects)
            let waiting = queued
            queued.removeAll()
            for outgoing in waiting { sendForPlayer(outgoing, &effects) }
            for need in follower.catchUp(openFights: welcome.openFights) {
                if let request = need.request { send(request, &effects) }
            }
            if let profile = welcome.punchProfile { effects.append(.note(.lesson(.stored(profile)))) }
        case .fight(let reply):
            follower.update(reply.fight)
            turnSeen = turnStarts.began(reply.fight, received: received)
        case .history(let reply):
            for view in reply.fights { follower.update(view) }
        case .events(let reply):
            for event in reply.events { follow(event, received: received, &effects) }
        case .event(let event):
            switch event.kind {
            case .openedRoom: isWaitingInRoom = true
            case .leftRoom, .matched: isWaitingInRoom = false
            default: break
            }
            follow(event, received: received, &effects)
        case .holdEnded(let ended):
            // No punch in the hold: the next one begins (below) while the turn lasts.
            if let holding, holding.number == ended.hold { _ = takeHolding() }
        case .error(let error):
            switch error.reason?.known {
            case .alreadyWaiting: isWaitingInRoom = true
            case .notWaiting: isWaitingInRoom = false
            default: break
            }
            // A refused batch ends its hold; a stale one means the fight moved on unseen (across a
            // reconnect, say): its state is asked for.
            if let ref = message.ref, let holding, holding.refs.contains(ref) {
                _ = takeHolding()
                if error.code == .stale, let fight = holding.fight { send(.fight(FightRef(fight: fight)), &effects) }
                if holding.isLesson { apply(lesson.holdRefused(error), at: received, &effects) }
            }
            if let lessonRefused { apply(lesson.refused(lessonRefused), at: received, &effects) }
        case .teaching(let progress):
            if holding?.isLesson == true { _ = takeHolding() }
            apply(lesson.progressed(progress), at: received, &effects)
        case .taught(let reply):
            if holding?.isLesson == true { _ = takeHolding() }
            apply(lesson.learned(reply.profile), at: received, &effects)
        case .punchProfile(let reply):
            effects.append(.note(.lesson(.stored(reply.profile))))
        default:
            break
        }
        askForCards(after: message, &effects)
        refreshCards(after: message, &effects)
        effects.append(.show(message, text: text, answersPlayer: answersPlayer))
        startHoldIfMyTurn(since: turnSeen, &effects)
        releaseHeldCommand(at: nil, &effects)
    }

    private mutating func follow(_ event: WireEvent, received: Instant, _ effects: inout [Effect]) {
        let need = follower.apply(event)
        turnStarts.note(event, need: need, player: me, at: received)
        if let request = need.request { send(request, &effects) }
        if let fight = event.fight, case .fight(fight, let after)? = holding?.target, (event.sequence ?? 0) > after {
            _ = takeHolding()
        }
        // The fight moved past the sequence the meter was wound up at: a punch stopping it now
        // would be stale.
        if case .open(let open) = connection, let windUp = open.windUp, windUp.meter.fight == event.fight,
            (event.sequence ?? 0) > windUp.after
        {
            endWindUp(&effects)
        }
    }

    /// The sensor's hold being streamed on the open connection, if any.
    private var holding: Holding? {
        if case .open(let open) = connection { open.holding } else { nil }
    }

    /// Ends the sensor's hold being streamed, and returns what it was.
    private mutating func takeHolding() -> Holding? {
        guard case .open(var open) = connection, let holding = open.holding else { return nil }
        open.holding = nil
        connection = .open(open)
        return holding
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

    // MARK: Sensor motion

    /// When it is this player's turn and a sensor is in use, begins a hold: asks for the sensor's
    /// samples, from a live sensor ones made since `turnSeen`, when the client learnt of the turn
    /// (before it showed it).
    private mutating func startHoldIfMyTurn(since turnSeen: Instant, _ effects: inout [Effect]) {
        guard configuration.hasSensor, !sensorEnded, !lesson.isUnderWay, case .open(var open) = connection,
            open.holding == nil, let fight = fightAwaitingMyPunch
        else { return }
        lastHold += 1
        open.holding = Holding(target: .fight(fight.id, after: fight.lastSequence), number: lastHold, since: turnSeen)
        connection = .open(open)
        effects.append(.awaitMotion(hold: lastHold, since: turnSeen))
    }

    /// Begins a hold for the lesson, teaching `kind`, with the sensor's motion from `since` (a
    /// hold being streamed is dropped); a sensor with no more motion ends the lesson.
    private mutating func startLessonHold(_ kind: PunchType, since: Instant, _ effects: inout [Effect]) {
        guard !sensorEnded else {
            return apply(lesson.stop("the sensor has no more motion"), at: nil, &effects)
        }
        _ = takeHolding()
        guard case .open(var open) = connection else { return }
        lastHold += 1
        open.holding = Holding(target: .lesson(kind), number: lastHold, since: since)
        connection = .open(open)
        effects.append(.awaitMotion(hold: lastHold, since: since))
    }

    /// Does what the lesson asks: sends its requests (their refusals are its own), begins its
    /// holds (with the sensor's motion from `at`, or from now when the moment is not known) and
    /// says its notes.
    private mutating func apply(_ actions: [Lesson.Action], at: Instant?, _ effects: inout [Effect]) {
        for action in actions {
            switch action {
            case .send(let request):
                send(request, byPlayer: true, &effects)
                guard case .open(var open) = connection else { continue }
                open.lessonRefs.insert(lastRef)
                connection = .open(open)
            case .hold(let kind):
                startLessonHold(kind, since: at ?? .now, &effects)
            case .note(let note):
                effects.append(.note(.lesson(note)))
            }
        }
    }

    /// Streams what the sensor read to the hold it was read for, in batches of at most
    /// `MotionLimits.samplesPerBatch`, and asks for more; the batch that brings the hold to
    /// `holdRollover` seconds is its last (a batch in the same read after it is dropped: a source
    /// hands out a fraction of a second at a time). The sensor's end is the hold's last batch.
    private mutating func motionRead(
        _ rows: [MotionRow]?, hold: Int, at: Instant, lead: [MotionRow], _ effects: inout [Effect]
    ) {
        guard var holding, holding.number == hold, !holding.ending else { return }
        guard let rows else {
            sensorEnded = true
            effects.append(.note(.sensorEnded))
            // What the detector still waits on is decided by the hold's last batch.
            if holding.first != nil {
                sendMotion([], final: true, in: &holding, &effects)
                updateHolding(holding)
            } else {
                _ = takeHolding()
                if holding.isLesson { apply(lesson.stop("the sensor has no more motion"), at: nil, &effects) }
            }
            return
        }
        // The turn may have passed while the sensor read: motion out of turn is not sent.
        if case .fight(let fight, let after) = holding.target {
            guard let view = follower.fights[fight], view.lastSequence == after, view.turn == me else {
                _ = takeHolding()
                startHoldIfMyTurn(since: at, &effects)
                return
            }
        }
        var rest = rows[...]
        // Rows whose time does not go on from the last ones are on a clock of their own (a source
        // that starts its times again): what came before is no lead-in to them.
        if let newest = recentRows.last?.time, let first = rows.first?.time, first <= newest { recentRows = [] }
        if holding.first == nil, let pressed = rows.first?.time {
            holding.first = pressed
            // What was handed out before (a recording's) and what a live sensor read before the
            // hold, in time order, on this clock.
            let before = (recentRows + lead.filter { $0.time > recentRows.last?.time ?? -.infinity })
            rest = (before.filter {
                $0.time >= pressed - MotionLimits.leadSeconds && $0.time < pressed && $0.width == rows[0].width
            } + rows)[...]
        }
        while !rest.isEmpty, !holding.ending, let first = holding.first {
            let batch = Array(rest.prefix(MotionLimits.samplesPerBatch))
            rest = rest.dropFirst(batch.count)
            sendMotion(batch, final: batch[batch.count - 1].time - first >= Self.holdRollover, in: &holding, &effects)
        }
        recentRows += rows
        if let newest = recentRows.last?.time {
            recentRows.removeFirst(recentRows.prefix { $0.time < newest - MotionLimits.leadSeconds }.count)
        }
        updateHolding(holding)
        if !holding.ending {
            effects.append(.awaitMotion(hold: hold, since: holding.since))
        }
    }

    /// Sends a batch of `holding`. Not counted as waiting for a reply: only a hold's last batch,
    /// or the one a punch is found in, is answered.
    private mutating func sendMotion(
        _ rows: [MotionRow], final: Bool, in holding: inout Holding, _ effects: inout [Effect]
    ) {
        lastRef += 1
        holding.refs.insert(lastRef)
        holding.ending = final
        switch holding.target {
        case .fight(let fight, let after):
            let batch = MotionBatch(
                fight: fight, after: after, hold: holding.number, samples: rows, final: final, pressed: holding.first)
            effects.append(.send(.motion(batch), ref: lastRef))
        case .lesson(let kind):
            let batch = TeachingBatch(
                kind: kind, hold: holding.number, samples: rows, final: final, pressed: holding.first)
            effects.append(.send(.teachMotion(batch), ref: lastRef))
        }
    }

    private mutating func updateHolding(_ holding: Holding) {
        guard case .open(var open) = connection else { return }
        open.holding = holding
        connection = .open(open)
    }
}

// MARK: - SensorFailure

/// Why a player's sensor stopped: the error its `MotionSource` threw, kept typed until it is shown,
/// so that the program that made the source can act on what it was (`play` exits as `detect`
/// does for a malformed trace, as `listen` does for a device).
public struct SensorFailure: Error, Hashable, CustomStringConvertible {
    /// What the source threw.
    public let error: any Error

    /// A failure for `error`.
    public init(_ error: any Error) {
        self.error = error
    }

    /// What to tell the player: the error's own words.
    public var description: String { "\(error)" }

    /// Two failures are the same when they say the same: an error in general cannot be compared,
    /// and the session does nothing with one but keep it and show it.
    public static func == (left: SensorFailure, right: SensorFailure) -> Bool {
        left.description == right.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }
}

// MARK: - AimedMeter

/// The power meter a player wound up, as they are shown it: the meter's shape, the kind aimed at
/// (its sweet spot is the one drawn), and the moment the `windUp` was sent, which is the meter's
/// zero here as its arrival is on the server.
public struct AimedMeter: Hashable, Sendable {
    /// The fight.
    public var fight: FightID
    /// The kind aimed at.
    public var kind: PunchType
    /// When the `windUp` was sent.
    public var since: ContinuousClock.Instant
    /// The meter's sweep, floor and sweet spots.
    public var meter: PowerMeter

    /// Creates a meter shown from `since`.
    public init(fight: FightID, kind: PunchType, since: ContinuousClock.Instant, meter: PowerMeter) {
        self.fight = fight
        self.kind = kind
        self.since = since
        self.meter = meter
    }

    /// Milliseconds of sweep at `now`.
    public func milliseconds(at now: ContinuousClock.Instant) -> Int64 { PowerMeter.milliseconds(in: now - since) }

    /// The meter's level at `now`, 0…1.
    public func level(at now: ContinuousClock.Instant) -> Double { meter.level(after: milliseconds(at: now)) }

    /// The damage a punch of the aimed kind stopped at `now` does, before any guard.
    public func damage(at now: ContinuousClock.Instant) -> Int {
        meter.damage(of: kind, stoppedAfter: milliseconds(at: now))
    }
}

// MARK: - ConnectionStatus

/// The connection's state, as the player is told it: typed until shown, so that a screen can
/// count a wait down rather than show the words of the moment it began.
public enum ConnectionStatus: Hashable, Sendable, CustomStringConvertible {
    /// Why the next attempt is waited for.
    public enum Retry: String, Hashable, Sendable {
        /// The server was never reached.
        case couldNotConnect = "could not connect"
        /// The server was there and is not now.
        case serverGone = "server gone"
        /// The server turned the sign-in away for now (too many).
        case serverBusy = "server busy"
    }

    /// Connected to `server` as `username`.
    case connected(server: String, username: String)
    /// The next attempt comes after `wait`, from the moment this status was given.
    case retrying(Retry, in: Duration)

    /// The words, as of the moment the status was given.
    public var description: String { description(elapsed: .zero) }

    /// The words `elapsed` after the status was given: a wait counts down, in whole seconds
    /// once it is a second or more.
    public func description(elapsed: Duration) -> String {
        switch self {
        case .connected(let server, let username): return "connected to \(server) as \(username)"
        case .retrying(let why, let wait):
            guard elapsed > .zero else { return "\(why.rawValue); retrying in \(wait)" }
            let left = max(.zero, wait - elapsed)
            let seconds = Int((Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18).rounded(.up))
            return left > .zero ? "\(why.rawValue); retrying in \(seconds) s" : "\(why.rawValue); retrying now"
        }
    }
}
