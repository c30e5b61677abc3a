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
    /// Applies the engine's statistics entries for `events`, in order, to the saved lines: the
    /// lines they move are read together (one wait on PostgreSQL for a fight that ends, not one
    /// for each of its five lines) and each is written once.
    static func record(_ events: [Event], in db: any SQLSession) throws {
        let entries = events.flatMap(Statistics.entries(for:))
        guard !entries.isEmpty else { return }
        var scopes: [StatScope] = []
        for entry in entries where !scopes.contains(entry.scope) { scopes.append(entry.scope) }
        var lines = try fetch(scopes, in: db)
        for entry in entries {
            lines[entry.scope] = (lines[entry.scope] ?? StatLine()).recording(battleAt: entry.at, won: entry.won)
        }
        for scope in scopes {
            let key = columns(scope), line = lines[scope] ?? StatLine()
            try db.send(
                """
                INSERT INTO statistics (scope, fighter_id, versus_id, qty_battles, qty_wins, last_battle, last_win)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (scope, fighter_id, versus_id) DO UPDATE SET
                    qty_battles = excluded.qty_battles, qty_wins = excluded.qty_wins,
                    last_battle = excluded.last_battle, last_win = excluded.last_win
                """,
                [
                    key.scope, key.fighter, key.versus, line.qtyBattles, line.qtyWins,
                    line.lastBattle?.secondsSince1970, line.lastWin?.secondsSince1970,
                ])
        }
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
