import FightEngine
import Foundation
import GRDB

// MARK: - Commands on SQLite

/// A command's transaction (`CommandPlan`) in SQLite's SQL. Compare `PostgresDatabase+Commands`.
extension SQLiteDatabase {
    func execute(_ commands: [Command], scope: WriteScope, at now: Timestamp, referee: Referee) async throws
        -> [Result<[Event], Refusal>]
    {
        try await write { db in try commands.map { try Self.apply($0, at: now, referee: referee, in: db) } }
    }

    /// Load → reduce → save of one command, in `db`'s write transaction.
    static func apply(_ command: Command, at now: Timestamp, referee: Referee, in db: Database) throws
        -> Result<[Event], Refusal>
    {
        var (before, missing) = CommandPlan.state(from: try answer(CommandPlan.questions(for: command, at: now), in: db))
        if !missing.isEmpty {
            for fighter in try fighters(db, where: "id IN \(missing.map(\.rawValue))") {
                before.fighters[fighter.id] = fighter
            }
        }
        let outcome = referee.reduce(before, command, at: now)
        guard case .success(let transition) = outcome else { return outcome.map(\.events) }
        for write in CommandPlan.writes(of: transition, replacing: before) { try perform(write, in: db) }
        return .success(transition.events)
    }

    static func answer(_ questions: CommandPlan.Questions, in db: Database) throws -> CommandPlan.Answers {
        var answers = CommandPlan.Answers()
        if let next = try db.rows(
            """
            SELECT (SELECT coalesce(max(id), 0) + 1 FROM fighters) AS fighter,
                (SELECT coalesce(max(id), 0) + 1 FROM fights) AS fight
            """
        ).first {
            answers.nextFighter = try next.get("fighter")
            answers.nextFight = try next.get("fight")
        }
        if let id = questions.fight, let fight = try fight(db, id) {
            answers.fights.append(fight)
        }
        // One list of values, the fight's corners among them as scalar subqueries: looked up in
        // the primary key.
        var ids: [SQL] = questions.fighters.map { "\($0.rawValue)" }
        if let id = questions.fight {
            ids += [
                "(SELECT challenger_id FROM fights WHERE id = \(id.rawValue))",
                "(SELECT opponent_id FROM fights WHERE id = \(id.rawValue))",
            ]
        }
        if !ids.isEmpty {
            answers.fighters += try fighters(db, where: "id IN (\(ids.joined(separator: ", ")))")
        }
        if let key = questions.usernameKey {
            answers.fighters += try fighters(db, where: "username_key = CAST(\(WholeText.bytes(key)) AS TEXT)")
        }
        switch questions.openFights {
        case .pair(let low, let high)?:
            answers.fights += try fights(
                db, "SELECT id, body FROM fights WHERE is_open AND pair_low = \(low) AND pair_high = \(high)")
        case .of(let fighter)?:
            answers.fights += try fights(
                db,
                """
                SELECT id, body FROM fights WHERE is_open AND challenger_id = \(fighter.rawValue)
                UNION ALL SELECT id, body FROM fights WHERE is_open AND opponent_id = \(fighter.rawValue)
                """)
        case .due(let moment)?:
            answers.fights += try fights(db, "SELECT id, body FROM fights WHERE is_open AND deadline <= \(moment)")
        case nil:
            break
        }
        switch questions.rooms {
        case .all?: answers.rooms = try db.rows("SELECT fighter_id, opened_at FROM rooms").map(RoomRows.decode)
        case .of(let fighter)?:
            answers.rooms = try db.rows("SELECT fighter_id, opened_at FROM rooms WHERE fighter_id = \(fighter.rawValue)")
                .map(RoomRows.decode)
        case nil: break
        }
        return answers
    }

    func perform(_ writes: [CommandPlan.Write]) async throws {
        try await write { db in for write in writes { try Self.perform(write, in: db) } }
    }

    static func perform(_ write: CommandPlan.Write, in db: Database) throws {
        switch write {
        case .fighter(let f, let moved):
            try db.run(
                """
                INSERT INTO fighters (\(sql: FighterRows.columns), username_key) VALUES (
                    \(f.id.rawValue), \(f.username.rawValue), CAST(\(WholeText.bytes(f.displayName)) AS TEXT),
                    CAST(\(WholeText.bytes(f.bio)) AS TEXT), \(f.location?.latitude), \(f.location?.longitude),
                    \(f.profile.heightCm), \(f.profile.weightKg), \(f.profile.reachCm),
                    \(f.record.wins), \(f.record.losses), \(f.record.draws), \(f.joinedAt.secondsSince1970),
                    \(f.username.key))
                \(sql: FighterRows.upsert)
                """)
            guard moved else { return }
            // Deleted and inserted again: the R*Tree, a virtual table, takes no ON CONFLICT clause.
            try db.run("DELETE FROM fighter_locations WHERE id = \(f.id.rawValue)")
            if let at = f.location {
                try db.run(
                    """
                    INSERT INTO fighter_locations (id, min_lat, max_lat, min_lon, max_lon)
                    VALUES (\(f.id.rawValue), \(at.latitude), \(at.latitude), \(at.longitude), \(at.longitude))
                    """)
            }
        case .fight(let fight):
            try save(fight, in: db)
        case .roomClosed(let fighter):
            try db.run("DELETE FROM rooms WHERE fighter_id = \(fighter.rawValue)")
        case .roomOpened(let room):
            try db.run(
                "INSERT INTO rooms (fighter_id, opened_at) VALUES (\(room.fighter.rawValue), \(room.openedAt.secondsSince1970))"
            )
        case .event(let event):
            let keys = EventRows.keys(of: event)
            try db.run(
                """
                INSERT INTO events (fight_id, sequence, fighter_id, at, body)
                VALUES (\(keys.fight), \(keys.sequence), \(keys.fighter), \(event.at.secondsSince1970), \(try JSON.encode(event)))
                """)
        case .statistics(let scope, let line):
            let key = StatisticsRows.columns(scope)
            try db.run(
                """
                INSERT INTO statistics (scope, fighter_id, versus_id, qty_battles, qty_wins, last_battle, last_win)
                VALUES (\(key.scope), \(key.fighter), \(key.versus), \(line.qtyBattles), \(line.qtyWins),
                    \(line.lastBattle?.secondsSince1970), \(line.lastWin?.secondsSince1970))
                \(sql: StatisticsRows.upsert)
                """)
        }
    }
}
