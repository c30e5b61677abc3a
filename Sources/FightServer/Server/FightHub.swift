import FightEngine
import FightProtocol
import FightStore
import Logging
import MotionInput
import NIOCore
import PunchKit

// MARK: - FightHub

/// The server's authority: every command goes through here to the engine and the store, and every
/// event that comes out is pushed to each connection of the fighters it concerns.
///
/// The hub's state lives on a thread of its own (an event loop of its own, so that neither the
/// network nor Swift's shared threads wait for it); it waits for the store on `DatabaseThreads`,
/// taking other requests meanwhile. A fight's requests take turns (`handle`), so that what the hub
/// keeps of a fight (a wind-up, a hold) follows its requests in order. "The punch was thrown at
/// sequence N" is the engine's to check, inside the store's transaction (`Command.punch`'s
/// `after`): no other server, deadline or request can land a punch twice between a check here and
/// the commit.
actor FightHub {
    let store: FightStore
    let clock: ServerClock
    let logger: Logger
    private let eventLoop: any EventLoop

    /// Where to push each fighter's events: their open connections.
    private var connections: [FighterID: [Int: Connection]] = [:]
    private var lastConnection = 0
    /// Each fighter's power meter under way: the fight and sequence it was wound up at, and when
    /// the `windUp` arrived by the monotonic clock. Kept here, not in the store: a wind-up is a
    /// moment's state of the turn, and one lost to a restart is simply wound up again.
    private var windUps: [FighterID: WindUp] = [:]

    private struct WindUp {
        let fight: FightID
        let after: Int
        let at: Duration
    }
    /// Each fighter's hold of the punch button: the one being read, or the last one, over (a punch
    /// found, its last batch come, or refused), whose late batches are dropped. One a fighter, kept
    /// here like a wind-up; dropped with the connection it came on.
    private var holds: [FighterID: Hold] = [:]
    /// Each fighter's teaching of their punches under way, and the punch profiles of those
    /// connected here (`FightHub+Teaching`).
    var teacher = PunchTeacher(limits: FightHub.holdLimits)
    /// Each fighter's motion samples, by the server's clock: over all their connections, on
    /// every server sharing the database.
    private let motionSamples: FighterAllowance
    /// The fights this server pushes the events of (those with a fighter connected here): their
    /// corners and the last sequence pushed. What another server commits is pushed from the one
    /// after it (`hear`), and a gap before a fight's new events is filled first, so that each
    /// connection gets each event once and in order, whichever server committed it.
    private var pushed: [FightID: PushedFight] = [:]

    private struct PushedFight {
        let corners: Both<FighterID>
        var sequence: Int
    }
    /// This server's name in the table of leases, for this run.
    let serverName: String
    /// Where the hub waits for the store (`blocking`), as do the requests that only read.
    let databaseThreads: DatabaseThreads
    /// What has a request under way here, and the requests waiting for it to end, in the order
    /// they came (`takingTurns(over:)`).
    private var waitingForTurn: [Turns: [CheckedContinuation<Void, Never>]] = [:]

    /// What requests take turns over: one fight, or the quick-match rooms.
    private enum Turns: Hashable {
        case fight(FightID)
        case rooms

        /// What `request` takes turns over, if anything.
        init?(of request: ClientRequest) {
            if let fight = request.fight {
                self = .fight(fight)
                return
            }
            switch request {
            case .quickMatch, .leaveQuickMatch: self = .rooms
            default: return nil
            }
        }
    }
    /// What the other servers committed, heard and not yet acted on (`hear`).
    private var heard: [StoreChange] = []
    /// When this server last renewed its lease, by its clock.
    private var leaseRenewedAt: Timestamp?

    private enum Hold {
        /// Being read: its detector, the connection its batches come on, and its fight as the
        /// first batch found it. Any event of the fight pushed here ends the hold (`push`), so
        /// while it is read the fight is still that one, and its later batches are checked
        /// against it without asking the store: a round trip fewer a batch on PostgreSQL.
        /// (Another server's event reaches here by its announcement, within milliseconds; the
        /// punch found is judged by the engine on the fight as saved, whatever this one says.)
        case reading(HoldKey, connection: Int?, MotionHold, fight: Fight)
        /// Over: what comes of it later is dropped.
        case over(HoldKey, connection: Int?)

        var key: HoldKey {
            switch self {
            case .reading(let key, _, _, _), .over(let key, _): key
            }
        }

        var connection: Int? {
            switch self {
            case .reading(_, let connection, _, _), .over(_, let connection): connection
            }
        }
    }

    /// A hold as the client names it: its fight and its number.
    private struct HoldKey: Hashable {
        let fight: FightID
        let hold: Int
    }

    /// The bounds of every hold, from the protocol's.
    static let holdLimits = MotionHold.Limits(
        maximumRate: MotionLimits.maximumRate, rateWindow: MotionLimits.rateWindow,
        rateTolerance: MotionLimits.rateTolerance, longestHold: MotionLimits.holdSeconds,
        longestLead: MotionLimits.leadSeconds)
    /// When each fighter's presence last changed while this server ran: their first connection
    /// opened, or their last one closed (here, or on a database shared, on any server, as the
    /// store or another server's announcement says). Someone not in here has not been seen since
    /// it started.
    private var presenceSince: [FighterID: Timestamp] = [:]
    /// The comings and goings of fighters here not yet noted in the store: by fighter, when their
    /// first connection opened or their last one closed (`notePresence`).
    private var presenceToNote: [FighterID: Timestamp] = [:]
    /// The fighters noted in the store as connected here.
    private var notedHere: Set<FighterID> = []
    /// Rung when a fighter comes or goes, for the presence service to call `notePresence`: one
    /// ring stands for any number, so that a thousand clients connecting at once are noted in a
    /// few batches, not one by one while the punches wait behind them.
    nonisolated let presenceChanged: AsyncStream<Void>
    private let ringPresence: AsyncStream<Void>.Continuation
    /// The turns the start began afresh (`resumeTurns`), for fighters not connected since: by
    /// fighter, each fight with the sequence the start left it at. See `resumeOwedTurns(of:)`.
    private var owedTurns: [FighterID: [FightID: Int]] = [:]

    /// A connection's way out: messages as JSON text, written by the connection's own task.
    /// Finishing it closes the connection.
    typealias Outbox = AsyncStream<String>.Continuation

    /// An open connection: where its messages go, and the session (its key) it began with.
    private struct Connection {
        let outbox: Outbox
        let session: String
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }

    /// Keeps nothing from the store in memory: a fighter's fights and a fight's corners are the
    /// store's indexed queries, so that starting does not read the history, however long.
    init(
        store: FightStore, clock: ServerClock, logger: Logger, eventLoop: any EventLoop,
        motionSamples: FighterAllowance, serverName: String, databaseThreads: DatabaseThreads
    ) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.eventLoop = eventLoop
        self.motionSamples = motionSamples
        self.serverName = serverName
        self.databaseThreads = databaseThreads
        (presenceChanged, ringPresence) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: - Connections

    /// Starts pushing `fighter`'s events to `outbox`, a connection that began with session
    /// `session` (its key); returns the connection's number. The fighter's first connection tells
    /// the other fighter of each of their fights under way that they came, once it is noted
    /// (`notePresence`). (The turn owed after a restart follows the connection's first answer:
    /// `resumeOwedTurns(of:)`.)
    func connect(_ fighter: FighterID, session: String, outbox: Outbox) async -> Int {
        lastConnection += 1
        let id = lastConnection
        let arriving = connections[fighter] == nil
        connections[fighter, default: [:]][id] = Connection(outbox: outbox, session: session)
        if arriving {
            changePresence(of: fighter)
            // What the fighter's client learns by `hello` and `replay` from here on is pushed from
            // this sequence on: the baseline a catch-up after an outage of the listener reads from.
            // Read off the hub's thread (a thousand clients coming at once, at a start or from a
            // server gone, are a thousand reads); a fight pushed to meanwhile is followed already.
            for fight in await openFights(of: [fighter]) {
                follow(fight, from: fight.lastSequence)
            }
        }
        return id
    }

    /// Stops pushing to connection `id`. The fighter's last connection tells the other fighter of
    /// each of their fights under way that they went, once it is noted (`notePresence`).
    func disconnect(_ fighter: FighterID, connection id: Int) {
        // A connection closed twice (by a logout on another one, then by itself) counts once.
        guard connections[fighter]?.removeValue(forKey: id) != nil else { return }
        if holds[fighter]?.connection == id { holds[fighter] = nil }
        teacher.disconnected(fighter, connection: id, last: connections[fighter]?.isEmpty == true)
        guard connections[fighter]?.isEmpty == true else { return }
        connections[fighter] = nil
        windUps[fighter] = nil
        changePresence(of: fighter)
        pushed = pushed.filter { isConnected($0.value.corners) }
    }

    /// Notes that `fighter` came or went, to be written with the next batch.
    private func changePresence(of fighter: FighterID) {
        let now = clock.now()
        presenceSince[fighter] = now
        presenceToNote[fighter] = now
        ringPresence.yield()
    }

    /// Whether either fighter of a fight is connected here.
    private func isConnected(_ corners: Both<FighterID>) -> Bool {
        connections[corners.challenger] != nil || connections[corners.opponent] != nil
    }

    /// Closes every connection of `fighter` that began with session `session` but `sender`, which
    /// closes itself: each is told `loggedOut` first. A logged-out token must not keep receiving
    /// the fighter's events.
    func endSession(_ session: String, of fighter: FighterID, except sender: Int?) {
        let ended = MessageCodec.encode(ServerMessage(.loggedOut))
        for (id, connection) in connections[fighter] ?? [:] where connection.session == session && id != sender {
            connection.outbox.yield(ended)
            connection.outbox.finish()
            disconnect(fighter, connection: id)
        }
    }

    // MARK: - Requests

    /// Acts on `request` from `fighter` (already authenticated) on connection `connection`.
    /// - Returns: the reply for the sender; `nil` when the request's events were pushed instead
    ///   (the sender's copies carry `ref`).
    ///
    /// The hub waits for the store off its thread (`blocking`), taking other requests meanwhile:
    /// a thread that waited for each round trip to the database in turn held every push behind
    /// the slowest command. Requests in one fight still take turns (`takingTurns(over:)`): a
    /// wind-up is noted, and a hold read, on the fight as the requests before left it. So do
    /// requests for the rooms, which the database
    /// takes one at a time anyway: their events are pushed in the order they were saved (a room
    /// opened, then the match into it, pushed the other way round, left its owner sure they were
    /// still waiting).
    func handle(_ request: ClientRequest, by fighter: FighterID, ref: Int?, connection: Int?) async -> ServerMessage? {
        do {
            let body: ServerBody?
            if let turns = Turns(of: request) {
                body = try await takingTurns(over: turns) {
                    try await answer(request, by: fighter, ref: ref, connection: connection)
                }
            } else {
                body = try await answer(request, by: fighter, ref: ref, connection: connection)
            }
            return body.map { ServerMessage(ref: ref, $0) }
        } catch {
            return refusal(error, of: request, by: fighter, ref: ref)
        }
    }

    /// The reply to `request` that failed with `error`: a protocol error as it is; any other (the
    /// database's), logged and answered `internalError`.
    nonisolated func refusal(_ error: any Error, of request: ClientRequest, by fighter: FighterID, ref: Int?)
        -> ServerMessage
    {
        if let error = error as? ProtocolError { return ServerMessage(ref: ref, .error(error)) }
        logger.error(
            "request failed", metadata: ["type": "\(request.type)", "fighter": "\(fighter.rawValue)", "error": "\(error)"])
        return ServerMessage(ref: ref, .error(ProtocolError(.internalError, "the server could not do this; try again")))
    }

    private func answer(_ request: ClientRequest, by me: FighterID, ref: Int?, connection: Int?) async throws
        -> ServerBody?
    {
        let command: Command
        switch request {
        case .hello, .profile, .fight, .replay, .history, .statistics, .punchProfile:
            // Read off the hub's thread (`answerReading`); they never come this far.
            throw ProtocolError(.internalError, "a request that only reads reached the hub")
        case .nextOpponent, .backDown:
            let now = clock.now()
            let matchup = try await blocking { [store] in try store.nextOpponent(for: me, at: now) }
                .mapError { ProtocolError($0) }.get()
            return .opponent(OpponentReply(matchup: matchup.map(WireMatchup.init)))
        case .updateProfile(let update):
            let stats = ProfileStats(heightCm: update.heightCm, weightKg: update.weightKg, reachCm: update.reachCm)
            command = .updateProfile(me, displayName: update.displayName, bio: update.bio, profile: stats)
        case .move(let location):
            command = .move(me, to: Coordinate(latitude: location.latitude, longitude: location.longitude))
        case .challenge(let opponent):
            command = .challenge(me, opponent: opponent.opponent)
        case .accept(let ref): command = .accept(ref.fight, by: me)
        case .decline(let ref): command = .decline(ref.fight, by: me)
        case .forfeit(let ref): command = .forfeit(ref.fight, by: me)
        case .quickMatch: command = .quickMatch(me)
        case .leaveQuickMatch: command = .leaveQuickMatch(me)
        case .logout:
            // The connection ends sessions (`ClientSession`); a logout never comes this far.
            throw ProtocolError(.internalError, "logout reached the hub")
        case .windUp(let request):
            // Nothing is saved: the fight is read to refuse a wind-up that no punch could follow.
            let fight = try await blocking { [self] in try self.fight(request.fight, of: me) }
            try Self.awaitingPunch(by: me, at: request.after, in: fight)
            windUps[me] = WindUp(fight: fight.id, after: request.after, at: clock.elapsed())
            return .meter(MeterReply(fight: fight.id, after: request.after, meter: store.referee.rules.meter))
        case .punch(let punch):
            // The wind-up it stops: then the engine judges the rest (the sequence, the turn) on the
            // fight as saved, inside the transaction, so no read comes first.
            guard let windUp = windUps[me], windUp.fight == punch.fight, windUp.after == punch.after else {
                // Stale or out of turn is the reason to give, not the wind-up that could not have come.
                let fight = try await blocking { [self] in try self.fight(punch.fight, of: me) }
                try Self.awaitingPunch(by: me, at: punch.after, in: fight)
                throw ProtocolError(
                    .refused, "no windUp came first at sequence \(punch.after); send windUp, then punch",
                    reason: .notWoundUp)
            }
            // One punch a wind-up, whatever the engine says of it.
            windUps[me] = nil
            command = .timedPunch(
                punch.fight, by: me, after: punch.after, kind: punch.kind,
                stoppedAfterMilliseconds: PowerMeter.milliseconds(in: clock.elapsed() - windUp.at))
        case .motion(let batch):
            return try await motion(batch, by: me, ref: ref, connection: connection)
        case .teach, .teachMotion, .teachDone, .forgetPunchProfile:
            return try await teaching(request, by: me, connection: connection)
        case .raiseGuard(let request):
            try await execute(.raiseGuard(request.fight, by: me, request.guard), ref: ref, sender: connection)
            let fight = try await blocking { [self] in try self.fight(request.fight, of: me) }
            return .fight(FightReply(fight: FightView(fight, seenBy: me)))
        }
        try await execute(command, ref: ref, sender: connection)
        return nil
    }

    // MARK: - Motion

    /// Feeds a batch of `me`'s sensor to the hold it belongs to: the first punch the detector finds
    /// lands (its `punched` event carries `ref`); a hold's last batch without one is answered
    /// `holdEnded`; anything else, nothing. A batch that is refused (the fight's rules, its
    /// sequence, the sample budget, the hold's bounds) ends its hold, and later batches of a hold
    /// that is over are dropped.
    private func motion(_ batch: MotionBatch, by me: FighterID, ref: Int?, connection: Int?) async throws
        -> ServerBody?
    {
        let key = HoldKey(fight: batch.fight, hold: batch.hold)
        if case .over(key, _)? = holds[me] { return nil }
        do {
            let reading: (hold: MotionHold, fight: Fight)?
            if case .reading(key, _, let hold, let fight)? = holds[me] { reading = (hold, fight) } else { reading = nil }
            let fight: Fight
            if let reading {
                fight = reading.fight
            } else {
                fight = try await blocking { [self] in try self.fight(batch.fight, of: me) }
            }
            // Refused early, before the samples are read: the punch found is judged again by the
            // engine on the fight as saved.
            try Self.awaitingPunch(by: me, at: batch.after, in: fight)
            try await takeMotionSamples(batch.samples.count, of: me)
            let hold: MotionHold
            if let reading {
                hold = reading.hold
            } else {
                // Typed by the fighter's punch profile, if they taught one.
                let configuration = try await detectorConfiguration(for: me)
                hold = MotionHold(
                    limits: Self.holdLimits, pressed: batch.pressed, configuration: configuration,
                    usualPunch: teacher.usualPunch(of: me).heldStill)
                holds[me] = .reading(key, connection: connection, hold, fight: fight)
            }
            let samples = batch.samples.map(MotionSample.init(wire:))
            var punch: Punch?
            do { punch = try hold.take(samples) } catch { throw ProtocolError(error) }
            if punch == nil, batch.final { punch = hold.finish() }
            guard let punch else {
                guard batch.final else { return nil }
                holds[me] = .over(key, connection: connection)
                return .holdEnded(HoldEnded(fight: fight.id, hold: batch.hold, samples: hold.count, seconds: hold.seconds))
            }
            holds[me] = .over(key, connection: connection)
            teacher.noteSwing(punch, of: me)
            guard let kind = PunchType(rawValue: punch.kind.rawValue) else {
                throw ProtocolError(.internalError, "the detector found a punch of a kind fights do not have")
            }
            // The detector's damage on its own scale, brought into the fight's: the engine caps it
            // at the kind's ceiling and the defender's guard, as for any sensor's punch. A stop at
            // the sensor's full scale is said, as `detect` says it.
            try await execute(
                .punch(
                    fight.id, by: me, after: batch.after, kind: kind, damage: Rules.clampedDamage(punch.damage),
                    clipped: punch.clipped),
                ref: ref, sender: connection)
            return nil
        } catch {
            holds[me] = .over(key, connection: connection)
            throw error
        }
    }

    /// Takes `count` samples from `me`'s motion allowance (over all their connections, on every
    /// server sharing the database), or refuses the batch as `rateLimited`.
    func takeMotionSamples(_ count: Int, of me: FighterID) async throws {
        guard try await motionSamples.allowWithoutBlocking(me, cost: count, waitingOn: databaseThreads) else {
            throw ProtocolError(
                .rateLimited,
                "samples: more than \(motionSamples.perSecond) motion samples a second from fighter \(me.rawValue); stream the sensor as it comes",
                field: "samples")
        }
    }

    /// Ends `fighter`'s hold `hold` in `fight`, one of whose batches on `connection` was refused
    /// before it reached here (its rows did not decode): its later batches are dropped. A hold
    /// being read on another connection is left alone.
    func endHold(_ hold: Int, in fight: FightID, of fighter: FighterID, connection: Int) {
        if let current = holds[fighter], current.connection != connection { return }
        holds[fighter] = .over(HoldKey(fight: fight, hold: hold), connection: connection)
    }

    /// Applies `command` now and pushes its events; returns them.
    @discardableResult
    private func execute(_ command: Command, ref: Int?, sender: Int?) async throws -> [Event] {
        let now = clock.now()
        let events = try await blocking { [store] in try store.execute(command, at: now) }
            .mapError { ProtocolError($0) }.get()
        publish(events, ref: ref, sender: sender)
        return events
    }

    /// Runs `work` when no other request over `turns` is under way here, and the next one after
    /// it: in the order they came.
    private func takingTurns<T>(over turns: Turns, _ work: () async throws -> T) async throws -> T {
        if waitingForTurn[turns] == nil {
            waitingForTurn[turns] = []
        } else {
            await withCheckedContinuation { waitingForTurn[turns, default: []].append($0) }
        }
        defer {
            if let next = waitingForTurn[turns]?.first {
                waitingForTurn[turns]?.removeFirst()
                next.resume()
            } else {
                waitingForTurn[turns] = nil
            }
        }
        return try await work()
    }

    /// Registers a fighter (the account is the gatekeeper's business).
    func register(_ registration: Registration) async throws -> Result<Fighter, Refusal> {
        let now = clock.now()
        switch try await blocking({ [store] in try store.execute(.register(registration), at: now) }) {
        case .failure(let refusal):
            return .failure(refusal)
        case .success(let events):
            publish(events, ref: nil, sender: nil)
            for case .fighter(let event) in events {
                if case .registered(let fighter) = event.change { return .success(fighter) }
            }
            throw ProtocolError(.internalError, "the registration was saved without a fighter")
        }
    }

    /// How long a server's lease lasts unrenewed, and how often it is renewed, in seconds by its
    /// clock: a server gone (killed, cut off) counts as serving for at most this long.
    static let lease: (seconds: Int64, renewedEvery: Int64) = (15, 5)

    /// Starts serving: called once as the server starts, before the first deadline is settled, and
    /// before it listens. When no other server sharing the database is serving (or none can share
    /// it: SQLite), every turn under way starts afresh, so that the time all were down costs
    /// nobody a turn, and every fighter given a turn then is owed it again when they connect.
    /// When others are serving, their fights' turns run on: restarting them would hand whoever
    /// has the turn a new one whenever a server starts.
    func startServing() {
        let now = clock.now()
        do {
            switch try store.startServing(as: serverName, at: now, leaseUntil: now + Self.lease.seconds) {
            case .alone(let resumed):
                publish(resumed, ref: nil, sender: nil)
                for case .fight(let event) in resumed {
                    guard case .turnPassed(_, let turn) = event.change else { continue }
                    owedTurns[turn.fighter, default: [:]][event.fight] = event.sequence
                }
            case .joined(let others):
                logger.notice(
                    "joining servers already serving; their turns run on", metadata: ["servers": "\(others)"])
            }
            leaseRenewedAt = now
        } catch {
            logger.error("starting to serve failed", metadata: ["error": "\(error)"])
        }
    }

    /// Renews this server's lease when it is due (called on each tick of the deadline service),
    /// and forgets the servers whose lease lapsed: their fighters connected nowhere else are gone.
    /// A lease of this server's that lapsed (the database was out of reach) may have been
    /// forgotten so by another server: its fighters connected here are noted again.
    func renewLease() {
        let now = clock.now()
        guard store.isShared, leaseRenewedAt.map({ now - $0 >= Self.lease.renewedEvery }) ?? true else { return }
        do {
            let lapsed = leaseRenewedAt.map { now - $0 >= Self.lease.seconds } ?? false
            try store.renewLease(of: serverName, until: now + Self.lease.seconds)
            leaseRenewedAt = now
            if lapsed {
                // Another server may have forgotten every row of this one's: all noted again, with
                // the next batch, as if each fighter here had just come.
                notedHere = []
                for fighter in connections.keys where presenceToNote[fighter] == nil { presenceToNote[fighter] = now }
                ringPresence.yield()
            }
            tellGone(try store.sweepLapsedServers(at: now), at: now)
        } catch {
            logger.error("renewing the lease failed", metadata: ["error": "\(error)"])
        }
    }

    /// Gives up this server's lease as it stops, and its fighters' presence with it: a server
    /// starting after the last one stopped resumes every turn, and the other servers' fighters
    /// are told at once who went with it.
    func stopServing() {
        do {
            try store.endLease(of: serverName)
            tellGone(try store.sweepLapsedServers(at: clock.now()), at: clock.now())
        } catch {
            logger.error("giving up the lease failed", metadata: ["error": "\(error)"])
        }
    }

    /// Tells the other fighters connected here of `fighters`, gone with a server that lapsed.
    private func tellGone(_ fighters: [FighterID], at now: Timestamp) {
        let gone = fighters.filter { connections[$0] == nil }
        for fighter in gone { presenceSince[fighter] = now }
        tellPresence(of: gone)
    }

    /// Starts afresh, once, the turns the server's start began for `fighter` (who has just
    /// connected for the first time since), each while it is still the turn the start began:
    /// the fight still at the sequence the start left it at. A client finds the server again
    /// only some seconds after it is back, and the turn is then a whole one from when the player
    /// can see it.
    ///
    /// Once per fighter per start, and only for fights under way at the start: a turn started
    /// afresh at every reconnect would let a fighter hold their turn forever by dropping the
    /// connection before each deadline.
    ///
    /// Called once the connection's first message is answered, not as it connects: that answer
    /// is `welcome`, which a client waits for before it punches, so the turn it is given comes
    /// after it, when the client can act on it.
    func resumeOwedTurns(of fighter: FighterID) async {
        guard let owed = owedTurns.removeValue(forKey: fighter) else { return }
        for (fight, sequence) in owed.sorted(by: { $0.key < $1.key }) {
            do {
                // The engine starts it afresh only if the fight is still at that sequence, checked
                // inside the transaction: a punch or a lapse since, on any server, leaves it be.
                try await execute(.resumeTurn(fight, of: fighter, after: sequence), ref: nil, sender: nil)
            } catch {
                logger.error(
                    "resuming a turn failed",
                    metadata: ["fight": "\(fight.rawValue)", "fighter": "\(fighter.rawValue)", "error": "\(error)"])
            }
        }
    }

    /// Passes every turn and expires every challenge whose deadline has come, and pushes what
    /// that caused. Called by the deadline service on each tick.
    func settleDeadlines() async {
        do {
            guard let next = try await blocking({ [store] in try store.nextDeadline() }), next <= clock.now() else {
                return
            }
            try await execute(.settleDeadlines, ref: nil, sender: nil)
        } catch {
            logger.error("settling deadlines failed", metadata: ["error": "\(error)"])
        }
    }

    // MARK: - Lookups

    /// Refuses, as the engine would a punch thrown now, a wind-up or motion batch of `me` at
    /// sequence `after` in `fight` as read: `stale` if the fight moved past it (or has not reached
    /// it), out of turn, or over. A check ahead of the transaction, to answer early; the punch
    /// itself is judged again inside it (`Fight.cornerAwaitingPunch(by:after:)`).
    private static func awaitingPunch(by me: FighterID, at after: Int, in fight: Fight) throws {
        do { _ = try fight.cornerAwaitingPunch(by: me, after: after) } catch { throw ProtocolError(error) }
    }

    nonisolated func fighter(_ id: FighterID) throws -> Fighter {
        guard let fighter = try store.fighter(id) else { throw ProtocolError(Refusal.unknownFighter(id)) }
        return fighter
    }

    /// Fight `id`, if `me` is in it; the same refusal as the engine's otherwise.
    nonisolated func fight(_ id: FightID, of me: FighterID) throws -> Fight {
        guard let fight = try store.fight(id) else { throw ProtocolError(Refusal.unknownFight(id)) }
        guard fight.corner(of: me) != nil else { throw ProtocolError(Refusal.notInFight(me, id)) }
        return fight
    }

    // MARK: - Pushing events

    /// Pushes `events`, already saved, to every connection of the fighters each one concerns.
    private func publish(_ events: [Event], ref: Int?, sender: Int?) {
        // One command's events are mostly of one fight (a knockout's `punched` and `ended`, the
        // turns a restart settles): its corners are looked up once.
        var cornersOf: [FightID: Both<FighterID>] = [:]
        for event in events {
            switch event {
            case .fight(let fightEvent):
                let corners: Both<FighterID>?
                do {
                    // A fight followed here knows its corners; the store is asked only of the others.
                    corners =
                        try cornersOf[fightEvent.fight] ?? pushed[fightEvent.fight]?.corners
                        ?? fightEvent.change.corners ?? store.corners(ofFight: fightEvent.fight)
                } catch {
                    // The command is saved and stays so; its fighters find the event by `replay`.
                    logger.error(
                        "could not find whom to push to",
                        metadata: ["fight": "\(fightEvent.fight.rawValue)", "error": "\(error)"])
                    continue
                }
                guard let corners else { continue }
                cornersOf[fightEvent.fight] = corners
                if let last = pushed[fightEvent.fight]?.sequence {
                    guard fightEvent.sequence > last else { continue }
                    // Another server's events came first and are not pushed yet (its announcement
                    // is on its way): they go first.
                    if fightEvent.sequence > last + 1 {
                        catchUp(fightEvent.fight, corners: corners, after: last, before: fightEvent.sequence)
                    }
                }
                push(fightEvent, to: corners, ref: ref, sender: sender)
            case .fighter(let fighterEvent):
                deliver(.fighter(fighterEvent), to: [fighterEvent.fighter], ref: ref, sender: sender)
            }
        }
    }

    /// Pushes one fight event to both corners' connections here, and notes it pushed.
    private func push(_ event: FightEvent, to corners: Both<FighterID>, ref: Int?, sender: Int?) {
        // The fight moved on: a hold being read in it is over, its detector let go.
        for fighter in [corners.challenger, corners.opponent] {
            if case .reading(let key, let connection, _, _)? = holds[fighter], key.fight == event.fight {
                holds[fighter] = .over(key, connection: connection)
            }
        }
        logger.info(
            "fight event",
            metadata: [
                "fight": "\(event.fight.rawValue)", "sequence": "\(event.sequence)",
                "event": "\(WireEvent(.fight(event)).kind)",
            ])
        deliver(.fight(event), to: [corners.challenger, corners.opponent], ref: ref, sender: sender)
        if isConnected(corners) {
            pushed[event.fight] = PushedFight(corners: corners, sequence: event.sequence)
        }
        // A fight that begins tells each fighter whether the other is there: a challenge may be
        // accepted, or a room joined, long after its owner left.
        if event.change.beginsFight {
            push(.presence(presence(of: corners.opponent, in: event.fight)), to: corners.challenger)
            push(.presence(presence(of: corners.challenger, in: event.fight)), to: corners.opponent)
        }
    }

    /// Sends `event` to every connection of `recipients`; the sender's copy carries `ref`.
    private func deliver(_ event: Event, to recipients: [FighterID], ref: Int?, sender: Int?) {
        let wire = WireEvent(event)
        let plain = MessageCodec.encode(ServerMessage(.event(wire)))
        let answered = ref == nil ? plain : MessageCodec.encode(ServerMessage(ref: ref, .event(wire)))
        for fighter in recipients {
            for (id, connection) in connections[fighter] ?? [:] {
                connection.outbox.yield(id == sender ? answered : plain)
            }
        }
    }

    /// Pushes fight `fight`'s events after sequence `after` (and before `before`, if given), read
    /// from the log.
    private func catchUp(_ fight: FightID, corners: Both<FighterID>, after: Int, before: Int? = nil) {
        do {
            for event in try store.events(ofFight: fight, after: after) {
                if let before, event.sequence >= before { break }
                push(event, to: corners, ref: nil, sender: nil)
            }
        } catch {
            // Its fighters find the events by `replay`; the next change to the fight tries again.
            logger.error(
                "could not read the events to push", metadata: ["fight": "\(fight.rawValue)", "error": "\(error)"])
        }
    }

    // MARK: - Other servers' changes

    /// Hears `changes` until the stream ends: `first` sees each as it comes, and the hub acts on
    /// them in batches (`actOnHeard`), each batch all that came while the last one's events were
    /// read. Under load a read is for hundreds of changes, off the hub's thread; a read for each
    /// change on the hub's thread, while every command waited behind it, held the pushes across
    /// servers up for seconds. Both loops run on the hub's own thread: on Swift's shared threads,
    /// which decoding the clients' messages keeps busy, each change waited for a thread first.
    nonisolated func hear(_ changes: AsyncStream<StoreChange>, first: @escaping @Sendable (StoreChange) -> Void) async {
        // One ring stands for any number of changes come.
        let (rings, ring) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask { await self.collect(changes, first: first, ringing: ring) }
            group.addTask { await self.actOnHeard(rung: rings) }
        }
    }

    private func collect(
        _ changes: AsyncStream<StoreChange>, first: @Sendable (StoreChange) -> Void,
        ringing ring: AsyncStream<Void>.Continuation
    ) async {
        for await change in changes {
            first(change)
            heard.append(change)
            ring.yield()
        }
        ring.finish()
    }

    /// Acts on the changes heard each time `rings` rings: at once on those that need no reading,
    /// then pushes the fights' new events, read in one go on the threads for waiting on the
    /// database. Commands run meanwhile: what they push first is not pushed again.
    private func actOnHeard(rung rings: AsyncStream<Void>) async {
        for await _ in rings {
            let batch = heard
            heard = []
            let sequences = await act(on: batch)
            guard !sequences.isEmpty else { continue }
            do {
                let news = try await databaseThreads.run { [store] in try store.events(after: sequences) }
                push(news)
            } catch {
                // Their fighters find the events by `replay`; the next change to a fight tries again.
                logger.error("could not read the events to push", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Acts on what other servers sharing the database committed, and returns the fights whose
    /// new events to read, each after the sequence pushed here: a fighter event goes to that
    /// fighter's connections, a logout closes the session's connections, a presence is told; a
    /// fight followed here is read after its last event pushed, one not followed (maybe new, a
    /// challenge made on another server) from the first event announced, its corners to say
    /// whether anyone here follows it; after a gap in listening, every fight followed is.
    private func act(on changes: [StoreChange]) async -> [FightID: Int] {
        var sequences: [FightID: Int] = [:]
        for change in changes {
            switch change {
            case .fight(let id, let first, let last):
                if let known = pushed[id] {
                    guard last > known.sequence else { continue }
                    sequences[id] = known.sequence
                } else {
                    sequences[id] = min(sequences[id] ?? .max, first - 1)
                }
            case .fighter(let event):
                deliver(.fighter(event), to: [event.fighter], ref: nil, sender: nil)
            case .sessionEnded(let key, let fighter):
                endSession(key, of: fighter, except: nil)
            case .presence(let fighter, _, let since):
                // Connected here, the fighter is here whatever another server saw.
                guard connections[fighter] == nil else { continue }
                presenceSince[fighter] = since
                tellPresence(of: [fighter])
            case .resynchronize:
                // Fights begun while not listening are pushed whole; those followed, from where they were.
                for fight in await openFights(of: Array(connections.keys)) { follow(fight, from: 0) }
                for (id, fight) in pushed { sequences[id] = fight.sequence }
            }
        }
        return sequences
    }

    /// Follows `fight` from sequence `sequence` on, unless it is followed already or (the store was
    /// read while the hub did other work) neither of its fighters is connected here any more.
    private func follow(_ fight: Fight, from sequence: Int) {
        let corners = Both(fight.challenger, fight.opponent)
        guard pushed[fight.id] == nil, isConnected(corners) else { return }
        pushed[fight.id] = PushedFight(corners: corners, sequence: sequence)
    }

    /// Pushes each fight's events in `news` not pushed here yet, in order, to its fighters
    /// connected here.
    private func push(_ news: [FightID: FightNews]) {
        for (id, fight) in news.sorted(by: { $0.key < $1.key }) {
            let pushedUpTo: Int
            if let known = pushed[id] {
                pushedUpTo = known.sequence
            } else {
                guard isConnected(fight.corners) else { continue }
                pushedUpTo = 0
            }
            for event in fight.events where event.sequence > pushedUpTo {
                push(event, to: fight.corners, ref: nil, sender: nil)
            }
        }
    }

    // MARK: - Presence

    /// Notes in the store, in one batch, the fighters who came or went since the last batch (a
    /// fighter who came and went again meanwhile is left as noted), and tells the other fighter
    /// of each of their fights under way whether they are connected: unless, on a database
    /// shared, they are connected to another server as well, where the others were told then.
    /// Called by the presence service when rung, and on each tick of the deadline service, which
    /// tries again a batch the store could not take.
    func notePresence() {
        guard !presenceToNote.isEmpty else { return }
        let changes = presenceToNote.sorted { $0.key < $1.key }.compactMap { fighter, at -> PresenceChange? in
            let connected = connections[fighter] != nil
            return connected == notedHere.contains(fighter) ? nil : PresenceChange(fighter, connected: connected, at: at)
        }
        presenceToNote = [:]
        guard !changes.isEmpty else { return }
        let elsewhere: [FighterID: Timestamp]
        do {
            elsewhere = try store.notePresence(changes, on: serverName)
        } catch {
            logger.error(
                "noting who came and went failed; trying again on the next tick",
                metadata: ["fighters": "\(changes.count)", "error": "\(error)"])
            for change in changes where presenceToNote[change.fighter] == nil {
                presenceToNote[change.fighter] = change.at
            }
            return
        }
        for change in changes {
            if change.connected { notedHere.insert(change.fighter) } else { notedHere.remove(change.fighter) }
            presenceSince[change.fighter] = elsewhere[change.fighter] ?? change.at
        }
        tellPresence(of: changes.map(\.fighter).filter { elsewhere[$0] == nil })
    }

    /// Tells the other fighter of each of `fighters`' fights under way whether they are connected.
    private func tellPresence(of fighters: [FighterID]) {
        guard !fighters.isEmpty else { return }
        let open: [Fight]
        do {
            open = try store.openFights(of: fighters)
        } catch {
            logger.error(
                "could not read the fighters' open fights", metadata: ["fighters": "\(fighters.count)", "error": "\(error)"])
            return
        }
        var openOf: [FighterID: [Fight]] = [:]
        for fight in open {
            openOf[fight.challenger, default: []].append(fight)
            openOf[fight.opponent, default: []].append(fight)
        }
        for fighter in fighters { pushPresence(of: fighter, in: openOf[fighter] ?? []) }
    }

    /// Whether the other fighter of each of `me`'s fights under way among `open` is connected, as
    /// `welcome` tells it.
    func presenceOfOpponents(of me: FighterID, in open: [Fight]) -> [Presence] {
        open.filter(\.isUnderWay).compactMap { fight in
            fight.corner(of: me).map { presence(of: fight.fighter(in: $0.other), in: fight.id) }
        }
    }

    /// Whether `fighter` is connected, as the other fighter of `fight` is told it.
    /// On a database other servers share, a fighter with no connection here may have one on
    /// another server: the store says since when (`FightStore.presence(of:besides:at:)`).
    private func presence(of fighter: FighterID, in fight: FightID) -> Presence {
        let (state, since) = presence(of: fighter)
        return Presence(fight: fight, fighter: fighter, state: state, since: since)
    }

    /// Whether `fighter` is connected, here or (on a database shared) elsewhere, and since when.
    private func presence(of fighter: FighterID) -> (Presence.State, since: Timestamp?) {
        if connections[fighter] == nil,
            let elsewhere = sharedPresence("reading the presence", of: fighter, {
                try store.presence(of: fighter, besides: serverName, at: clock.now())
            })
        {
            return (.connected, elsewhere)
        }
        return (connections[fighter] == nil ? .gone : .connected, presenceSince[fighter])
    }

    /// What the store says of `fighter`'s connections to other servers (`nil` on a database no
    /// other server shares), or `nil`, logged, when it cannot say: then this server's own
    /// connections are all that is told.
    private func sharedPresence(
        _ doing: String, of fighter: FighterID, _ read: () throws -> Timestamp?
    ) -> Timestamp? {
        guard store.isShared else { return nil }
        do { return try read() } catch {
            logger.error(
                "presence across servers failed",
                metadata: ["doing": "\(doing)", "fighter": "\(fighter.rawValue)", "error": "\(error)"])
            return nil
        }
    }

    /// The open fights of `fighters`, read off the hub's thread, or none (logged) when the store
    /// cannot say.
    private func openFights(of fighters: [FighterID]) async -> [Fight] {
        do {
            return try await blocking { [store] in try store.openFights(of: fighters) }
        } catch {
            logger.error(
                "could not read fighters' open fights",
                metadata: ["fighters": "\(fighters.map(\.rawValue))", "error": "\(error)"])
            return []
        }
    }

    /// Tells the other fighter of each of `fighter`'s fights under way (among `open`, their open
    /// fights) whether `fighter` is connected, after their first connection opened or their last
    /// one closed. Not a fight event: nothing is saved, and a client that was away learns it from
    /// `welcome`.
    private func pushPresence(of fighter: FighterID, in open: [Fight]) {
        let underWay = open.filter(\.isUnderWay)
        guard !underWay.isEmpty else { return }
        // Asked once for all the fighter's fights: on a shared database it is a read.
        let (state, since) = presence(of: fighter)
        for fight in underWay {
            guard let corner = fight.corner(of: fighter) else { continue }
            push(
                .presence(Presence(fight: fight.id, fighter: fighter, state: state, since: since)),
                to: fight.fighter(in: corner.other))
        }
    }

    /// Sends `body` to every connection of `fighter`.
    private func push(_ body: ServerBody, to fighter: FighterID) {
        let text = MessageCodec.encode(ServerMessage(body))
        for connection in (connections[fighter] ?? [:]).values { connection.outbox.yield(text) }
    }
}

// MARK: - Motion's errors

extension ProtocolError {
    /// A batch that breaks a hold's bounds, as the client is told it: the sample at fault and
    /// what was expected.
    init(_ violation: MotionHold.Violation) {
        switch violation {
        case .timeWentBack(let index, let time, let previous):
            self.init(
                .invalid, "samples[\(index)]: expected a time after \(previous) s (time goes on), got \(time) s",
                field: "samples")
        case .tooFast(let index, let intervals, let seconds):
            let rate = Double(intervals) / seconds
            self.init(
                .invalid,
                "samples[\(index)]: expected at most \(Int(MotionLimits.maximumRate)) samples a second, got \(intervals) intervals in \(seconds) s (\(rate.isFinite ? "\(Int(rate.rounded())) Hz" : "no time"))",
                field: "samples")
        case .tooLong(let index, let seconds):
            self.init(
                .tooLarge,
                "samples[\(index)]: expected a hold of at most \(MotionLimits.holdSeconds) s, got \(seconds) s since it was pressed (or its first sample); release and hold again",
                field: "samples")
        case .leadTooLong(let index, let seconds):
            self.init(
                .tooLarge,
                "samples[\(index)]: expected a lead-in of at most \(MotionLimits.leadSeconds) s before pressed, got \(seconds) s",
                field: "samples")
        case .gyroscopeChanged(let index, let hadGyroscope):
            self.init(
                .invalid,
                "samples[\(index)]: expected \(hadGyroscope ? 7 : 4) numbers as in the hold's first row, got \(hadGyroscope ? 4 : 7)",
                field: "samples")
        }
    }
}

extension Vector3 {
    /// The wire's three axes.
    init(_ axes: SIMD3<Double>) { self.init(axes.x, axes.y, axes.z) }
}
