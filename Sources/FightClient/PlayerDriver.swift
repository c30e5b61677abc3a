import FightEngine
import FightProtocol

// MARK: - What the driver talks to

/// Where a `PlayerDriver` shows what happens: JSON lines for a script, or the full screen.
public protocol PlayerDisplay: Sendable {
    /// The connection's state changed (connected, server gone and retrying).
    func status(_ status: ConnectionStatus)
    /// Something the client could not do (a bad command, a message not sent), or a remark.
    func note(_ text: String)
    /// A message arrived; `fights` and `me` are the session's view after it. `answersPlayer` when
    /// it is the first answer to a request the player made (not one the client made itself).
    func show(_ message: ServerMessage, text: String, fights: [FightID: FightView], me: FighterID?, answersPlayer: Bool)
    /// The power meter the player wound up, or `nil` when it is gone; nothing by default.
    func meter(_ meter: AimedMeter?)
    /// The session took in `event` and gave out `effects`, and is now `session`: for a caller that
    /// acts on more than is shown (`hitthat-load` notes which `ref` each punch went out with, and
    /// when a connection opened or dropped). Called before the effects are performed; nothing by
    /// default.
    func handled(_ event: PlayerSession.Event, effects: [PlayerSession.Effect], session: PlayerSession)
}

extension PlayerDisplay {
    /// A display that draws no meter.
    public func meter(_ meter: AimedMeter?) {}

    /// A display shows the effects only.
    public func handled(_ event: PlayerSession.Event, effects: [PlayerSession.Effect], session: PlayerSession) {}
}

/// Where a player's motion comes from when a sensor throws the punches: streamed to the server,
/// whose detector finds them.
public protocol MotionSource: Sendable {
    /// The next samples to stream, in `motion`'s units, each handed out once; from a live source
    /// only samples made at `start` (the turn's start) or later. Waits until there are some (a
    /// recording paces itself); `nil` when the source has no more.
    func nextRows(since start: ContinuousClock.Instant) async -> [MotionRow]?
    /// A live source's samples made in the `seconds` before `start`, which `nextRows(since:)`
    /// hands out none of: the lead-in of a hold that begins at `start`, so that the server's
    /// detector knows which way is up and what the arm was doing. None from a recording (what it
    /// handed out before is the lead-in) or a source that keeps none.
    func rows(before start: ContinuousClock.Instant, seconds: Double) -> [MotionRow]
    /// Why the source stopped, once it has, when it failed rather than ended: the error it
    /// threw, kept as it is until it is shown (the program that made the source can tell what
    /// it was).
    var failure: (any Error)? { get }
    /// Waits until the source has stopped, and returns why when it failed; `nil` when it just
    /// ended. For one caller.
    func stopped() async -> (any Error)?
}

extension MotionSource {
    /// None: a source that keeps no motion from before a hold.
    public func rows(before start: ContinuousClock.Instant, seconds: Double) -> [MotionRow] { [] }
}

// MARK: - Connections

/// An open connection to a fight server, as a driver writes to it: a `FightClient`, or a test's.
public protocol PlayerConnection: Sendable {
    /// Sends `request` with the session's token and `ref`.
    func send(_ request: ClientRequest, ref: Int) async throws
    /// Sends text as it is.
    func sendRaw(_ text: String) async throws
    /// Drops the connection; reading it ends.
    func close() async
}

extension FightClient: PlayerConnection {}

/// Where a driver's connections come from: a `Connector`, or a test's.
public protocol PlayerConnecting: Sendable {
    /// Opens a connection and calls `opened` with it (which says whether to read it), then hands
    /// `received` each text the server sends until the connection ends or `received` says to stop.
    func connectAndRead(
        opened: @Sendable (any PlayerConnection, Session) async -> Bool,
        received: @Sendable (String) async -> Bool
    ) async -> Connector.Ending
}

// MARK: - Connector

/// Signs a player in once and opens WebSocket connections with that session, saying why when it
/// cannot. `PlayerDriver` (so `play` and `hitthat-load`) reconnects through it.
public actor Connector: PlayerConnecting {
    /// The server.
    public let address: ServerAddress
    /// The player.
    public let credentials: Credentials
    /// The session, once signed in: kept for every later connection.
    public private(set) var session: Session?

    /// Signs in as `credentials` at `address` when first asked to connect, unless `session` (one
    /// signed in already, by the password prompt) is given.
    public init(address: ServerAddress, credentials: Credentials, session: Session? = nil) {
        self.address = address
        self.credentials = credentials
        self.session = session
    }

    /// How a connection ended.
    public enum Ending: Sendable {
        /// None was made.
        case notConnected(PlayerSession.ConnectionFailure)
        /// The connection closed, or `received` said to stop reading it; `reason` when it failed
        /// rather than was lost (a server that went away says nothing more).
        case closed(reason: String?)
    }

    /// Signs in (the first time) and opens a connection, calls `opened` with it (which says
    /// whether to read it), then hands `received` each text the server sends until the connection
    /// ends or `received` says to stop. The caller closes the connection: it may have more to send.
    public func connectAndRead(
        opened: @Sendable (any PlayerConnection, Session) async -> Bool,
        received: @Sendable (String) async -> Bool
    ) async -> Ending {
        let client: FightClient
        do {
            let session = try await signedIn()
            client = try await FightClient.connect(session, to: address)
            guard await opened(client, session) else { return .closed(reason: nil) }
        } catch let busy as ProtocolError where busy.code == .rateLimited {
            // Too many sign-ins from this address for now: later it will take them.
            return .notConnected(.rateLimited(busy))
        } catch let refusal as ProtocolError {
            return .notConnected(.refused(refusal))
        } catch {
            return .notConnected(
                ConnectionError(unreachable: address, error).map { .unreachable($0) } ?? .other("\(error)"))
        }
        do {
            for try await text in client.texts {
                if await !received(text) { break }
            }
            return .closed(reason: nil)
        } catch {
            return .closed(reason: ConnectionError(unreachable: address, error) == nil ? "\(error)" : nil)
        }
    }

    private func signedIn() async throws -> Session {
        if let session { return session }
        let session = try await FightClient.signIn(credentials, at: address)
        self.session = session
        return session
    }
}

// MARK: - PlayerDriver

/// Runs a `PlayerSession`: performs its effects (the connection, the timers, the sensor, the
/// display) and turns what happens into its events. Everything the client decides is in the
/// session; this only carries it out.
///
/// Every task it starts (connecting and reading, writing, the timers, the sensor's waits) is a
/// child of `run()`'s task group: when the session finishes, what was written goes out, the
/// connection closes, and the rest is cancelled and ended before `run()` returns.
public actor PlayerDriver {
    private var session: PlayerSession
    private let connector: any PlayerConnecting
    private let display: any PlayerDisplay
    private let motion: (any MotionSource)?
    /// The open connection, and its writer's queue: messages go out one at a time, in order.
    private var client: (any PlayerConnection)?
    private var outbox: AsyncStream<PlayerSession.Effect>.Continuation?
    /// The open connection's number, and for each connection whose writer still runs, who waits
    /// for it to have sent what it had and closed the connection.
    private var connectionNumber = 0
    private var writers: [Int: [CheckedContinuation<Void, Never>]] = [:]
    /// Work for `run()` to start in its task group; finished when the session is.
    private let work: AsyncStream<@Sendable () async -> Void>
    private let workQueue: AsyncStream<@Sendable () async -> Void>.Continuation
    /// The timers running, each by the number it was started with: one stopped or started again
    /// has another number (or none), and its sleeping task, when it wakes, fires nothing.
    private var timers: [PlayerSession.Timer: Int] = [:]
    private var timersStarted = 0
    /// The last hold given its lead-in: each hold's comes with its first samples only.
    private var holdLedIn: Int?

    /// A session that plays as `credentials` at `address` when run, with `session` if one was
    /// signed in already (the password prompt's), rather than signing in again.
    public init(
        address: ServerAddress, credentials: Credentials, session: Session? = nil,
        configuration: PlayerSession.Configuration, display: any PlayerDisplay, motion: (any MotionSource)?
    ) {
        self.init(
            connector: Connector(address: address, credentials: credentials, session: session),
            configuration: configuration,
            display: display, motion: motion)
    }

    /// A session that connects through `connector` when run (a test's, with no server behind it).
    public init(
        connector: any PlayerConnecting, configuration: PlayerSession.Configuration, display: any PlayerDisplay,
        motion: (any MotionSource)?
    ) {
        session = PlayerSession(configuration)
        self.connector = connector
        self.display = display
        self.motion = motion
        (work, workQueue) = AsyncStream.makeStream()
    }

    /// Why the session failed, once it is over.
    public var failure: PlayerSession.Failure? { session.failure }

    /// Plays until the session is over; every task the driver started has ended when it returns.
    /// Call it once.
    public func run() async {
        await withDiscardingTaskGroup { group in
            if let motion {
                group.addTask {
                    if let error = await motion.stopped() { await self.handle(.sensorFailed(SensorFailure(error))) }
                }
            }
            handle(.start)
            // Until the session finishes (which ends `work`), what its effects start.
            for await job in work { group.addTask(operation: job) }
            // What was written goes out and the connection closes; whatever else runs (a timer, a
            // sensor's wait, a connection being made) is of no use now.
            await closeConnection()
            group.cancelAll()
        }
    }

    /// Acts on what the player asked for. `false` once the player quit: read no more.
    public func perform(_ command: PlayerCommand) -> Bool {
        handle(.command(command, at: .now))
        return !session.isQuitting
    }

    /// Input ended: finish when the fights do.
    public func inputEnded() {
        handle(.inputEnded)
    }

    /// Stops now (a signal).
    public func interrupt() {
        handle(.interrupted)
    }

    /// Sends `request` as it is (`PlayerCommand.request`): no turn checked.
    /// - Returns: the `ref` it went with, which its answers carry; `nil` when it waits for the
    ///   server's `welcome` (the `send` effect `PlayerDisplay.handled` sees then carries the ref)
    ///   or the session is over.
    @discardableResult
    public func send(_ request: ClientRequest) -> Int? {
        handle(.command(.request(request), at: .now)).lazy.compactMap { effect in
            if case .send(request, let ref) = effect { ref } else { nil }
        }.first
    }

    /// Drops the open connection as a failing network would: the session finds it gone and
    /// connects again. For trying the reconnecting path (`hitthat-load --disconnects`).
    /// - Returns: whether a connection was open to drop.
    @discardableResult
    public func dropConnection() async -> Bool {
        guard let client else { return false }
        await client.close()
        return true
    }

    // MARK: Effects

    @discardableResult
    private func handle(_ event: PlayerSession.Event) -> [PlayerSession.Effect] {
        let effects = session.handle(event)
        display.handled(event, effects: effects, session: session)
        for effect in effects { perform(effect) }
        return effects
    }

    /// Has `run()` start `job` as a child of its task group (once it runs, if it does not yet).
    private func start(_ job: @escaping @Sendable () async -> Void) {
        workQueue.yield(job)
    }

    private func perform(_ effect: PlayerSession.Effect) {
        switch effect {
        case .connect:
            start { await self.connectAndRead() }
        case .send, .sendRaw:
            outbox?.yield(effect)
        case .startTimer(let timer, let wait):
            timersStarted += 1
            let number = timersStarted
            timers[timer] = number
            start {
                // Cancelled when the session finishes; stopped or started again, it fires nothing.
                guard (try? await Task.sleep(for: wait)) != nil else { return }
                await self.timerRanOut(timer, number: number)
            }
        case .cancelTimer(let timer):
            timers.removeValue(forKey: timer)
        case .awaitMotion(let hold, let since):
            guard let motion else { return }
            start {
                let rows = await motion.nextRows(since: since)
                // A source that failed says so through `stopped()`; one cancelled says nothing.
                if rows == nil, motion.failure != nil || Task.isCancelled { return }
                await self.handle(.motionRead(rows, hold: hold, at: .now, lead: self.leadIn(of: hold, since: since)))
            }
        case .status(let status):
            display.status(status)
        case .note(let note):
            display.note(note.description)
        case .meter(let meter):
            display.meter(meter)
        case .show(let message, let text, let answersPlayer):
            display.show(
                message, text: text, fights: session.follower.fights, me: session.me, answersPlayer: answersPlayer)
        case .finish:
            timers.removeAll()
            // `run()` closes the connection and ends the rest.
            workQueue.finish()
        }
    }

    /// The sensor's lead-in for hold `hold`, begun at `since`, the first time it is asked for.
    private func leadIn(of hold: Int, since: ContinuousClock.Instant) -> [MotionRow] {
        guard let motion, holdLedIn != hold else { return [] }
        holdLedIn = hold
        return motion.rows(before: since, seconds: MotionLimits.leadSeconds)
    }

    private func timerRanOut(_ timer: PlayerSession.Timer, number: Int) {
        guard timers[timer] == number else { return }
        timers.removeValue(forKey: timer)
        handle(.timerFired(timer, at: .now))
    }

    /// Connects, tells the session, and hands it what the server sends until the connection ends.
    private func connectAndRead() async {
        let ending = await connector.connectAndRead(
            opened: { client, session in await self.opened(client, as: session) },
            received: { text in await self.received(text) })
        guard !session.isOver else { return }
        switch ending {
        case .notConnected(let failure):
            handle(.connectionFailed(failure))
        case .closed(let reason):
            await closeConnection()
            handle(.disconnected(reason: reason))
        }
    }

    private func opened(_ client: any PlayerConnection, as signedIn: Session) async -> Bool {
        guard !session.isOver else {
            await client.close()
            return false
        }
        startWriting(on: client)
        handle(.connected(signedIn))
        return true
    }

    private func received(_ text: String) -> Bool {
        handle(.received(text, at: .now))
        return !session.isOver
    }

    /// Sends what the session asks to, in order, on `client` until its queue is finished, then
    /// closes it.
    private func startWriting(on client: any PlayerConnection) {
        let (messages, outbox) = AsyncStream.makeStream(of: PlayerSession.Effect.self)
        connectionNumber += 1
        let number = connectionNumber
        self.client = client
        self.outbox = outbox
        writers[number] = []
        start {
            for await message in messages {
                // A failed write means a lost connection: the reading side sees it end.
                switch message {
                case .send(let request, let ref): try? await client.send(request, ref: ref)
                case .sendRaw(let text): try? await client.sendRaw(text)
                default: break
                }
            }
            await client.close()
            await self.writerEnded(number)
        }
    }

    private func writerEnded(_ number: Int) {
        for waiting in writers.removeValue(forKey: number) ?? [] { waiting.resume() }
    }

    /// Lets the writer send what it has and close the open connection, and returns once it has.
    private func closeConnection() async {
        guard client != nil else { return }
        let number = connectionNumber
        outbox?.finish()
        (client, outbox) = (nil, nil)
        guard writers[number] != nil else { return }
        await withCheckedContinuation { writers[number]?.append($0) }
    }
}
