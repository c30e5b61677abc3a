import FightEngine
import GRDB

// MARK: - Accounts and sessions

extension FightStore {
    /// Whether `fighter` has a password.
    public func hasAccount(_ fighter: FighterID) throws -> Bool {
        try database.read { db in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM accounts WHERE fighter_id = ?"), arguments: [fighter.rawValue])
                ?? false
        }
    }

    /// Saves `passwordHash` (the server's stored form; the store does not read it) as `fighter`'s
    /// password, unless the fighter already has one.
    /// - Returns: whether it was saved.
    public func createAccount(_ fighter: FighterID, passwordHash: String, at now: Timestamp) throws -> Bool {
        try immediateTransaction { db in
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO accounts (fighter_id, password_hash, created_at) VALUES (?, ?, ?)"
            ).execute(arguments: [fighter.rawValue, passwordHash, now.secondsSince1970])
            return db.changesCount == 1
        }
    }

    /// `fighter`'s password hash as saved, if they have an account.
    public func passwordHash(of fighter: FighterID) throws -> String? {
        try database.read { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT password_hash FROM accounts WHERE fighter_id = ?"),
                arguments: [fighter.rawValue])
        }
    }

    /// Saves a new session.
    public func openSession(_ session: SavedSession) throws {
        try immediateTransaction { db in
            try db.cachedStatement(
                sql: "INSERT INTO sessions (token_hash, fighter_id, created_at) VALUES (?, ?, ?)"
            ).execute(arguments: [session.key, session.fighter.rawValue, session.createdAt.secondsSince1970])
        }
    }

    /// The session saved under `key`, if any.
    public func session(key: String) throws -> SavedSession? {
        try database.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT fighter_id, created_at FROM sessions WHERE token_hash = ?"),
                arguments: [key]
            ).map { row in
                SavedSession(
                    key: key, fighter: FighterID(row["fighter_id"]),
                    createdAt: Timestamp(secondsSince1970: row["created_at"]))
            }
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

    /// Creates a session to save.
    public init(key: String, fighter: FighterID, createdAt: Timestamp) {
        self.key = key
        self.fighter = fighter
        self.createdAt = createdAt
    }
}
