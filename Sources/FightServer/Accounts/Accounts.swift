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
/// reconnect without logging in; a session lapses when unused for `sessionLifetime`, and ends at
/// its `logout`.
public final class Accounts: Sendable {
    private let store: FightStore
    /// Seconds a session lasts without being used.
    public let sessionLifetime: Int64
    /// Sessions seen since the start (so that a message costs a hash and a lookup, not a query),
    /// and those logged out since, so that a check that read a session just before its logout
    /// cannot put it back.
    private let sessions = NIOLockedValueBox<[String: Cached]>([:])

    private enum Cached {
        case live(SavedSession)
        case loggedOut
    }

    /// How stale the saved moment of a session's last use may get before it is written again: a
    /// write an hour a session, not one a message. A session may so lapse up to an hour early.
    static let useNotedEvery: Int64 = 60 * 60

    /// Accounts and sessions in `store`; sessions lapse after `sessionLifetime` seconds unused.
    public init(store: FightStore, sessionLifetime: Int64) {
        self.store = store
        self.sessionLifetime = sessionLifetime
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
    ///
    /// Sessions unused for twice the lifetime are forgotten meanwhile: a lapsed token is told
    /// apart from one never issued for a lifetime, and the table does not grow with every login ever.
    public func openSession(for fighter: FighterID, at now: Timestamp) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in Self.hex(UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        let session = SavedSession(key: Self.key(token), fighter: fighter, createdAt: now)
        try store.forgetSessions(unusedSince: now + -2 * sessionLifetime)
        try store.openSession(session)
        sessions.withLockedValue { $0[session.key] = .live(session) }
        return token
    }

    /// What `token` is worth at `now`. A use of a live session is noted (at most once an hour).
    public func check(_ token: String, at now: Timestamp) throws -> TokenStatus {
        guard token.utf8.count == 64 else { return .unknown }
        let key = Self.key(token)
        var cached = sessions.withLockedValue { $0[key] }
        if cached == nil {
            guard let saved = try store.session(key: key) else { return .unknown }
            // Kept only if nothing was meanwhile: a logout that came in between wins.
            cached = sessions.withLockedValue { sessions in
                if sessions[key] == nil { sessions[key] = .live(saved) }
                return sessions[key]
            }
        }
        guard case .live(var session) = cached else { return .unknown }
        guard now - session.lastUsedAt < sessionLifetime else { return .lapsed }
        if now - session.lastUsedAt >= Self.useNotedEvery {
            try store.noteUse(ofSession: key, at: now)
            session.lastUsedAt = now
            sessions.withLockedValue { sessions in
                if case .live = sessions[key] { sessions[key] = .live(session) }
            }
        }
        return .valid(session)
    }

    /// `check`, waiting for the database on `threads` only when it must: for a session not seen
    /// here since the start, or a use to note (once an hour). Any other message costs a hash and a
    /// lookup on the calling thread.
    func check(_ token: String, at now: Timestamp, waitingOn threads: DatabaseThreads) async throws -> TokenStatus {
        if token.utf8.count == 64, case .live(let session)? = sessions.withLockedValue({ $0[Self.key(token)] }),
            now - session.lastUsedAt < min(sessionLifetime, Self.useNotedEvery)
        {
            return .valid(session)
        }
        return try await threads.run { try self.check(token, at: now) }
    }

    /// Ends `session`: its token is refused from now on.
    ///
    /// Deleted from the file first, then refused in memory: a delete that fails throws with the
    /// session still live in both, so the caller can say the logout failed and it can be asked
    /// again. (Refused in memory first, a failed logout would look done until a restart brought
    /// the token back.) A check that read the session just before the delete cannot put it back:
    /// the mark written here wins.
    public func logout(_ session: SavedSession) throws {
        try store.closeSession(key: session.key, of: session.fighter)
        sessions.withLockedValue { $0[session.key] = .loggedOut }
    }

    /// Refuses session `key` from now on: another server sharing the database logged it out
    /// (and deleted it there), and this one may hold it as live. Marked even when not held, as
    /// `logout` marks it: a check that read it just before the delete cannot put it back.
    func sessionEnded(key: String) {
        sessions.withLockedValue { $0[key] = .loggedOut }
    }

    private static func key(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map(hex).joined()
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
    }
}

/// What a token is worth.
public enum TokenStatus: Hashable, Sendable {
    /// A live session: its fighter, and the key it is kept under.
    case valid(SavedSession)
    /// Never issued, logged out, or lapsed so long ago that it was forgotten.
    case unknown
    /// Issued, but unused for longer than the session lifetime: log in again.
    case lapsed
}
