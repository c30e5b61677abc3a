#if PostgreSQL
    import FightEngine
    import PostgresNIO

    // MARK: - Matchmaking and sharing on PostgreSQL

    /// The versus screen's search through the GiST index of boxes, and what several servers on
    /// one database share: leases, presence, the log's news and allowances. Compare
    /// `SQLiteDatabase+Matchmaking`.
    extension PostgresDatabase {
        func nearestUnseen(for viewer: FighterID, maxDistanceKm limit: Double, showingAt now: Timestamp?) async throws
            -> Result<Matchup?, Refusal>
        {
            let search: @Sendable (PostgresSession) async throws -> Result<Matchup?, Refusal> = { session in
                guard let me = try await Self.fighters(session, where: "id = \(viewer.rawValue)").first else {
                    return .failure(.unknownFighter(viewer))
                }
                let fighting = Set(try await session.rows(Self.opponentsQuery(of: viewer)).map { FighterID(try $0.get("id")) })
                guard var search = RingSearch(me: me, fighting: fighting, limit: limit) else {
                    return .failure(.noLocation(viewer))
                }
                while true {
                    var candidates: [Fighter] = []
                    for box in search.boxes {
                        candidates += try await session.rows(Self.candidates(in: box, notShownTo: viewer))
                            .map(FighterRows.decode)
                    }
                    guard let found = search.judge(candidates) else { continue }
                    if let now, case .success(let matchup?) = found {
                        session.send(
                            """
                            INSERT INTO shown (viewer_id, shown_id, shown_at)
                            VALUES (\(viewer.rawValue), \(matchup.opponent.id.rawValue), \(now.secondsSince1970))
                            """)
                    }
                    return found
                }
            }
            return now == nil ? try await read(search) : try await write(.everything, search)
        }

        func nearestUnseenPlan(for viewer: FighterID, radiusKm: Double, pricingScansOut: Bool) async throws -> [String] {
            try await read { session in
                if pricingScansOut { try await session.run("SET LOCAL enable_seqscan = off") }
                guard let origin = try await Self.fighters(session, where: "id = \(viewer.rawValue)").first?.location,
                    let box = GeoBox.covering(radiusKm: radiusKm, around: origin).first
                else { return [] }
                var explain: PostgresQuery = "EXPLAIN "
                let candidates = Self.candidates(in: box, notShownTo: viewer)
                explain.sql += candidates.sql
                explain.binds = candidates.binds
                return try await session.rows(explain).map { try $0.get("QUERY PLAN", as: String.self) }
            }
        }

        /// Fighters whose box overlaps `box` (edges included), asked of the GiST index, not
        /// `viewer` and not shown to them; their rows then looked up by primary key.
        static func candidates(in box: GeoBox, notShownTo viewer: FighterID) -> PostgresQuery {
            """
            SELECT \(unescaped: FighterRows.selection(of: "f", wholeText: false))
            FROM fighter_locations l JOIN fighters f ON f.id = l.id
            WHERE box(point(l.min_lat, l.min_lon), point(l.max_lat, l.max_lon))
                && box(point(\(box.minLatitude), \(box.minLongitude)), point(\(box.maxLatitude), \(box.maxLongitude)))
              AND l.id != \(viewer.rawValue)
              AND NOT EXISTS (SELECT 1 FROM shown s WHERE s.viewer_id = \(viewer.rawValue) AND s.shown_id = l.id)
            """
        }

        // MARK: The log's news

        /// One statement for every fight, their sequences given as two arrays.
        func events(after sequences: [FightID: Int]) async throws -> [FightID: FightNews] {
            let fights = sequences.keys.sorted()
            let (ids, afters) = (fights.map(\.rawValue), fights.map { Int64(sequences[$0] ?? 0) })
            var news: [FightID: FightNews] = [:]
            for row in try await rows(
                """
                SELECT e.id, e.body, f.challenger_id, f.opponent_id
                FROM unnest(\(ids), \(afters)) AS w(fight_id, seen)
                JOIN events e ON e.fight_id = w.fight_id AND e.sequence > w.seen
                JOIN fights f ON f.id = e.fight_id
                ORDER BY e.fight_id, e.sequence
                """)
            {
                try FightNews.add(row, to: &news)
            }
            return news
        }

        // MARK: Leases

        func startServing(
            as server: String, named name: String?, at now: Timestamp, leaseUntil expiry: Timestamp,
            replacing stale: ServerLease?, referee: Referee
        ) async throws -> ServingStart {
            try await write(.everything) { session in
                try await session.run("DELETE FROM server_leases WHERE expires_at <= \(now.secondsSince1970)")
                if let name, let held = try await Self.lease(named: name, besides: server, in: session) {
                    guard held == stale else { return .nameHeld(held) }
                    // Its renewal and this transaction take no lock in common: delete it only as seen.
                    let gone = try await session.run(
                        """
                        DELETE FROM server_leases
                        WHERE server_id = \(held.server) AND expires_at = \(held.expiresAt.secondsSince1970)
                        """)
                    if gone == 0, let renewed = try await Self.lease(named: name, besides: server, in: session) {
                        return .nameHeld(renewed)
                    }
                }
                let others = try await session.rows(
                    "SELECT count(*) AS others FROM server_leases WHERE server_id <> \(server)"
                ).first?.get("others", as: Int64.self) ?? 0
                session.send(Self.lease(server, named: name, until: expiry))
                guard others == 0 else { return .joined(liveServers: Int(others)) }
                return .alone(resumed: try await self.apply(.resumeTurns, at: now, referee: referee, in: session).get())
            }
        }

        func renewLease(of server: String, named name: String?, until expiry: Timestamp) async throws -> Bool {
            guard let name else {
                try await run(Self.lease(server, named: nil, until: expiry))
                return true
            }
            return try await run(
                """
                INSERT INTO server_leases (server_id, name, expires_at)
                SELECT CAST(\(server) AS TEXT), CAST(\(name) AS TEXT), CAST(\(expiry.secondsSince1970) AS BIGINT)
                WHERE NOT EXISTS (SELECT 1 FROM server_leases WHERE name = \(name) AND server_id <> \(server))
                ON CONFLICT (server_id) DO UPDATE SET expires_at = excluded.expires_at
                """) > 0
        }

        func endLease(of server: String) async throws {
            try await run("DELETE FROM server_leases WHERE server_id = \(server)")
        }

        func liveServers(at now: Timestamp) async throws -> [String] {
            try await rows(
                "SELECT server_id FROM server_leases WHERE expires_at > \(now.secondsSince1970) ORDER BY server_id"
            ).map { try $0.get("server_id") }
        }

        private static func lease(_ server: String, named name: String?, until expiry: Timestamp) -> PostgresQuery {
            """
            INSERT INTO server_leases (server_id, name, expires_at) VALUES (\(server), \(name), \(expiry.secondsSince1970))
            ON CONFLICT (server_id) DO UPDATE SET expires_at = excluded.expires_at
            """
        }

        /// The lease of another run than `server` carrying `name`, if one is left (live or not).
        private static func lease(named name: String, besides server: String, in session: PostgresSession)
            async throws -> ServerLease?
        {
            try await session.rows(
                "SELECT server_id, expires_at FROM server_leases WHERE name = \(name) AND server_id <> \(server)"
            ).first.map {
                ServerLease(
                    server: try $0.get("server_id"),
                    expiresAt: Timestamp(secondsSince1970: try $0.get("expires_at", as: Int64.self)))
            }
        }

        // MARK: Presence

        func notePresence(_ changes: [PresenceChange], on server: String) async throws -> [FighterID: Timestamp] {
            guard let now = changes.map(\.at).max() else { return [:] }
            let came = changes.filter(\.connected), went = changes.filter { !$0.connected }
            return try await write(.presence) { session in
                if !came.isEmpty {
                    let (ids, since) = (came.map(\.fighter.rawValue), came.map(\.at.secondsSince1970))
                    session.send(
                        """
                        INSERT INTO presence (fighter_id, server_id, since)
                        SELECT fighter_id, \(server), since FROM unnest(\(ids), \(since)) AS c(fighter_id, since)
                        ON CONFLICT (fighter_id, server_id) DO UPDATE SET since = excluded.since
                        """)
                }
                if !went.isEmpty {
                    let ids = went.map(\.fighter.rawValue)
                    session.send("DELETE FROM presence WHERE server_id = \(server) AND fighter_id = ANY(\(ids))")
                }
                let elsewhere = try await Self.presence(of: changes.map(\.fighter), besides: server, at: now, in: session)
                try self.announce(
                    changes.filter { elsewhere[$0.fighter] == nil }.map {
                        .presence($0.fighter, connected: $0.connected, since: $0.at)
                    }, in: session)
                return elsewhere
            }
        }

        func presence(of fighter: FighterID, besides server: String, at now: Timestamp) async throws -> Timestamp? {
            try await withConnection { [logger] connection in
                try await Self.presence(
                    of: [fighter], besides: server, at: now, in: PostgresSession(connection, logger: logger))[fighter]
            }
        }

        /// For each of `fighters` connected to a server other than `server` whose lease is live
        /// at `now`, the earliest time they connected to one.
        private static func presence(
            of fighters: [FighterID], besides server: String, at now: Timestamp, in session: PostgresSession
        ) async throws -> [FighterID: Timestamp] {
            guard !fighters.isEmpty else { return [:] }
            let ids = fighters.map(\.rawValue)
            let rows = try await session.rows(
                """
                SELECT p.fighter_id, min(p.since) AS since FROM presence p
                JOIN server_leases l ON l.server_id = p.server_id
                WHERE p.fighter_id = ANY(\(ids)) AND p.server_id <> \(server) AND l.expires_at > \(now.secondsSince1970)
                GROUP BY p.fighter_id
                """)
            return Dictionary(
                uniqueKeysWithValues: try rows.map {
                    (FighterID(try $0.get("fighter_id")), Timestamp(secondsSince1970: try $0.get("since")))
                })
        }

        func sweepLapsedServers(at now: Timestamp) async throws -> [FighterID] {
            try await write(.presence) { session in
                let orphaned = try await session.rows(
                    """
                    DELETE FROM presence
                    WHERE server_id NOT IN (SELECT server_id FROM server_leases WHERE expires_at > \(now.secondsSince1970))
                    RETURNING fighter_id
                    """
                ).map { FighterID(try $0.get("fighter_id", as: Int64.self)) }
                session.send("DELETE FROM server_leases WHERE expires_at <= \(now.secondsSince1970)")
                let candidates = Set(orphaned).sorted()
                let elsewhere = try await Self.presence(of: candidates, besides: "", at: now, in: session)
                let gone = candidates.filter { elsewhere[$0] == nil }
                try self.announce(gone.map { .presence($0, connected: false, since: now) }, in: session)
                return gone
            }
        }

        // MARK: Allowances

        /// One statement, outside the commands' writers' locks: a fighter's bucket row is locked
        /// by its upsert alone, so two servers taking from it at once take in turn. Its numbers
        /// given once, as a row of their own (`a`) that the upsert's expressions read.
        func takeAllowance(_ r: AllowanceRequest) async throws -> Int {
            let taken = { (held: String) in
                "CASE WHEN \(held) >= want THEN want WHEN floor(\(held)) >= at_least THEN floor(\(held)) ELSE 0 END"
            }
            // What the bucket holds now, refilled.
            let refilled = "least(burst, b.tokens + greatest(0, now_ms - b.refilled_at) * rate / 1000.0)"
            let granted = try await rows(
                """
                WITH a AS (
                    SELECT \(r.fighter.rawValue) AS fighter, \(r.kind) AS kind, \(r.burst) AS burst, \(r.now) AS now_ms,
                        \(r.want) AS want, \(r.perSecond) AS rate, \(r.atLeast) AS at_least)
                INSERT INTO rate_buckets AS b (fighter_id, kind, tokens, refilled_at, allowed, granted)
                SELECT fighter, kind, burst - \(unescaped: taken("burst")), now_ms, \(unescaped: taken("burst")) > 0,
                    \(unescaped: taken("burst"))
                FROM a
                ON CONFLICT (fighter_id, kind) DO UPDATE SET
                    tokens = (SELECT \(unescaped: refilled) - \(unescaped: taken(refilled)) FROM a),
                    refilled_at = (SELECT greatest(b.refilled_at, now_ms) FROM a),
                    allowed = (SELECT \(unescaped: taken(refilled)) > 0 FROM a),
                    granted = (SELECT \(unescaped: taken(refilled)) FROM a)
                RETURNING granted
                """
            ).first?.get("granted", as: Double.self) ?? 0
            return Int(granted)
        }
    }
#endif
