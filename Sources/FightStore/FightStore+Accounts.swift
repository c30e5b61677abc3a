import FightEngine

// MARK: - Accounts and sessions

/// Accounts and sessions are rows no command reads: each is written by one statement of its own
/// (`writeApart`), not under the commands' writers' lock, so that a thousand players signing in
/// at once do not queue every fight's punches behind them on a database shared. (A logout, which
/// tells the other servers in the same transaction, is two statements, and rare.)
extension FightStore {
    /// Whether `fighter` has a password.
    public func hasAccount(_ fighter: FighterID) throws -> Bool {
        try database.readStatement { db in
            try !db.fetch("SELECT 1 FROM accounts WHERE fighter_id = ?", [fighter.rawValue]).isEmpty
        }
    }

    /// Saves `passwordHash` (the server's stored form; the store does not read it) as `fighter`'s
    /// password, unless the fighter already has one.
    /// - Returns: whether it was saved.
    public func createAccount(_ fighter: FighterID, passwordHash: String, at now: Timestamp) throws -> Bool {
        try database.writeApart { db in
            try db.execute(
                "INSERT INTO accounts (fighter_id, password_hash, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [fighter.rawValue, passwordHash, now.secondsSince1970]) == 1
        }
    }

    /// `fighter`'s password hash as saved, if they have an account.
    public func passwordHash(of fighter: FighterID) throws -> String? {
        try database.readStatement { db in
            try db.fetchValue("SELECT password_hash FROM accounts WHERE fighter_id = ?", [fighter.rawValue])
        }
    }

    /// Saves a new session.
    public func openSession(_ session: SavedSession) throws {
        _ = try database.writeApart { db in
            try db.execute(
                "INSERT INTO sessions (token_hash, fighter_id, created_at, last_used_at) VALUES (?, ?, ?, ?)",
                [
                    session.key, session.fighter.rawValue, session.createdAt.secondsSince1970,
                    session.lastUsedAt.secondsSince1970,
                ])
        }
    }

    /// The session saved under `key`, if any.
    public func session(key: String) throws -> SavedSession? {
        try database.readStatement { db in
            try db.fetch("SELECT fighter_id, created_at, last_used_at FROM sessions WHERE token_hash = ?", [key])
                .first.map { row in
                    SavedSession(
                        key: key, fighter: FighterID(try row.get("fighter_id")),
                        createdAt: Timestamp(secondsSince1970: try row.get("created_at")),
                        lastUsedAt: Timestamp(secondsSince1970: try row.get("last_used_at")))
                }
        }
    }

    /// Saves `now` as the moment session `key` was last used (nothing when there is no such session).
    public func noteUse(ofSession key: String, at now: Timestamp) throws {
        _ = try database.writeApart { db in
            try db.execute("UPDATE sessions SET last_used_at = ? WHERE token_hash = ?", [now.secondsSince1970, key])
        }
    }

    /// Deletes session `key` of `fighter`, and tells the other servers sharing the database, so
    /// that they close its connections too.
    /// - Returns: whether there was one.
    @discardableResult
    public func closeSession(key: String, of fighter: FighterID) throws -> Bool {
        try database.write { db in
            guard try db.execute("DELETE FROM sessions WHERE token_hash = ?", [key]) == 1 else { return false }
            try database.announce([.sessionEnded(key: key, fighter: fighter)], in: db)
            return true
        }
    }

    /// Deletes every session last used before `cutoff`.
    /// - Returns: how many there were.
    @discardableResult
    public func forgetSessions(unusedSince cutoff: Timestamp) throws -> Int {
        try database.writeApart { db in
            try db.execute("DELETE FROM sessions WHERE last_used_at < ?", [cutoff.secondsSince1970])
        }
    }
}

/// A session as the store keeps it: under a key the server derives from the token (a hash), so
/// that the file never holds a token that could be used to log in.
public struct SavedSession: Hashable, Sendable {
    /// What the session is found by: the server's hash of its token.
    public var key: String
    /// The fighter it was opened for.
    public var fighter: FighterID
    /// When it was opened.
    public var createdAt: Timestamp
    /// When it was last used, as far as the server noted it.
    public var lastUsedAt: Timestamp

    /// Creates a session to save; one just opened (`lastUsedAt` left out) was last used when opened.
    public init(key: String, fighter: FighterID, createdAt: Timestamp, lastUsedAt: Timestamp? = nil) {
        self.key = key
        self.fighter = fighter
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt ?? createdAt
    }
}
