import FightEngine
import Foundation
import GRDB

// MARK: - Queries on SQLite

/// The store's questions and its rows no command reads, in SQLite's SQL. Compare
/// `PostgresDatabase+Queries`.
extension SQLiteDatabase {
    func fighter(_ id: FighterID) async throws -> Fighter? {
        try await read { db in try Self.fighters(db, where: "id = \(id.rawValue)").first }
    }

    func fighter(usernameKey key: String) async throws -> Fighter? {
        try await read { db in try Self.fighters(db, where: "username_key = CAST(\(WholeText.bytes(key)) AS TEXT)").first }
    }

    func fight(_ id: FightID) async throws -> Fight? {
        try await read { db in try Self.fight(db, id) }
    }

    func openFights(of fighters: [FighterID]) async throws -> [Fight] {
        let ids = fighters.map(\.rawValue)
        // Through the partial indexes of open fights: the fighters' finished fights are not read.
        return try await read { db in
            try Self.fights(
                db,
                """
                SELECT id, body FROM fights WHERE is_open AND challenger_id IN \(ids)
                UNION SELECT id, body FROM fights WHERE is_open AND opponent_id IN \(ids)
                """)
        }
    }

    func fights(of id: FighterID) async throws -> [Fight] {
        try await read { db in
            try Self.fights(
                db,
                """
                SELECT id, body FROM fights WHERE id IN (
                    SELECT id FROM fights WHERE challenger_id = \(id.rawValue)
                    UNION ALL SELECT id FROM fights WHERE opponent_id = \(id.rawValue))
                ORDER BY id DESC
                """)
        }
    }

    func corners(ofFight id: FightID) async throws -> Both<FighterID>? {
        try await read { db in
            try db.rows("SELECT challenger_id, opponent_id FROM fights WHERE id = \(id.rawValue)").first.map { row in
                Both(FighterID(try row.get("challenger_id")), FighterID(try row.get("opponent_id")))
            }
        }
    }

    func opponents(of id: FighterID) async throws -> Set<FighterID> {
        try await read { db in try Self.opponents(of: id, in: db) }
    }

    static func opponents(of id: FighterID, in db: Database) throws -> Set<FighterID> {
        let rows = try db.rows(
            """
            SELECT opponent_id AS id FROM fights WHERE is_open AND challenger_id = \(id.rawValue)
            UNION SELECT challenger_id AS id FROM fights WHERE is_open AND opponent_id = \(id.rawValue)
            """)
        return Set(try rows.map { FighterID(try $0.get("id")) })
    }

    func events(ofFight id: FightID, after: Int) async throws -> [Event] {
        try await read { db in
            try db.rows(
                "SELECT id, body FROM events WHERE fight_id = \(id.rawValue) AND sequence > \(after) ORDER BY id"
            ).map(EventRows.decode)
        }
    }

    func events() async throws -> [Event] {
        try await read { db in try Self.log(db) }
    }

    static func log(_ db: Database) throws -> [Event] {
        try db.rows("SELECT id, body FROM events ORDER BY id").map(EventRows.decode)
    }

    func rooms() async throws -> [Room] {
        try await read { db in
            try db.rows("SELECT fighter_id, opened_at FROM rooms ORDER BY opened_at, fighter_id").map(RoomRows.decode)
        }
    }

    func nextDeadline() async throws -> Timestamp? {
        try await read { db in
            try db.rows("SELECT min(deadline) AS deadline FROM fights WHERE is_open").first?
                .get("deadline", as: Int64?.self).map { Timestamp(secondsSince1970: $0) }
        }
    }

    func auditInputs() async throws -> (log: [Event], fights: [Fight], fighters: [Fighter], statistics: Statistics) {
        try await read { db in
            (
                try Self.log(db), try Self.fights(db, "SELECT id, body FROM fights"),
                try Self.fighters(db, where: "TRUE"), try Self.statistics(db)
            )
        }
    }

    // MARK: Accounts and sessions

    func hasAccount(_ fighter: FighterID) async throws -> Bool {
        try await read { db in try !db.rows("SELECT 1 FROM accounts WHERE fighter_id = \(fighter.rawValue)").isEmpty }
    }

    func createAccount(_ fighter: FighterID, passwordHash: String, at now: Timestamp) async throws -> Bool {
        try await write { db in
            try db.run(
                """
                INSERT INTO accounts (fighter_id, password_hash, created_at)
                VALUES (\(fighter.rawValue), \(passwordHash), \(now.secondsSince1970)) ON CONFLICT DO NOTHING
                """) == 1
        }
    }

    func passwordHash(of fighter: FighterID) async throws -> String? {
        try await read { db in
            try db.rows("SELECT password_hash FROM accounts WHERE fighter_id = \(fighter.rawValue)").first?
                .get("password_hash")
        }
    }

    func openSession(_ session: SavedSession) async throws {
        try await write { db in
            try db.run(
                """
                INSERT INTO sessions (token_hash, fighter_id, created_at, last_used_at)
                VALUES (\(session.key), \(session.fighter.rawValue), \(session.createdAt.secondsSince1970),
                    \(session.lastUsedAt.secondsSince1970))
                """)
        }
    }

    func session(key: String) async throws -> SavedSession? {
        try await read { db in
            try db.rows("SELECT fighter_id, created_at, last_used_at FROM sessions WHERE token_hash = \(key)").first
                .map { try SavedSession(key: key, row: $0) }
        }
    }

    func noteUse(ofSession key: String, at now: Timestamp) async throws {
        try await write { db in
            try db.run("UPDATE sessions SET last_used_at = \(now.secondsSince1970) WHERE token_hash = \(key)")
        }
    }

    /// Nobody else shares the file: nobody to tell.
    func closeSession(key: String, of fighter: FighterID) async throws -> Bool {
        try await write { db in try db.run("DELETE FROM sessions WHERE token_hash = \(key)") == 1 }
    }

    func forgetSessions(unusedSince cutoff: Timestamp) async throws -> Int {
        try await write { db in try db.run("DELETE FROM sessions WHERE last_used_at < \(cutoff.secondsSince1970)") }
    }

    // MARK: Punch profiles

    func punchProfile(of fighter: FighterID) async throws -> String? {
        try await read { db in
            try db.rows("SELECT profile FROM punch_profiles WHERE fighter_id = \(fighter.rawValue)").first?.get("profile")
        }
    }

    func savePunchProfile(_ json: String, of fighter: FighterID, at now: Timestamp) async throws {
        try await write { db in
            try db.run(
                """
                INSERT INTO punch_profiles (fighter_id, profile, taught_at)
                VALUES (\(fighter.rawValue), \(json), \(now.secondsSince1970))
                ON CONFLICT (fighter_id) DO UPDATE SET profile = excluded.profile, taught_at = excluded.taught_at
                """)
        }
    }

    func forgetPunchProfile(of fighter: FighterID) async throws -> Bool {
        try await write { db in try db.run("DELETE FROM punch_profiles WHERE fighter_id = \(fighter.rawValue)") == 1 }
    }

    // MARK: Statistics

    func statistics() async throws -> Statistics {
        try await read { db in try Self.statistics(db) }
    }

    static func statistics(_ db: Database) throws -> Statistics {
        Statistics(lines: try StatisticsRows.decode(db.rows("SELECT * FROM statistics")))
    }

    /// Each line by its key, in one snapshot.
    func statistics(_ scopes: [StatScope]) async throws -> Statistics {
        try await read { db in
            var lines: [StatScope: StatLine] = [:]
            for key in scopes.map(StatisticsRows.columns) {
                lines.merge(
                    try StatisticsRows.decode(
                        db.rows(
                            """
                            SELECT * FROM statistics
                            WHERE scope = \(key.scope) AND fighter_id = \(key.fighter) AND versus_id = \(key.versus)
                            """))
                ) { $1 }
            }
            return Statistics(lines: lines)
        }
    }

    func rebuildStatistics() async throws -> Statistics {
        try await write { db in
            try db.run("DELETE FROM statistics")
            for (scope, line) in CommandPlan.statistics(of: try Self.log(db)) {
                try Self.perform(.statistics(scope, line), in: db)
            }
            return try Self.statistics(db)
        }
    }
}

extension SavedSession {
    /// The session saved under `key` as `row` holds it.
    init(key: String, row: SQLRow) throws {
        self.init(
            key: key, fighter: FighterID(try row.get("fighter_id")),
            createdAt: Timestamp(secondsSince1970: try row.get("created_at")),
            lastUsedAt: Timestamp(secondsSince1970: try row.get("last_used_at")))
    }
}
