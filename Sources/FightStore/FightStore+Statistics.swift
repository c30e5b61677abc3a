import FightEngine

// MARK: - Statistics

extension FightStore {
    /// The statistics as kept up to date while fights ended.
    public func statistics() throws -> Statistics {
        try database.readStatement { db in try StatisticsRows.fetchAll(db) }
    }

    /// The saved lines of `scopes` only, read together and each by its key: what one fighter asks
    /// for, without reading every line. A scope that never fought reads as zero, as in `statistics()`.
    public func statistics(_ scopes: [StatScope]) throws -> Statistics {
        try database.read { db in Statistics(lines: try StatisticsRows.fetch(scopes, in: db)) }
    }

    /// Throws the saved statistics away, rebuilds them from the event log alone, saves and returns them.
    @discardableResult
    public func rebuildStatistics() throws -> Statistics {
        try database.write { db in
            try db.execute("DELETE FROM statistics", [])
            try StatisticsRows.record(try EventRows.fetch(db), in: db)
            return try StatisticsRows.fetchAll(db)
        }
    }
}

enum StatisticsRows {
    /// Adds the engine's statistics entries for `events` to the saved lines, each line written
    /// once and none read: a line is a count and a latest moment, so what a command adds (its
    /// battles, its wins, its latest ones) is added in SQL to whatever is saved when it commits.
    /// Two fights that end at once on two servers (whose writers run side by side, `WriteScope`)
    /// both count on the overall line, which a line read, added to and written back would not.
    static func record(_ events: [Event], in db: any SQLSession) throws {
        var added: [StatScope: StatLine] = [:]
        var scopes: [StatScope] = []
        for entry in events.flatMap(Statistics.entries(for:)) {
            if added[entry.scope] == nil { scopes.append(entry.scope) }
            added[entry.scope] = (added[entry.scope] ?? StatLine()).recording(battleAt: entry.at, won: entry.won)
        }
        for scope in scopes {
            let key = columns(scope), line = added[scope] ?? StatLine()
            try db.send(
                """
                INSERT INTO statistics (scope, fighter_id, versus_id, qty_battles, qty_wins, last_battle, last_win)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (scope, fighter_id, versus_id) DO UPDATE SET
                    qty_battles = statistics.qty_battles + excluded.qty_battles,
                    qty_wins = statistics.qty_wins + excluded.qty_wins,
                    last_battle = \(later("last_battle")), last_win = \(later("last_win"))
                """,
                [
                    key.scope, key.fighter, key.versus, line.qtyBattles, line.qtyWins,
                    line.lastBattle?.secondsSince1970, line.lastWin?.secondsSince1970,
                ])
        }
    }

    /// The later of the saved and the added moment in `column`, either of which may be NULL (as
    /// `StatLine.recording` takes the later one), in words both databases read alike.
    private static func later(_ column: String) -> String {
        """
        CASE WHEN excluded.\(column) IS NULL OR statistics.\(column) >= excluded.\(column) \
        THEN statistics.\(column) ELSE excluded.\(column) END
        """
    }

    /// The saved lines of `scopes` (those never saved are missing), read by their keys, a
    /// statement for each `largestRead` of them.
    static func fetch(_ scopes: [StatScope], in db: any SQLSession) throws -> [StatScope: StatLine] {
        var lines: [StatScope: StatLine] = [:]
        for batch in scopes.chunked(largestRead) {
            let keys = batch.map(columns)
            let condition = Array(repeating: "(scope = ? AND fighter_id = ? AND versus_id = ?)", count: keys.count)
                .joined(separator: " OR ")
            let rows = try db.fetch(
                "SELECT * FROM statistics WHERE \(condition)", keys.flatMap { key -> SQLArguments in [key.scope, key.fighter, key.versus] })
            for row in rows { lines[try scope(of: row)] = try decode(row) }
        }
        return lines
    }

    /// The most lines one statement reads by their keys: three arguments each, well under either
    /// database's limit, and a question short enough for PostgreSQL to plan as one index scan each.
    static let largestRead = 100

    static func fetchAll(_ db: any SQLSession) throws -> Statistics {
        var lines: [StatScope: StatLine] = [:]
        for row in try db.fetch("SELECT * FROM statistics", []) { lines[try scope(of: row)] = try decode(row) }
        return Statistics(lines: lines)
    }

    /// Whose statistics `row` holds.
    static func scope(of row: SQLRow) throws -> StatScope {
        let fighter = FighterID(try row.get("fighter_id")), versus = FighterID(try row.get("versus_id"))
        switch try row.get("scope", as: String.self) {
        case "overall": return .overall
        case "fighter": return .fighter(fighter)
        case "pair": return .pair(fighter, versus: versus)
        case let other:
            throw StoreError(table: "statistics", rowID: fighter.rawValue, problem: "unknown scope '\(other)'")
        }
    }

    static func decode(_ row: SQLRow) throws -> StatLine {
        StatLine(
            qtyBattles: try row.get("qty_battles"), qtyWins: try row.get("qty_wins"),
            lastBattle: try row.get("last_battle", as: Int64?.self).map { Timestamp(secondsSince1970: $0) },
            lastWin: try row.get("last_win", as: Int64?.self).map { Timestamp(secondsSince1970: $0) })
    }

    static func columns(_ scope: StatScope) -> (scope: String, fighter: Int64, versus: Int64) {
        switch scope {
        case .overall: ("overall", 0, 0)
        case .fighter(let id): ("fighter", id.rawValue, 0)
        case .pair(let id, let versus): ("pair", id.rawValue, versus.rawValue)
        }
    }
}
