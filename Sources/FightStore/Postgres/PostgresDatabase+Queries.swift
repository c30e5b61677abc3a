#if PostgreSQL
    import FightEngine
    import PostgresNIO

    // MARK: - Queries on PostgreSQL

    /// The store's questions and its rows no command reads, in PostgreSQL's SQL, each one
    /// statement on its own (no BEGIN and COMMIT) unless it says otherwise. Compare
    /// `SQLiteDatabase+Queries`.
    extension PostgresDatabase {
        private func fighters(where condition: PostgresQuery) async throws -> [Fighter] {
            var query: PostgresQuery = "SELECT \(unescaped: Self.fighterColumns) FROM fighters WHERE "
            query.sql += condition.sql
            query.binds = condition.binds
            return try await rows(query).map(FighterRows.decode)
        }

        func fighter(_ id: FighterID) async throws -> Fighter? {
            try await fighters(where: "id = \(id.rawValue)").first
        }

        func fighter(usernameKey key: String) async throws -> Fighter? {
            try await fighters(where: "username_key = \(key)").first
        }

        func fight(_ id: FightID) async throws -> Fight? {
            try await rows("SELECT id, body FROM fights WHERE id = \(id.rawValue)").first.map(FightRows.decode)
        }

        func openFights(of fighters: [FighterID]) async throws -> [Fight] {
            let ids = fighters.map(\.rawValue)
            // Through the partial indexes of open fights: the fighters' finished fights are not read.
            return try await rows(
                """
                SELECT id, body FROM fights WHERE is_open AND challenger_id = ANY(\(ids))
                UNION SELECT id, body FROM fights WHERE is_open AND opponent_id = ANY(\(ids))
                """
            ).map(FightRows.decode)
        }

        func fights(of id: FighterID) async throws -> [Fight] {
            try await rows(
                """
                SELECT id, body FROM fights WHERE id IN (
                    SELECT id FROM fights WHERE challenger_id = \(id.rawValue)
                    UNION ALL SELECT id FROM fights WHERE opponent_id = \(id.rawValue))
                ORDER BY id DESC
                """
            ).map(FightRows.decode)
        }

        func corners(ofFight id: FightID) async throws -> Both<FighterID>? {
            try await rows("SELECT challenger_id, opponent_id FROM fights WHERE id = \(id.rawValue)").first.map { row in
                Both(FighterID(try row.get("challenger_id")), FighterID(try row.get("opponent_id")))
            }
        }

        func opponents(of id: FighterID) async throws -> Set<FighterID> {
            Set(try await rows(Self.opponentsQuery(of: id)).map { FighterID(try $0.get("id")) })
        }

        static func opponentsQuery(of id: FighterID) -> PostgresQuery {
            """
            SELECT opponent_id AS id FROM fights WHERE is_open AND challenger_id = \(id.rawValue)
            UNION SELECT challenger_id AS id FROM fights WHERE is_open AND opponent_id = \(id.rawValue)
            """
        }

        func events(ofFight id: FightID, after: Int) async throws -> [Event] {
            try await rows(
                "SELECT id, body FROM events WHERE fight_id = \(id.rawValue) AND sequence > \(Int64(after)) ORDER BY id"
            ).map(EventRows.decode)
        }

        func events() async throws -> [Event] {
            try await rows("SELECT id, body FROM events ORDER BY id").map(EventRows.decode)
        }

        func rooms() async throws -> [Room] {
            try await rows("SELECT fighter_id, opened_at FROM rooms ORDER BY opened_at, fighter_id").map(RoomRows.decode)
        }

        func nextDeadline() async throws -> Timestamp? {
            try await rows("SELECT min(deadline) AS deadline FROM fights WHERE is_open").first?
                .get("deadline", as: Int64?.self).map { Timestamp(secondsSince1970: $0) }
        }

        /// In one snapshot (a running server may keep writing meanwhile).
        func auditInputs() async throws -> (log: [Event], fights: [Fight], fighters: [Fighter], statistics: Statistics) {
            try await read { session in
                (
                    try await session.rows("SELECT id, body FROM events ORDER BY id").map(EventRows.decode),
                    try await session.rows("SELECT id, body FROM fights").map(FightRows.decode),
                    try await Self.fighters(session, where: "TRUE"),
                    Statistics(lines: try StatisticsRows.decode(await session.rows("SELECT * FROM statistics")))
                )
            }
        }

        // MARK: Accounts and sessions

        func hasAccount(_ fighter: FighterID) async throws -> Bool {
            try await !rows("SELECT 1 AS one FROM accounts WHERE fighter_id = \(fighter.rawValue)").isEmpty
        }

        func createAccount(_ fighter: FighterID, passwordHash: String, at now: Timestamp) async throws -> Bool {
            try await run(
                """
                INSERT INTO accounts (fighter_id, password_hash, created_at)
                VALUES (\(fighter.rawValue), \(passwordHash), \(now.secondsSince1970)) ON CONFLICT DO NOTHING
                """) == 1
        }

        func passwordHash(of fighter: FighterID) async throws -> String? {
            try await rows("SELECT password_hash FROM accounts WHERE fighter_id = \(fighter.rawValue)").first?
                .get("password_hash")
        }

        func openSession(_ session: SavedSession) async throws {
            try await run(
                """
                INSERT INTO sessions (token_hash, fighter_id, created_at, last_used_at)
                VALUES (\(session.key), \(session.fighter.rawValue), \(session.createdAt.secondsSince1970),
                    \(session.lastUsedAt.secondsSince1970))
                """)
        }

        func session(key: String) async throws -> SavedSession? {
            try await rows("SELECT fighter_id, created_at, last_used_at FROM sessions WHERE token_hash = \(key)").first
                .map { try SavedSession(key: key, row: $0) }
        }

        func noteUse(ofSession key: String, at now: Timestamp) async throws {
            try await run("UPDATE sessions SET last_used_at = \(now.secondsSince1970) WHERE token_hash = \(key)")
        }

        /// Deleted and announced in one transaction, so that the other servers close its
        /// connections too (a logout is rare: two statements, not one).
        func closeSession(key: String, of fighter: FighterID) async throws -> Bool {
            try await write(.everything) { session in
                guard try await session.run("DELETE FROM sessions WHERE token_hash = \(key)") == 1 else { return false }
                try self.announce([.sessionEnded(key: key, fighter: fighter)], in: session)
                return true
            }
        }

        func forgetSessions(unusedSince cutoff: Timestamp) async throws -> Int {
            try await run("DELETE FROM sessions WHERE last_used_at < \(cutoff.secondsSince1970)")
        }

        // MARK: Punch profiles

        func punchProfile(of fighter: FighterID) async throws -> String? {
            try await rows("SELECT profile FROM punch_profiles WHERE fighter_id = \(fighter.rawValue)").first?
                .get("profile")
        }

        func savePunchProfile(_ json: String, of fighter: FighterID, at now: Timestamp) async throws {
            try await run(
                """
                INSERT INTO punch_profiles (fighter_id, profile, taught_at)
                VALUES (\(fighter.rawValue), \(json), \(now.secondsSince1970))
                ON CONFLICT (fighter_id) DO UPDATE SET profile = excluded.profile, taught_at = excluded.taught_at
                """)
        }

        func forgetPunchProfile(of fighter: FighterID) async throws -> Bool {
            try await run("DELETE FROM punch_profiles WHERE fighter_id = \(fighter.rawValue)") == 1
        }

        // MARK: Statistics

        func statistics() async throws -> Statistics {
            Statistics(lines: try StatisticsRows.decode(await rows("SELECT * FROM statistics")))
        }

        /// The lines by their keys, given as three arrays: one statement, one index scan a key.
        func statistics(_ scopes: [StatScope]) async throws -> Statistics {
            let keys = scopes.map(StatisticsRows.columns)
            let (names, fighters, versus) = (keys.map(\.scope), keys.map(\.fighter), keys.map(\.versus))
            return Statistics(
                lines: try StatisticsRows.decode(
                    await rows(
                        """
                        SELECT s.* FROM unnest(\(names), \(fighters), \(versus)) AS k(scope, fighter_id, versus_id)
                        JOIN statistics s ON s.scope = k.scope AND s.fighter_id = k.fighter_id AND s.versus_id = k.versus_id
                        """)))
        }

        func rebuildStatistics() async throws -> Statistics {
            try await write(.everything) { session in
                try await session.run("DELETE FROM statistics")
                let log = try await session.rows("SELECT id, body FROM events ORDER BY id").map(EventRows.decode)
                for (scope, line) in CommandPlan.statistics(of: log) {
                    try Self.perform(.statistics(scope, line), in: session)
                }
                return Statistics(lines: try StatisticsRows.decode(await session.rows("SELECT * FROM statistics")))
            }
        }
    }
#endif
