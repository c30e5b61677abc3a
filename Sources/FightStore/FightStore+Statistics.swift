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
        try database.read { db in
            var lines: [StatScope: StatLine] = [:]
            for scope in scopes {
                let key = StatisticsRows.columns(scope)
                let saved = try db.fetch(StatisticsRows.lineSQL, [key.scope, key.fighter, key.versus]).first
                lines[scope] = try saved.map(StatisticsRows.decode)
            }
            return Statistics(lines: lines)
        }
    }

    /// Throws the saved statistics away, rebuilds them from the event log alone, saves and returns them.
    @discardableResult
    public func rebuildStatistics() throws -> Statistics {
        try database.write { db in
            try db.execute("DELETE FROM statistics", [])
            for event in try EventRows.fetch(db) { try StatisticsRows.record(event, in: db) }
            return try StatisticsRows.fetchAll(db)
        }
    }
}

enum StatisticsRows {
    /// Applies the engine's statistics entries for `event` to the saved lines.
    static func record(_ event: Event, in db: any SQLSession) throws {
        for entry in Statistics.entries(for: event) {
            let key = columns(entry.scope)
            let arguments: SQLArguments = [key.scope, key.fighter, key.versus]
            let saved = try db.fetch(lineSQL, arguments).first
            let line = (try saved.map(decode) ?? StatLine()).recording(battleAt: entry.at, won: entry.won)
            try db.send(
                """
                INSERT INTO statistics (scope, fighter_id, versus_id, qty_battles, qty_wins, last_battle, last_win)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (scope, fighter_id, versus_id) DO UPDATE SET
                    qty_battles = excluded.qty_battles, qty_wins = excluded.qty_wins,
                    last_battle = excluded.last_battle, last_win = excluded.last_win
                """,
                arguments + [
                    line.qtyBattles, line.qtyWins, line.lastBattle?.secondsSince1970, line.lastWin?.secondsSince1970,
                ])
        }
    }

    /// One line, by its key.
    static let lineSQL = "SELECT * FROM statistics WHERE scope = ? AND fighter_id = ? AND versus_id = ?"

    static func fetchAll(_ db: any SQLSession) throws -> Statistics {
        var lines: [StatScope: StatLine] = [:]
        for row in try db.fetch("SELECT * FROM statistics", []) {
            let fighter = FighterID(try row.get("fighter_id")), versus = FighterID(try row.get("versus_id"))
            let scope: StatScope
            switch try row.get("scope", as: String.self) {
            case "overall": scope = .overall
            case "fighter": scope = .fighter(fighter)
            case "pair": scope = .pair(fighter, versus: versus)
            case let other:
                throw StoreError(table: "statistics", rowID: fighter.rawValue, problem: "unknown scope '\(other)'")
            }
            lines[scope] = try decode(row)
        }
        return Statistics(lines: lines)
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
