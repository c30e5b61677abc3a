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
    /// pushed yet, however many fights it hears of at once, in one statement for each
    /// `largestBatch / 2` fights (through the log's index by fight and sequence). A fight with no
    /// such event is missing.
    public func events(after sequences: [FightID: Int]) throws -> [FightID: FightNews] {
        var news: [FightID: FightNews] = [:]
        for batch in sequences.sorted(by: { $0.key < $1.key }).chunked(Self.largestBatch / 2) {
            let condition = Array(repeating: "(e.fight_id = ? AND e.sequence > ?)", count: batch.count)
                .joined(separator: " OR ")
            let rows = try database.readStatement { db in
                try db.fetch(
                    """
                    SELECT e.id, e.body, f.challenger_id, f.opponent_id FROM events e JOIN fights f ON f.id = e.fight_id
                    WHERE \(condition) ORDER BY e.fight_id, e.sequence
                    """,
                    batch.flatMap { fight, after -> SQLArguments in [fight.rawValue, after] })
            }
            for row in rows {
                let event = try JSON.decode(Event.self, from: row.get("body"), table: "events", rowID: row.get("id"))
                guard case .fight(let fightEvent) = event else { continue }
                let corners = Both(FighterID(try row.get("challenger_id")), FighterID(try row.get("opponent_id")))
                news[fightEvent.fight, default: FightNews(corners: corners, events: [])].events.append(fightEvent)
            }
        }
        return news
    }

    /// The announcements of what `events` changed: one per fight, one per fighter event.
    static func changes(of events: [Event]) -> [StoreChange] {
        var changes: [StoreChange] = []
        var fights: [FightID: (first: Int, last: Int)] = [:]
        var order: [FightID] = []
        for event in events {
            switch event {
            case .fight(let event):
                if let known = fights[event.fight] {
                    fights[event.fight] = (min(known.first, event.sequence), max(known.last, event.sequence))
                } else {
                    fights[event.fight] = (event.sequence, event.sequence)
                    order.append(event.fight)
                }
            case .fighter(let event):
                // A new fighter has no connection anywhere yet: nobody to tell.
                if case .registered = event.change { continue }
                changes.append(.fighter(event))
            }
        }
        return order.compactMap { id in fights[id].map { .fight(id, first: $0.first, last: $0.last) } } + changes
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
    ) throws -> ServingStart {
        try database.write { db in
            guard database.isShared else {
                return .alone(resumed: try apply(.resumeTurns, at: now, in: db).get())
            }
            try db.execute("DELETE FROM server_leases WHERE expires_at <= ?", [now.secondsSince1970])
            if let name, let held = try Self.lease(named: name, besides: server, in: db) {
                guard held == stale else { return .nameHeld(held) }
                // Its renewal and this transaction take no lock in common: delete it only as seen.
                let gone = try db.fetch(
                    "DELETE FROM server_leases WHERE server_id = ? AND expires_at = ? RETURNING server_id",
                    [held.server, held.expiresAt.secondsSince1970])
                if gone.isEmpty, let renewed = try Self.lease(named: name, besides: server, in: db) {
                    return .nameHeld(renewed)
                }
            }
            let others =
                try db.fetchValue(
                    "SELECT count(*) FROM server_leases WHERE server_id <> ?", [server], as: Int64.self) ?? 0
            try Self.lease(server, named: name, until: expiry, in: db)
            guard others == 0 else { return .joined(liveServers: Int(others)) }
            return .alone(resumed: try apply(.resumeTurns, at: now, in: db).get())
        }
    }

    /// Keeps `server`'s lease until `expiry` (taking it again if another's start found it expired).
    /// Nothing on a database no other server shares.
    /// - Returns: `false` when the lease had lapsed and another run has taken its `name` since
    ///   (this run's name went to a newer run of it, or to another server given the same name):
    ///   no lease is kept.
    @discardableResult
    public func renewLease(of server: String, named name: String? = nil, until expiry: Timestamp) throws -> Bool {
        guard database.isShared else { return true }
        return try database.writeApart { db in
            guard let name else {
                try Self.lease(server, named: nil, until: expiry, in: db)
                return true
            }
            return !(try db.fetch(
                """
                INSERT INTO server_leases (server_id, name, expires_at)
                SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT)
                WHERE NOT EXISTS (SELECT 1 FROM server_leases WHERE name = ? AND server_id <> ?)
                ON CONFLICT (server_id) DO UPDATE SET expires_at = excluded.expires_at
                RETURNING server_id
                """,
                [server, name, expiry.secondsSince1970, name, server]
            ).isEmpty)
        }
    }

    /// Gives up `server`'s lease: it stopped serving, and a server starting after the last one
    /// stopped resumes every turn.
    public func endLease(of server: String) throws {
        guard database.isShared else { return }
        _ = try database.writeApart { db in
            try db.execute("DELETE FROM server_leases WHERE server_id = ?", [server])
        }
    }

    /// The servers whose lease is live at `now` (this one among them, once started).
    public func liveServers(at now: Timestamp) throws -> [String] {
        try database.readStatement { db in
            try db.fetch(
                "SELECT server_id FROM server_leases WHERE expires_at > ? ORDER BY server_id",
                [now.secondsSince1970]
            ).map { try $0.get("server_id") }
        }
    }

    private static func lease(_ server: String, named name: String?, until expiry: Timestamp, in db: any SQLSession)
        throws
    {
        try db.execute(
            """
            INSERT INTO server_leases (server_id, name, expires_at) VALUES (?, ?, ?)
            ON CONFLICT (server_id) DO UPDATE SET expires_at = excluded.expires_at
            """,
            [server, name, expiry.secondsSince1970])
    }

    /// The lease of another run than `server` carrying `name`, if one is left (live or not).
    private static func lease(named name: String, besides server: String, in db: any SQLSession) throws
        -> ServerLease?
    {
        try db.fetch(
            "SELECT server_id, expires_at FROM server_leases WHERE name = ? AND server_id <> ?", [name, server]
        ).first.map {
            ServerLease(server: try $0.get("server_id"), expiresAt: Timestamp(secondsSince1970: try $0.get("expires_at")))
        }
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
    public func notePresence(_ changes: [PresenceChange], on server: String) throws -> [FighterID: Timestamp] {
        guard database.isShared, let now = changes.map(\.at).max() else { return [:] }
        return try database.write(.presence) { db in
            var elsewhere: [FighterID: Timestamp] = [:]
            for batch in changes.chunked(Self.largestBatch) {
                let came = batch.filter(\.connected), went = batch.filter { !$0.connected }
                if !came.isEmpty {
                    try db.send(
                        """
                        INSERT INTO presence (fighter_id, server_id, since)
                        VALUES \(Self.placeholders(came.count, each: 3))
                        ON CONFLICT (fighter_id, server_id) DO UPDATE SET since = excluded.since
                        """,
                        came.flatMap { [$0.fighter.rawValue, server, $0.at.secondsSince1970] as SQLArguments })
                }
                if !went.isEmpty {
                    try db.send(
                        "DELETE FROM presence WHERE server_id = ? AND fighter_id IN (\(Self.placeholders(went.count)))",
                        [server] + went.map(\.fighter.rawValue))
                }
                elsewhere.merge(
                    try Self.presence(of: batch.map(\.fighter), besides: server, at: now, in: db)) { $1 }
            }
            try database.announce(
                changes.filter { elsewhere[$0.fighter] == nil }.map {
                    .presence($0.fighter, connected: $0.connected, since: $0.at)
                }, in: db)
            return elsewhere
        }
    }

    /// When `fighter` connected to a server other than `server` whose lease is live at `now` (the
    /// earliest, if several), or `nil` when they are on none.
    public func presence(of fighter: FighterID, besides server: String, at now: Timestamp) throws -> Timestamp? {
        guard database.isShared else { return nil }
        return try database.readStatement { db in
            try Self.presence(of: [fighter], besides: server, at: now, in: db)[fighter]
        }
    }

    /// The most fighters one statement names: PostgreSQL takes at most 65,535 parameters, and
    /// SQLite 32,766.
    static let largestBatch = 1_000

    /// For each of `fighters` (at most `largestBatch`) connected to a server other than `server`
    /// whose lease is live at `now`, the earliest time they connected to one.
    private static func presence(
        of fighters: some Collection<FighterID>, besides server: String, at now: Timestamp, in db: any SQLSession
    ) throws -> [FighterID: Timestamp] {
        guard !fighters.isEmpty else { return [:] }
        let rows = try db.fetch(
            """
            SELECT p.fighter_id, min(p.since) AS since FROM presence p
            JOIN server_leases l ON l.server_id = p.server_id
            WHERE p.fighter_id IN (\(placeholders(fighters.count))) AND p.server_id <> ? AND l.expires_at > ?
            GROUP BY p.fighter_id
            """,
            fighters.map(\.rawValue) + [server, now.secondsSince1970])
        return Dictionary(
            uniqueKeysWithValues: try rows.map {
                (FighterID(try $0.get("fighter_id")), Timestamp(secondsSince1970: try $0.get("since")))
            })
    }

    /// `count` placeholders, or `count` rows of `each` placeholders, separated by commas.
    private static func placeholders(_ count: Int, each: Int? = nil) -> String {
        let one = each.map { "(" + Array(repeating: "?", count: $0).joined(separator: ", ") + ")" } ?? "?"
        return Array(repeating: one, count: count).joined(separator: ", ")
    }

    /// Forgets the servers whose lease has lapsed by `now` (killed, or cut off from the database)
    /// and the connections they held: each fighter then on no live server is gone since `now`,
    /// and the other servers are told. Called by every server now and then; the first to call
    /// after a lease lapses tells, the others find nothing left to forget.
    /// - Returns: the fighters gone, for the caller's own connections to be told.
    public func sweepLapsedServers(at now: Timestamp) throws -> [FighterID] {
        guard database.isShared else { return [] }
        return try database.write(.presence) { db in
            let live = "SELECT server_id FROM server_leases WHERE expires_at > ?"
            let orphaned = try db.fetch(
                "DELETE FROM presence WHERE server_id NOT IN (\(live)) RETURNING fighter_id", [now.secondsSince1970]
            ).map { FighterID(try $0.get("fighter_id", as: Int64.self)) }
            try db.send("DELETE FROM server_leases WHERE expires_at <= ?", [now.secondsSince1970])
            var gone: [FighterID] = []
            for batch in Set(orphaned).sorted().chunked(Self.largestBatch) {
                let elsewhere = try Self.presence(of: batch, besides: "", at: now, in: db)
                gone += batch.filter { elsewhere[$0] == nil }
            }
            try database.announce(gone.map { .presence($0, connected: false, since: now) }, in: db)
            return gone
        }
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
    ) throws -> Int {
        let milliseconds = now.components.seconds * 1000 + now.components.attoseconds / 1_000_000_000_000_000
        return try database.writeApart { db in
            let (larger, smaller) = db.dialect == .sqlite ? ("max", "min") : ("greatest", "least")
            // ?3 burst, ?4 now (ms), ?5 want, ?6 per second, ?7 at least.
            func taken(from held: String) -> String {
                // The whole tokens held (SQLite has no floor() unless built with its maths).
                let whole = db.dialect == .sqlite ? "CAST(\(held) AS INTEGER)" : "floor(\(held))"
                return "CASE WHEN \(held) >= ?5 THEN ?5 WHEN \(whole) >= ?7 THEN \(whole) ELSE 0 END"
            }
            // What the bucket holds now, refilled.
            let refilled = "\(smaller)(?3, b.tokens + \(larger)(0, ?4 - b.refilled_at) * ?6 / 1000.0)"
            let full = "CAST(?3 AS \(db.dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"))"
            let granted = try db.fetchValue(
                """
                INSERT INTO rate_buckets AS b (fighter_id, kind, tokens, refilled_at, allowed, granted)
                VALUES (?1, ?2, ?3 - \(taken(from: full)), ?4, \(taken(from: full)) > 0, \(taken(from: full)))
                ON CONFLICT (fighter_id, kind) DO UPDATE SET
                    tokens = \(refilled) - \(taken(from: refilled)),
                    refilled_at = \(larger)(b.refilled_at, ?4),
                    allowed = \(taken(from: refilled)) > 0,
                    granted = \(taken(from: refilled))
                RETURNING granted
                """,
                [fighter.rawValue, kind, Double(burst), milliseconds, Double(want), Double(perSecond), Double(atLeast)],
                as: Double.self) ?? 0
            return Int(granted)
        }
    }
}

extension Array {
    /// The elements in runs of `size` (the last one shorter), in order.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
