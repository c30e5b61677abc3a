import FightEngine
import FightProtocol
import FightStore
import Logging
import MotionInput
import NIOConcurrencyHelpers
import NIOCore
import PunchKit

// MARK: - FightHub

/// The server's authority: every command goes through here to the engine and the store, and every
/// event that comes out is pushed to each connection of the fighters it concerns.
///
/// The hub's state lives on a thread of its own (an event loop of its own, so that neither the
/// network nor Swift's shared threads wait for it); it awaits the store, whose calls run off that
/// thread on the database driver's own, taking other requests meanwhile. A fight's requests take turns (`handle`), so that what the hub
/// keeps of a fight (a wind-up, a hold) follows its requests in order. "The punch was thrown at
/// sequence N" is the engine's to check, inside the store's transaction (`Command.punch`'s
/// `after`): no other server, deadline or request can land a punch twice between a check here and
/// the commit.
///
/// What it keeps of the fighters connected here and the fights it pushes is `HubState`, a value
/// with no I/O: the hub feeds it what happens (a connection, a store's answer back from an
/// `await`, an event saved, another server's change, a tick) and does what it answers (what to
/// deliver to whom, what to read, whom to tell). Every store call is awaited, the hub taking other
/// work meanwhile, what pushing needs included: read with the command that saved the events,
/// before the state decides the pushes (`HubState.PushNeeds`). By concern: requests here, `+Motion`,
/// `+Pushing` (and other servers' changes), `+Presence`, `+Serving` (the lease, deadlines, turns
/// owed after a restart), `+Reading`, `+Teaching`.
actor FightHub {
    let store: FightStore
    let clock: ServerClock
    let logger: Logger
    let eventLoop: any EventLoop

    /// Each fighter connected here (their connections, wind-up and hold), presence, and the fights
    /// followed here (`HubState`).
    var state = HubState()
    /// Each fighter's teaching of their punches under way, and the punch profiles of those
    /// connected here (`FightHub+Teaching`).
    var teacher = PunchTeacher(limits: FightHub.holdLimits)
    /// Each fighter's motion samples, by the server's clock: over all their connections, on
    /// every server sharing the database.
    let motionSamples: FighterAllowance
    /// This run's identifier in the table of leases (and of presence).
    let serverName: String
    /// The server's own name, the same over its restarts (`ServerConfiguration.name`), which tells
    /// its previous run's lease from another server's; `nil` when it has none.
    let serverIdentity: String?
    /// Awaited once a command's events and what pushing them needs are read, before they are
    /// pushed: where a test holds a command saved and not yet answered, to interleave another.
    let afterSaving: @Sendable () async -> Void
    /// What has a request under way here, and the requests waiting for it to end, in the order
    /// they came (`takingTurns(over:)`).
    /// Locked, not only the actor's: a waiting request whose task is cancelled leaves its place
    /// from the thread that cancels it.
    nonisolated let turns = NIOLockedValueBox(TurnQueue<TurnWaiter>())
    /// The number of the last request that waited for its turn.
    var lastWaiter = 0

    /// The rules `welcome` states: the referee's, the protocol's motion limits, the backoff.
    nonisolated let rules: StatedRules
    /// The bounds of every hold, from the protocol's.
    static let holdLimits = MotionHold.Limits(
        maximumRate: MotionLimits.maximumRate, rateWindow: MotionLimits.rateWindow,
        rateTolerance: MotionLimits.rateTolerance, longestHold: MotionLimits.holdSeconds,
        longestLead: MotionLimits.leadSeconds)
    /// Rung when a fighter comes or goes, for the presence service to call `notePresence`: one
    /// ring stands for any number, so that a thousand clients connecting at once are noted in a
    /// few batches, not one by one while the punches wait behind them.
    nonisolated let presenceChanged: AsyncStream<Void>
    let ringPresence: AsyncStream<Void>.Continuation

    /// A connection's way out: messages as JSON text, written by the connection's own task.
    /// Finishing it closes the connection.
    typealias Outbox = HubState.Outbox

    nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }

    /// Keeps nothing from the store in memory: a fighter's fights and a fight's corners are the
    /// store's indexed queries, so that starting does not read the history, however long.
    init(
        store: FightStore, clock: ServerClock, logger: Logger, eventLoop: any EventLoop,
        motionSamples: FighterAllowance, serverName: String, serverIdentity: String? = nil,
        rules: StatedRules, afterSaving: @escaping @Sendable () async -> Void = {}
    ) {
        self.rules = rules
        self.store = store
        self.clock = clock
        self.logger = logger
        self.eventLoop = eventLoop
        self.motionSamples = motionSamples
        self.serverName = serverName
        self.serverIdentity = serverIdentity
        self.afterSaving = afterSaving
        (presenceChanged, ringPresence) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: - Connections

    /// Starts pushing `fighter`'s events to `outbox`, a connection that began with session
    /// `session` (its key); returns the connection's number. The fighter's first connection tells
    /// the other fighter of each of their fights under way that they came, once it is noted
    /// (`notePresence`). (The turn owed after a restart follows the connection's first answer:
    /// `resumeOwedTurns(of:)`.)
    func connect(_ fighter: FighterID, session: String, outbox: Outbox) async -> Int {
        let (id, arriving) = state.connect(fighter, session: session, outbox: outbox, at: clock.now())
        if arriving {
            ringPresence.yield()
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
        let closing = state.disconnect(fighter, connection: id, at: clock.now())
        // A connection closed twice (by a logout on another one, then by itself) counts once.
        guard closing != .unknown else { return }
        teacher.disconnected(fighter, connection: id, last: closing == .last)
        guard closing == .last else { return }
        ringPresence.yield()
    }

    /// Closes every connection of `fighter` that began with session `session` but `sender`, which
    /// closes itself: each is told `loggedOut` first. A logged-out token must not keep receiving
    /// the fighter's events.
    func endSession(_ session: String, of fighter: FighterID, except sender: Int?) {
        let ended = MessageCodec.encode(ServerMessage(.loggedOut))
        for (id, connection) in state.connections(of: fighter) where connection.session == session && id != sender {
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
    /// The hub awaits the store off its thread, taking other requests meanwhile:
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

    func answer(_ request: ClientRequest, by me: FighterID, ref: Int?, connection: Int?) async throws
        -> ServerBody?
    {
        let command: Command
        switch request {
        case .hello, .profile, .fight, .replay, .history, .statistics, .punchProfile:
            // Read off the hub's thread (`answerReading`); they never come this far.
            throw ProtocolError(.internalError, "a request that only reads reached the hub")
        case .nextOpponent, .backDown:
            let now = clock.now()
            let matchup = try await store.nextOpponent(for: me, at: now)
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
            let fight = try await self.fight(request.fight, of: me)
            try Self.awaitingPunch(by: me, at: request.after, in: fight)
            // Not kept if the fighter left while the fight was read: their meter ended with them.
            _ = state.woundUp(me, HubState.WindUp(fight: fight.id, after: request.after, at: clock.elapsed()))
            return .meter(MeterReply(fight: fight.id, after: request.after, meter: store.referee.rules.meter))
        case .punch(let punch):
            // The wind-up it stops: then the engine judges the rest (the sequence, the turn) on the
            // fight as saved, inside the transaction, so no read comes first.
            // One punch a wind-up, whatever the engine says of it.
            guard let windUp = state.stopWindUp(of: me, in: punch.fight, after: punch.after) else {
                // Stale or out of turn is the reason to give, not the wind-up that could not have come.
                let fight = try await self.fight(punch.fight, of: me)
                try Self.awaitingPunch(by: me, at: punch.after, in: fight)
                throw ProtocolError(
                    .refused, "no windUp came first at sequence \(punch.after); send windUp, then punch",
                    reason: .notWoundUp)
            }
            command = .timedPunch(
                punch.fight, by: me, after: punch.after, kind: punch.kind,
                stoppedAfterMilliseconds: PowerMeter.milliseconds(in: clock.elapsed() - windUp.at))
        case .motion(let batch):
            return try await motion(batch, by: me, ref: ref, connection: connection)
        case .teach, .teachMotion, .teachDone, .forgetPunchProfile:
            return try await teaching(request, by: me, connection: connection)
        case .raiseGuard(let request):
            try await execute(.raiseGuard(request.fight, by: me, request.guard), ref: ref, sender: connection)
            let fight = try await self.fight(request.fight, of: me)
            return .fight(FightReply(fight: FightView(fight, seenBy: me)))
        }
        try await execute(command, ref: ref, sender: connection)
        return nil
    }

    /// Applies `command` now and pushes its events; returns them.
    @discardableResult
    func execute(_ command: Command, ref: Int?, sender: Int?) async throws -> [Event] {
        let now = clock.now()
        // What pushing the events needs of the store is read with them, before the state decides
        // the pushes (`HubState.publish`): those decisions never wait on the store.
        let needs = state.pushNeeds(for: command.fight)
        let events = try await store.execute(command, at: now).mapError { ProtocolError($0) }.get()
        let saved = try await needs.read(events, corners: store.corners(ofFight:), log: store.events(ofFight:after:))
        await afterSaving()
        publish(saved, ref: ref, sender: sender)
        await tellWhoIsThere()
        return saved.events
    }

    /// Runs `work` when no other request over `turns` is under way here, and the next one after
    /// it: in the order they came. A request whose task is cancelled while it waits throws
    /// `CancellationError` and leaves its place to the next.
    func takingTurns<T>(over turns: Turns, _ work: () async throws -> T) async throws -> T {
        let queue = self.turns
        lastWaiter += 1
        let id = lastWaiter
        // Arriving and waiting are one step under the lock: with a moment between them, the
        // request under way could finish, find nobody waiting, and leave this one waiting for ever.
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let arrival = queue.withLockedValue { queue -> TurnArrival in
                    // Cancelled before it came (its handler found nothing to remove): it does not.
                    guard !Task.isCancelled else { return .cancelled }
                    guard !queue.arrive(over: turns) else { return .now }
                    queue.wait(over: turns, TurnWaiter(id: id, continuation: continuation))
                    return .waiting
                }
                switch arrival {
                case .now: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            queue.withLockedValue { $0.leave(over: turns) { $0.id == id } }?.continuation
                .resume(throwing: CancellationError())
        }
        defer { queue.withLockedValue { $0.finish(over: turns) }?.continuation.resume() }
        return try await work()
    }

    /// Registers a fighter (the account is the gatekeeper's business).
    func register(_ registration: Registration) async throws -> Result<Fighter, Refusal> {
        let now = clock.now()
        switch (try await store.execute(.register(registration), at: now)) {
        case .failure(let refusal):
            return .failure(refusal)
        case .success(let events):
            // A new fighter's events concern only them: nothing to read to push them.
            publish(HubState.Saved(events: events), ref: nil, sender: nil)
            for case .fighter(let event) in events {
                if case .registered(let fighter) = event.change { return .success(fighter) }
            }
            throw ProtocolError(.internalError, "the registration was saved without a fighter")
        }
    }

    // MARK: - Lookups

    /// Refuses, as the engine would a punch thrown now, a wind-up or motion batch of `me` at
    /// sequence `after` in `fight` as read: `stale` if the fight moved past it (or has not reached
    /// it), out of turn, or over. A check ahead of the transaction, to answer early; the punch
    /// itself is judged again inside it (`Fight.cornerAwaitingPunch(by:after:)`).
    static func awaitingPunch(by me: FighterID, at after: Int, in fight: Fight) throws {
        do { _ = try fight.cornerAwaitingPunch(by: me, after: after) } catch { throw ProtocolError(error) }
    }

    nonisolated func fighter(_ id: FighterID) async throws -> Fighter {
        guard let fighter = try await store.fighter(id) else { throw ProtocolError(Refusal.unknownFighter(id)) }
        return fighter
    }

    /// Fight `id`, if `me` is in it; the same refusal as the engine's otherwise.
    nonisolated func fight(_ id: FightID, of me: FighterID) async throws -> Fight {
        guard let fight = try await store.fight(id) else { throw ProtocolError(Refusal.unknownFight(id)) }
        guard fight.corner(of: me) != nil else { throw ProtocolError(Refusal.notInFight(me, id)) }
        return fight
    }
}
