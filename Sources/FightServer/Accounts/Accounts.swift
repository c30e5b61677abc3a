import Crypto
import FightEngine
import FightStore
import Foundation
import GRDB
import NIOConcurrencyHelpers

// MARK: - Accounts

/// Passwords and session tokens, in two tables of the fight store's SQLite file.
///
/// Fighters themselves live in the fight store; an account is a fighter's password hash, and a
/// session is the SHA-256 of a token (the token itself is never stored, so a copy of the file
/// cannot be used to log in). Tokens survive a restart, so clients reconnect without logging in.
public final class Accounts: Sendable {
    private let database: DatabasePool
    /// Token hashes already checked, so that each message costs a hash and a lookup, not a query.
    private let sessions = NIOLockedValueBox<[String: FighterID]>([:])

    /// Opens the tables in the file at `path`, creating them if needed.
    public init(path: String, durability: Durability = .powerLoss) throws {
        database = try DatabasePool(path: path, configuration: durability.configuration)
        try database.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS accounts (
                        fighter_id INTEGER PRIMARY KEY, password_hash TEXT NOT NULL, created_at INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS sessions (
                        token_hash TEXT PRIMARY KEY, fighter_id INTEGER NOT NULL, created_at INTEGER NOT NULL);
                    """)
        }
    }

    /// Whether `fighter` has a password.
    public func hasAccount(_ fighter: FighterID) throws -> Bool {
        try database.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE fighter_id = ?", arguments: [fighter.rawValue])
                ?? false
        }
    }

    /// Stores `hash` as `fighter`'s password, unless the fighter already has one.
    /// - Returns: whether it was stored.
    public func create(_ fighter: FighterID, hash: PasswordHash, at now: Timestamp) throws -> Bool {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO accounts (fighter_id, password_hash, created_at) VALUES (?, ?, ?)",
                arguments: [fighter.rawValue, hash.stored, now.secondsSince1970])
            return db.changesCount == 1
        }
    }

    /// `fighter`'s password hash, if they have an account.
    public func passwordHash(of fighter: FighterID) throws -> PasswordHash? {
        let stored = try database.read { db in
            try String.fetchOne(
                db, sql: "SELECT password_hash FROM accounts WHERE fighter_id = ?", arguments: [fighter.rawValue])
        }
        return stored.flatMap(PasswordHash.init(stored:))
    }

    /// A new session token for `fighter`: 32 random bytes as 64 hexadecimal digits.
    public func openSession(for fighter: FighterID, at now: Timestamp) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in Self.hex(UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        let key = Self.key(token)
        try database.write { db in
            try db.execute(
                sql: "INSERT INTO sessions (token_hash, fighter_id, created_at) VALUES (?, ?, ?)",
                arguments: [key, fighter.rawValue, now.secondsSince1970])
        }
        sessions.withLockedValue { $0[key] = fighter }
        return token
    }

    /// The fighter `token` was issued to, or `nil` for a token never issued.
    public func fighter(forToken token: String) throws -> FighterID? {
        guard token.utf8.count == 64 else { return nil }
        let key = Self.key(token)
        if let known = sessions.withLockedValue({ $0[key] }) { return known }
        let found = try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT fighter_id FROM sessions WHERE token_hash = ?", arguments: [key])
        }
        guard let found else { return nil }
        sessions.withLockedValue { $0[key] = FighterID(found) }
        return FighterID(found)
    }

    private static func key(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map(hex).joined()
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
    }
}
