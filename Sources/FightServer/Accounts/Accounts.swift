import Crypto
import FightEngine
import FightStore
import NIOConcurrencyHelpers

// MARK: - Accounts

/// Passwords and session tokens, kept by the fight store in its own file and pool.
///
/// An account is a fighter's password hash, and a session is kept under the SHA-256 of its token
/// (the token itself is never stored, so a copy of the file cannot be used to log in). The hashing
/// is here, not in the store, which knows no cryptography. Tokens survive a restart, so clients
/// reconnect without logging in.
public final class Accounts: Sendable {
    private let store: FightStore
    /// Token hashes already checked, so that each message costs a hash and a lookup, not a query.
    private let sessions = NIOLockedValueBox<[String: FighterID]>([:])

    /// Accounts and sessions in `store`.
    public init(store: FightStore) {
        self.store = store
    }

    /// Whether `fighter` has a password.
    public func hasAccount(_ fighter: FighterID) throws -> Bool {
        try store.hasAccount(fighter)
    }

    /// Stores `hash` as `fighter`'s password, unless the fighter already has one.
    /// - Returns: whether it was stored.
    public func create(_ fighter: FighterID, hash: PasswordHash, at now: Timestamp) throws -> Bool {
        try store.createAccount(fighter, passwordHash: hash.stored, at: now)
    }

    /// `fighter`'s password hash, if they have an account.
    public func passwordHash(of fighter: FighterID) throws -> PasswordHash? {
        try store.passwordHash(of: fighter).flatMap(PasswordHash.init(stored:))
    }

    /// A new session token for `fighter`: 32 random bytes as 64 hexadecimal digits.
    public func openSession(for fighter: FighterID, at now: Timestamp) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in Self.hex(UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        let key = Self.key(token)
        try store.openSession(SavedSession(key: key, fighter: fighter, createdAt: now))
        sessions.withLockedValue { $0[key] = fighter }
        return token
    }

    /// The fighter `token` was issued to, or `nil` for a token never issued.
    public func fighter(forToken token: String) throws -> FighterID? {
        guard token.utf8.count == 64 else { return nil }
        let key = Self.key(token)
        if let known = sessions.withLockedValue({ $0[key] }) { return known }
        guard let found = try store.session(key: key)?.fighter else { return nil }
        sessions.withLockedValue { $0[key] = found }
        return found
    }

    private static func key(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map(hex).joined()
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
    }
}
