import FightEngine

// MARK: - Matchmaking

extension FightStore {
    /// The versus screen: the nearest fighter `viewer` has not been shown, within `maxDistanceKm`
    /// (the rules' radius by default), not `viewer` and not someone they are fighting. The fighter
    /// returned is remembered as shown, so "back down" is calling this again. `nil` when nobody is left.
    public func nextOpponent(
        for viewer: FighterID, at now: Timestamp, maxDistanceKm: Double? = nil
    ) throws -> Result<Matchup?, Refusal> {
        try database.write { db in
            let found = try nearestUnseen(
                for: viewer, maxDistanceKm: maxDistanceKm ?? referee.rules.matchRadiusKm, in: db)
            if case .success(let matchup?) = found {
                try db.execute(
                    "INSERT INTO shown (viewer_id, shown_id, shown_at) VALUES (?, ?, ?)",
                    [viewer.rawValue, matchup.opponent.id.rawValue, now.secondsSince1970])
            }
            return found
        }
    }

    /// The opponent `nextOpponent` would show, without remembering them (a read; no write lock).
    public func peekNextOpponent(
        for viewer: FighterID, maxDistanceKm: Double? = nil
    ) throws -> Result<Matchup?, Refusal> {
        try database.read { db in
            try nearestUnseen(for: viewer, maxDistanceKm: maxDistanceKm ?? referee.rules.matchRadiusKm, in: db)
        }
    }

    /// The database's plan for the versus screen's first step for `viewer` (the fighters in the
    /// box around them, not yet shown to them), one line a step: SQLite's `EXPLAIN QUERY PLAN`,
    /// PostgreSQL's `EXPLAIN`. Benchmarks and tests read it to check that the search goes through
    /// the index of locations (the R*Tree, the GiST index) rather than reading every fighter.
    public func nearestUnseenPlan(for viewer: FighterID, radiusKm: Double = 1) throws -> [String] {
        try nearestUnseenPlan(for: viewer, radiusKm: radiusKm, pricingScansOut: false)
    }

    /// The plan, with PostgreSQL's sequential scans priced out when `pricingScansOut`: on the
    /// few rows of a test a scan is the cheapest plan, and one that remains then means that no
    /// index can answer.
    func nearestUnseenPlan(for viewer: FighterID, radiusKm: Double, pricingScansOut: Bool) throws -> [String] {
        try database.read { db in
            if pricingScansOut, db.dialect == .postgres { try db.execute("SET LOCAL enable_seqscan = off", []) }
            guard let origin = try FighterRows.fetch(db, where: "id = ?", [viewer.rawValue]).first?.location,
                let box = GeoBox.covering(radiusKm: radiusKm, around: origin).first
            else { return [] }
            let explain = db.dialect == .sqlite ? "EXPLAIN QUERY PLAN" : "EXPLAIN"
            let column = db.dialect == .sqlite ? "detail" : "QUERY PLAN"
            return try db.fetch(
                "\(explain) \(Self.candidatesSQL(db.dialect))",
                [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude, viewer.rawValue]
            ).map { try $0.get(column, as: String.self) }
        }
    }

    /// The search behind both: it widens in rings. The index of locations gives the fighters in a box covering
    /// a circle of radius r; if the nearest of them is within r, nobody outside the box can be
    /// nearer, so it is the answer. Otherwise r doubles, up to `limit`. Dense places answer from a
    /// small box.
    func nearestUnseen(
        for viewer: FighterID, maxDistanceKm limit: Double, in db: any SQLSession
    ) throws -> Result<Matchup?, Refusal> {
        guard let me = try FighterRows.fetch(db, where: "id = ?", [viewer.rawValue]).first else {
            return .failure(.unknownFighter(viewer))
        }
        guard let origin = me.location else { return .failure(.noLocation(viewer)) }
        let fighting = try Self.opponents(of: viewer, in: db)
        var radius = min(limit, 1)
        while true {
            let candidates = try Self.fightersNotShown(to: viewer, within: radius, of: origin, in: db)
            let found = Result { () throws(Refusal) in
                try Matchmaking.nearest(to: me, among: candidates, excluding: fighting, maxDistanceKm: radius)
            }
            guard case .success(nil) = found, radius < limit else { return found }
            radius = min(limit, radius * 2)
        }
    }

    /// Fighters in the boxes covering `radiusKm` around `origin` whom `viewer` has not been shown.
    static func fightersNotShown(
        to viewer: FighterID, within radiusKm: Double, of origin: Coordinate, in db: any SQLSession
    ) throws -> [Fighter] {
        var fighters: [Fighter] = []
        for box in GeoBox.covering(radiusKm: radiusKm, around: origin) {
            let rows = try db.fetch(
                candidatesSQL(db.dialect),
                [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude, viewer.rawValue])
            fighters += try rows.map(FighterRows.decode)
        }
        return fighters
    }

    /// Fighters whose box meets a rectangle (south, north, west, east, edges included), not the
    /// viewer and not shown to the viewer. The index of locations answers the rectangle (SQLite's
    /// R*Tree, asked column by column; PostgreSQL's GiST, asked for boxes that overlap it); the
    /// fighters' rows are then looked up by primary key, so nothing is scanned.
    static func candidatesSQL(_ dialect: SQLDialect) -> String {
        let inRectangle =
            switch dialect {
            case .sqlite: "l.max_lat >= ?1 AND l.min_lat <= ?2 AND l.max_lon >= ?3 AND l.min_lon <= ?4"
            case .postgres:
                "box(point(l.min_lat, l.min_lon), point(l.max_lat, l.max_lon)) && box(point(?1, ?3), point(?2, ?4))"
            }
        return """
            SELECT \(FighterRows.selection(of: "f", in: dialect)) FROM fighter_locations l JOIN fighters f ON f.id = l.id
            WHERE \(inRectangle)
              AND l.id != ?5
              AND NOT EXISTS (SELECT 1 FROM shown s WHERE s.viewer_id = ?5 AND s.shown_id = l.id)
            """
    }
}
