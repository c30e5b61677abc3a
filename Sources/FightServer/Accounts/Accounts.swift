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
    /// The live sessions used lately, so that a message costs a hash and a lookup, not a query.
    private let sessions: NIOLockedValueBox<SessionCache>

    /// How stale the saved moment of a session's last use may get before it is written again: a
    /// write an hour a session, not one a message. A session may so lapse up to an hour early.
    static let useNotedEvery: Int64 = 60 * 60

    /// Accounts and sessions in `store`; sessions lapse after `sessionLifetime` seconds unused.
    /// At most `cacheLimit` sessions are kept in memory beyond those used within the hour.
    public init(store: FightStore, sessionLifetime: Int64, cacheLimit: Int = 10_000) {
        self.store = store
        self.sessionLifetime = sessionLifetime
        sessions = NIOLockedValueBox(SessionCache(limit: cacheLimit))
    }

    /// Whether `fighter` has a password.
    public func hasAccount(_ fighter: FighterID) async throws -> Bool {
        try await store.hasAccount(fighter)
    }

    /// Stores `hash` as `fighter`'s password, unless the fighter already has one.
    /// - Returns: whether it was stored.
    public func create(_ fighter: FighterID, hash: PasswordHash, at now: Timestamp) async throws -> Bool {
        try await store.createAccount(fighter, passwordHash: hash.stored, at: now)
    }

    /// `fighter`'s password hash, if they have an account.
    public func passwordHash(of fighter: FighterID) async throws -> PasswordHash? {
        try await store.passwordHash(of: fighter).flatMap(PasswordHash.init(stored:))
    }

    /// A new session token for `fighter`: 32 random bytes as 64 hexadecimal digits.
    ///
    /// Sessions unused for twice the lifetime are forgotten meanwhile: a lapsed token is told
    /// apart from one never issued for a lifetime, and the table does not grow with every login ever.
    public func openSession(for fighter: FighterID, at now: Timestamp) async throws -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in Self.hex(UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        let session = SavedSession(key: Self.key(token), fighter: fighter, createdAt: now)
        try await store.forgetSessions(unusedSince: now + -2 * sessionLifetime)
        try await store.openSession(session)
        sessions.withLockedValue { $0.keep(session, at: now) }
        return token
    }

    /// What `token` is worth at `now`. A use of a live session is noted (at most once an hour).
    /// The database is asked only when it must: for a session not seen here since the start, or
    /// a use to note. Any other message costs a hash and a lookup.
    public func check(_ token: String, at now: Timestamp) async throws -> TokenStatus {
        guard token.utf8.count == 64 else { return .unknown }
        let key = Self.key(token)
        guard var session = try await cachedOrSaved(key, at: now) else { return .unknown }
        guard now - session.lastUsedAt < sessionLifetime else { return .lapsed }
        if now - session.lastUsedAt >= Self.useNotedEvery {
            try await store.noteUse(ofSession: key, at: now)
            session.lastUsedAt = now
            sessions.withLockedValue { $0.update(session) }
        }
        return .valid(session)
    }

    /// Session `key` as kept here, or as saved (then kept here): nil when there is none. A
    /// session read from the file while any session ended is read again, so that a logout that
    /// came in between wins, whichever session it ended.
    private func cachedOrSaved(_ key: String, at now: Timestamp) async throws -> SavedSession? {
        while true {
            let (cached, endedBefore) = sessions.withLockedValue { ($0.live[key], $0.ended) }
            if let cached { return cached }
            guard let saved = try await store.session(key: key) else { return nil }
            let kept = sessions.withLockedValue { sessions in
                guard sessions.ended == endedBefore else { return false }
                sessions.keep(saved, at: now)
                return true
            }
            if kept { return saved }
        }
    }

    /// Ends `session`: its token is refused from now on.
    ///
    /// Deleted from the file first, then forgotten in memory: a delete that fails throws with the
    /// session still live in both, so the caller can say the logout failed and it can be asked
    /// again. (Forgotten in memory first, a failed logout would look done until a restart brought
    /// the token back.) A check that read the session just before the delete reads it again
    /// (`cachedOrSaved`), and finds none.
    public func logout(_ session: SavedSession) async throws {
        try await store.closeSession(key: session.key, of: session.fighter)
        sessions.withLockedValue { $0.end(session.key) }
    }

    /// Refuses session `key` from now on: another server sharing the database logged it out
    /// (and deleted it there), and this one may hold it as live.
    func sessionEnded(key: String) {
        sessions.withLockedValue { $0.end(key) }
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

// MARK: - The sessions kept in memory

/// The live sessions an `Accounts` keeps in memory, bounded: past `limit`, a new one sweeps out
/// those unused for an hour (read again from the file when next used, when their use is due to be
/// noted anyway).
struct SessionCache {
    /// The sessions kept, by key.
    private(set) var live: [String: SavedSession] = [:]
    /// How many sessions have ended here: a session read from the file while one ended may be the
    /// one that ended, and is not kept.
    private(set) var ended = 0
    /// How many sessions are kept before a sweep, at the least.
    let limit: Int
    /// The count past which the next session kept sweeps: twice what the last sweep left, so
    /// that a cache full of sessions in use is not swept at every login.
    private var sweepAbove: Int

    init(limit: Int) {
        self.limit = limit
        sweepAbove = limit
    }

    /// Keeps `session`, sweeping if the cache has grown past its bound.
    mutating func keep(_ session: SavedSession, at now: Timestamp) {
        live[session.key] = session
        guard live.count > sweepAbove else { return }
        live = live.filter { now - $0.value.lastUsedAt < Accounts.useNotedEvery }
        sweepAbove = max(limit, 2 * live.count)
    }

    /// Replaces a kept session (its use noted) if it is still kept.
    mutating func update(_ session: SavedSession) {
        if live[session.key] != nil { live[session.key] = session }
    }

    /// Forgets session `key`: it ended.
    mutating func end(_ key: String) {
        live[key] = nil
        ended += 1
    }
}
