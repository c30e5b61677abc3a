import FightEngine

// MARK: - Several servers on one database

/// What one server committed that the others sharing its database may have to push or act on,
/// as `FightStore.changes()` tells it. Fight events are told by fight and sequence, not whole:
/// the receiver reads them from the log, so that one it missed (its listening connection was
/// down) is read the same way when it catches up.
public enum StoreChange: Hashable, Sendable, Codable {
    /// Fight `fight`'s log grew by the events from sequence `first` to `last`.
    case fight(FightID, first: Int, last: Int)
    /// A change to a fighter outside any fight (a profile, a move, a quick-match room), whole:
    /// it concerns only that fighter's own connections, and is not caught up after an outage
    /// (`hello` and `profile` give the fighter's state).
    case fighter(FighterEvent)
    /// `fighter`'s session `key` was ended (a logout): its connections must close.
    case sessionEnded(key: String, fighter: FighterID)
    /// `fighter` became connected to some server after being connected to none, or connected to
    /// none after being connected to some, `since` then (see `notePresence`, `sweepLapsedServers`).
    case presence(FighterID, connected: Bool, since: Timestamp)
    /// The store is listening again after not listening (or for the first time): what the others
    /// committed meanwhile was not told, and is to be read by sequence.
    case resynchronize
}

/// A fighter's connections on one server came or went: their first one there opened, or their
/// last one there closed (`FightStore.notePresence`).
public struct PresenceChange: Hashable, Sendable {
    /// Whose connections.
    public var fighter: FighterID
    /// Whether the fighter now has a connection on the server.
    public var connected: Bool
    /// When they came or went.
    public var at: Timestamp

    /// Creates a change.
    public init(_ fighter: FighterID, connected: Bool, at: Timestamp) {
        self.fighter = fighter
        self.connected = connected
        self.at = at
    }
}

/// A fight's events that a server has not pushed yet (`FightStore.events(after:)`), and whom to
/// push them to.
public struct FightNews: Hashable, Sendable {
    /// The fight's challenger and opponent.
    public var corners: Both<FighterID>
    /// The events, in sequence order.
    public var events: [FightEvent]
}

/// How a server's start found the others sharing its database (`FightStore.startServing`).
public enum ServingStart: Hashable, Sendable {
    /// No other server was serving (or the database is only this one's): every turn under way
    /// started afresh, with these events, since nobody could play while all were down.
    case alone(resumed: [Event])
    /// Other servers are serving the fights; their turns run on, untouched.
    case joined(liveServers: Int)
    /// Another run's live lease carries this server's name: this server's previous run, killed
    /// before it gave its lease up, or another server given the same name and serving. Nothing was
    /// changed: which one it is shows in whether that lease is renewed (`startServing`'s
    /// `replacing`).
    case nameHeld(ServerLease)
}

/// One run's lease on a server's name, as `FightStore.startServing` found it.
public struct ServerLease: Hashable, Sendable {
    /// The run's own identifier (`startServing`'s `server`).
    public var server: String
    /// Until when the lease is live, as its run last renewed it.
    public var expiresAt: Timestamp

    /// Names a lease.
    public init(server: String, expiresAt: Timestamp) {
        self.server = server
        self.expiresAt = expiresAt
    }
}

extension FightStore {
    /// Whether other servers may share this store's database (PostgreSQL; not an SQLite file).
    public var isShared: Bool { database.isShared }

    /// What the other servers sharing the database commit, as they commit it (never this store's
    /// own commits), starting with `.resynchronize` once listening; `nil` for a database no other
    /// server shares (SQLite). The stream listens until it is dropped or its consumer stops, and
    /// listens again (after `.resynchronize`) whenever its connection is lost and back.
    public func changes() -> AsyncStream<StoreChange>? {
        database.changes()
    }

    /// The events of each fight in `sequences` after its sequence there, in sequence order, with
    /// the fight's corners: what a server following fights that other servers commit to has not
    /// pushed yet, however many fights it hears of at once: on PostgreSQL one statement, the
    /// fights and their sequences given as two arrays; on SQLite one a fight, in one snapshot
    /// (through the log's index by fight and sequence). A fight with no such event is missing.
    public func events(after sequences: [FightID: Int]) async throws -> [FightID: FightNews] {
        try await database.events(after: sequences)
    }

    // MARK: Leases

    /// Starts serving as `server` (an identifier unique to this run of it), holding a lease until
    /// `expiry` that `renewLease` keeps alive: when no other server's lease is live at `now`,
    /// the whole cluster was down, and every turn under way starts afresh (`Command.resumeTurns`);
    /// otherwise the others are serving the fights and their turns are left alone. Decided and
    /// leased in one transaction under the writers' lock, so that of two servers starting at once
    /// one resumes and the other joins. Leases expired are deleted.
    ///
    /// A lease says who else is alive, not whether this server was down: `name`, the server's own
    /// over its restarts, tells its previous run's lease from another server's. A live lease of
    /// another run with this name is answered `.nameHeld`, changing nothing; given again as
    /// `replacing` once that run would have renewed it, and still as it was, it is that dead
    /// run's, and is replaced (a lone server restarted within its old lease resumes). One renewed
    /// meanwhile is another server's, serving under the same name: `.nameHeld` again.
    ///
    /// On a database no other server shares (SQLite), the server is alone: it resumes.
    public func startServing(
        as server: String, named name: String? = nil, at now: Timestamp, leaseUntil expiry: Timestamp,
        replacing stale: ServerLease? = nil
    ) async throws -> ServingStart {
        try await database.startServing(
            as: server, named: name, at: now, leaseUntil: expiry, replacing: stale, referee: referee)
    }

    /// Keeps `server`'s lease until `expiry` (taking it again if another's start found it expired).
    /// Nothing on a database no other server shares.
    /// - Returns: `false` when the lease had lapsed and another run has taken its `name` since
    ///   (this run's name went to a newer run of it, or to another server given the same name):
    ///   no lease is kept.
    @discardableResult
    public func renewLease(of server: String, named name: String? = nil, until expiry: Timestamp) async throws
        -> Bool
    {
        try await database.renewLease(of: server, named: name, until: expiry)
    }

    /// Gives up `server`'s lease: it stopped serving, and a server starting after the last one
    /// stopped resumes every turn.
    public func endLease(of server: String) async throws {
        try await database.endLease(of: server)
    }

    /// The servers whose lease is live at `now` (this one among them, once started).
    public func liveServers(at now: Timestamp) async throws -> [String] {
        try await database.liveServers(at: now)
    }

    // MARK: Presence

    /// Notes each of `changes` on `server` (a fighter's first connection there opened, or their
    /// last one there closed; one change a fighter), all in one transaction, taking turns with
    /// the other writers of presence (`WriteScope.presence`), so that of two servers seeing a
    /// fighter come or go at once, one sees the other's row.
    /// A server notes its changes in batches: a thousand clients connecting at once, or leaving,
    /// are a few transactions, not a thousand, which would hold up the punches behind them. Each
    /// fighter then connected to no other live server had their presence change at the change's
    /// time, and the others are told (`StoreChange.presence`). Nothing on a database no other
    /// server shares.
    /// - Returns: for each fighter of `changes` connected to another server whose lease is live,
    ///   the earliest time they connected there. Those not in it are connected nowhere else.
    public func notePresence(_ changes: [PresenceChange], on server: String) async throws -> [FighterID: Timestamp] {
        guard !changes.isEmpty else { return [:] }
        return try await database.notePresence(changes, on: server)
    }

    /// When `fighter` connected to a server other than `server` whose lease is live at `now` (the
    /// earliest, if several), or `nil` when they are on none.
    public func presence(of fighter: FighterID, besides server: String, at now: Timestamp) async throws -> Timestamp? {
        try await database.presence(of: fighter, besides: server, at: now)
    }

    /// Forgets the servers whose lease has lapsed by `now` (killed, or cut off from the database)
    /// and the connections they held: each fighter then on no live server is gone since `now`,
    /// and the other servers are told. Called by every server now and then; the first to call
    /// after a lease lapses tells, the others find nothing left to forget.
    /// - Returns: the fighters gone, for the caller's own connections to be told.
    public func sweepLapsedServers(at now: Timestamp) async throws -> [FighterID] {
        try await database.sweepLapsedServers(at: now)
    }

    // MARK: Allowances

    /// Takes up to `want` from `fighter`'s allowance `kind` (a token bucket of `burst` refilled at
    /// `perSecond`, kept in the database) at `now`: `want` when the bucket holds that much, else
    /// what it holds (whole tokens) when that is at least `atLeast`, else nothing. One allowance
    /// for the fighter over every server sharing the database; a server may take more than one
    /// message needs and spend the rest itself (`FighterAllowance`), so that the database is
    /// asked once every few messages, not every one. `now` is time since 1970 by the servers'
    /// clocks; a reading earlier than the bucket's last refill refills nothing.
    ///
    /// One statement, outside the commands' writers' lock: a fighter's bucket row is locked by
    /// its update alone, so two servers taking from it at once take in turn.
    /// - Returns: how much was taken: `want`, at least `atLeast`, or 0.
    public func takeAllowance(
        _ kind: String, of fighter: FighterID, wanting want: Int, atLeast: Int, perSecond: Int, burst: Int,
        at now: Duration
    ) async throws -> Int {
        let milliseconds = now.components.seconds * 1000 + now.components.attoseconds / 1_000_000_000_000_000
        return try await database.takeAllowance(
            AllowanceRequest(
                fighter: fighter, kind: kind, want: Double(want), atLeast: Double(atLeast), perSecond: Double(perSecond),
                burst: Double(burst), now: milliseconds))
    }
}
