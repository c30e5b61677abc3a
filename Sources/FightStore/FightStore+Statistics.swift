import FightEngine
import GRDB

// MARK: - Statistics

extension FightStore {
    /// The statistics as kept up to date while fights ended.
    public func statistics() throws -> Statistics {
        try database.read { db in try StatisticsRows.fetchAll(db) }
    }

    /// The saved lines of `scopes` only, read together and each by its key: what one fighter asks
    /// for, without reading every line. A scope that never fought reads as zero, as in `statistics()`.
    public func statistics(_ scopes: [StatScope]) throws -> Statistics {
        try database.read { db in
            var lines: [StatScope: StatLine] = [:]
            for scope in scopes {
                let key = StatisticsRows.columns(scope)
                let saved = try Row.fetchOne(
                    db.cachedStatement(sql: StatisticsRows.lineSQL), arguments: [key.scope, key.fighter, key.versus])
                lines[scope] = saved.map(StatisticsRows.decode)
            }
            return Statistics(lines: lines)
        }
    }

    /// Throws the saved statistics away, rebuilds them from the event log alone, saves and returns them.
    @discardableResult
    public func rebuildStatistics() throws -> Statistics {
        try immediateTransaction { db in
            try db.cachedStatement(sql: "DELETE FROM statistics").execute()
            for event in try EventRows.fetch(db) { try StatisticsRows.record(event, in: db) }
            return try StatisticsRows.fetchAll(db)
        }
    }
}

enum StatisticsRows {
    /// Applies the engine's statistics entries for `event` to the saved lines.
    static func record(_ event: Event, in db: Database) throws {
        for entry in Statistics.entries(for: event) {
            let key = columns(entry.scope)
            let arguments: StatementArguments = [key.scope, key.fighter, key.versus]
            let saved = try Row.fetchOne(db.cachedStatement(sql: lineSQL), arguments: arguments)
            let line = (saved.map(decode) ?? StatLine()).recording(battleAt: entry.at, won: entry.won)
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO statistics VALUES (?, ?, ?, ?, ?, ?, ?)"
            ).execute(
                arguments: arguments + [
                    line.qtyBattles, line.qtyWins, line.lastBattle?.secondsSince1970, line.lastWin?.secondsSince1970,
                ])
        }
    }

    /// One line, by its key.
    static let lineSQL = "SELECT * FROM statistics WHERE scope = ? AND fighter_id = ? AND versus_id = ?"

    static func fetchAll(_ db: Database) throws -> Statistics {
        var lines: [StatScope: StatLine] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM statistics")) {
            let fighter = FighterID(row["fighter_id"]), versus = FighterID(row["versus_id"])
            let scope: StatScope
            switch row["scope"] as String {
            case "overall": scope = .overall
            case "fighter": scope = .fighter(fighter)
            case "pair": scope = .pair(fighter, versus: versus)
            case let other:
                throw StoreError(table: "statistics", rowID: fighter.rawValue, problem: "unknown scope '\(other)'")
            }
            lines[scope] = decode(row)
        }
        return Statistics(lines: lines)
    }

    static func decode(_ row: Row) -> StatLine {
        StatLine(
            qtyBattles: row["qty_battles"], qtyWins: row["qty_wins"],
            lastBattle: (row["last_battle"] as Int64?).map { Timestamp(secondsSince1970: $0) },
            lastWin: (row["last_win"] as Int64?).map { Timestamp(secondsSince1970: $0) })
    }

    static func columns(_ scope: StatScope) -> (scope: String, fighter: Int64, versus: Int64) {
        switch scope {
        case .overall: ("overall", 0, 0)
        case .fighter(let id): ("fighter", id.rawValue, 0)
        case .pair(let id, let versus): ("pair", id.rawValue, versus.rawValue)
        }
    }
}
