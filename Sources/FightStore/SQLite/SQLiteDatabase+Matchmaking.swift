import FightEngine
import GRDB

// MARK: - Matchmaking and sharing on SQLite

/// The versus screen's search through the R*Tree, and what a file nobody else shares makes of
/// leases, presence and allowances. Compare `PostgresDatabase+Matchmaking`.
extension SQLiteDatabase {
    func nearestUnseen(for viewer: FighterID, maxDistanceKm limit: Double, showingAt now: Timestamp?) async throws
        -> Result<Matchup?, Refusal>
    {
        let search: @Sendable (Database) throws -> Result<Matchup?, Refusal> = { db in
            guard let me = try Self.fighters(db, where: "id = \(viewer.rawValue)").first else {
                return .failure(.unknownFighter(viewer))
            }
            guard var search = RingSearch(me: me, fighting: try Self.opponents(of: viewer, in: db), limit: limit) else {
                return .failure(.noLocation(viewer))
            }
            var found: Result<Matchup?, Refusal>?
            while found == nil {
                found = search.judge(try search.boxes.flatMap { try Self.candidates(in: $0, notShownTo: viewer, in: db) })
            }
            if let now, case .success(let matchup?)? = found {
                try db.run(
                    """
                    INSERT INTO shown (viewer_id, shown_id, shown_at)
                    VALUES (\(viewer.rawValue), \(matchup.opponent.id.rawValue), \(now.secondsSince1970))
                    """)
            }
            return found!
        }
        return now == nil ? try await read(search) : try await write(search)
    }

    func nearestUnseenPlan(for viewer: FighterID, radiusKm: Double, pricingScansOut: Bool) async throws -> [String] {
        try await read { db in
            guard let origin = try Self.fighters(db, where: "id = \(viewer.rawValue)").first?.location,
                let box = GeoBox.covering(radiusKm: radiusKm, around: origin).first
            else { return [] }
            return try db.rows("EXPLAIN QUERY PLAN \(Self.candidatesSQL(in: box, notShownTo: viewer))")
                .map { try $0.get("detail", as: String.self) }
        }
    }

    /// Fighters whose box meets `box` (edges included), asked of the R*Tree column by column, not
    /// `viewer` and not shown to them; their rows then looked up by primary key.
    static func candidatesSQL(in box: GeoBox, notShownTo viewer: FighterID) -> SQL {
        """
        SELECT \(fighterColumns(of: "f")) FROM fighter_locations l JOIN fighters f ON f.id = l.id
        WHERE l.max_lat >= \(box.minLatitude) AND l.min_lat <= \(box.maxLatitude)
          AND l.max_lon >= \(box.minLongitude) AND l.min_lon <= \(box.maxLongitude)
          AND l.id != \(viewer.rawValue)
          AND NOT EXISTS (SELECT 1 FROM shown s WHERE s.viewer_id = \(viewer.rawValue) AND s.shown_id = l.id)
        """
    }

    static func candidates(in box: GeoBox, notShownTo viewer: FighterID, in db: Database) throws -> [Fighter] {
        try db.rows(candidatesSQL(in: box, notShownTo: viewer)).map(FighterRows.decode)
    }

    // MARK: One server a file

    /// One server a file: there is nobody to tell, and nobody tells.
    var isShared: Bool { false }
    func changes() -> AsyncStream<StoreChange>? { nil }

    /// The server is alone, whatever its name: every turn under way starts afresh.
    func startServing(
        as server: String, named name: String?, at now: Timestamp, leaseUntil expiry: Timestamp,
        replacing stale: ServerLease?, referee: Referee
    ) async throws -> ServingStart {
        try await write { db in
            .alone(resumed: try Self.apply(.resumeTurns, at: now, referee: referee, in: db).get())
        }
    }

    func renewLease(of server: String, named name: String?, until expiry: Timestamp) async throws -> Bool { true }
    func endLease(of server: String) async throws {}

    func liveServers(at now: Timestamp) async throws -> [String] {
        try await read { db in
            try db.rows("SELECT server_id FROM server_leases WHERE expires_at > \(now.secondsSince1970) ORDER BY server_id")
                .map { try $0.get("server_id") }
        }
    }

    func notePresence(_ changes: [PresenceChange], on server: String) async throws -> [FighterID: Timestamp] { [:] }
    func presence(of fighter: FighterID, besides server: String, at now: Timestamp) async throws -> Timestamp? { nil }
    func sweepLapsedServers(at now: Timestamp) async throws -> [FighterID] { [] }

    /// The fight logs of one file are all this server's: it pushed them as it saved them.
    func events(after sequences: [FightID: Int]) async throws -> [FightID: FightNews] {
        try await read { db in
            var news: [FightID: FightNews] = [:]
            for (fight, after) in sequences {
                for row in try db.rows(
                    """
                    SELECT e.id, e.body, f.challenger_id, f.opponent_id FROM events e JOIN fights f ON f.id = e.fight_id
                    WHERE e.fight_id = \(fight.rawValue) AND e.sequence > \(after) ORDER BY e.sequence
                    """)
                {
                    try FightNews.add(row, to: &news)
                }
            }
            return news
        }
    }

    /// A token bucket in the file, taken from by one statement (see `FightStore.takeAllowance`);
    /// its numbers by name, each used several times.
    func takeAllowance(_ request: AllowanceRequest) async throws -> Int {
        try await write { db in
            let taken = { (held: String) in
                // The whole tokens held: SQLite has no floor() unless built with its maths.
                "CASE WHEN \(held) >= :want THEN :want WHEN CAST(\(held) AS INTEGER) >= :least THEN CAST(\(held) AS INTEGER) ELSE 0 END"
            }
            let refilled = "min(:burst, b.tokens + max(0, :now - b.refilled_at) * :rate / 1000.0)"
            let full = "CAST(:burst AS REAL)"
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO rate_buckets AS b (fighter_id, kind, tokens, refilled_at, allowed, granted)
                    VALUES (:fighter, :kind, :burst - \(taken(full)), :now, \(taken(full)) > 0, \(taken(full)))
                    ON CONFLICT (fighter_id, kind) DO UPDATE SET
                        tokens = \(refilled) - \(taken(refilled)),
                        refilled_at = max(b.refilled_at, :now),
                        allowed = \(taken(refilled)) > 0,
                        granted = \(taken(refilled))
                    RETURNING granted
                    """)
            let granted = try Double.fetchOne(
                statement,
                arguments: [
                    "fighter": request.fighter.rawValue, "kind": request.kind, "burst": request.burst,
                    "now": request.now, "want": request.want, "rate": request.perSecond, "least": request.atLeast,
                ])
            return Int(granted ?? 0)
        }
    }
}

extension FightNews {
    /// Adds the event in `row` (with its fight's corners) to `news`.
    static func add(_ row: SQLRow, to news: inout [FightID: FightNews]) throws {
        guard case .fight(let event) = try EventRows.decode(row) else { return }
        let corners = Both(FighterID(try row.get("challenger_id")), FighterID(try row.get("opponent_id")))
        news[event.fight, default: FightNews(corners: corners, events: [])].events.append(event)
    }
}
