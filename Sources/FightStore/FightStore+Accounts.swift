import FightEngine

// MARK: - Accounts and sessions

/// Accounts and sessions are rows no command reads: each is written by one statement of its own
/// (on PostgreSQL outside the commands' writers' locks), not under the commands' writers' lock, so that a thousand players signing in
/// at once do not queue every fight's punches behind them on a database shared. (A logout, which
/// tells the other servers in the same transaction, is two statements, and rare.)
extension FightStore {
    /// Whether `fighter` has a password.
    public func hasAccount(_ fighter: FighterID) async throws -> Bool {
        try await database.hasAccount(fighter)
    }

    /// Saves `passwordHash` (the server's stored form; the store does not read it) as `fighter`'s
    /// password, unless the fighter already has one.
    /// - Returns: whether it was saved.
    public func createAccount(_ fighter: FighterID, passwordHash: String, at now: Timestamp) async throws -> Bool {
        try await database.createAccount(fighter, passwordHash: passwordHash, at: now)
    }

    /// `fighter`'s password hash as saved, if they have an account.
    public func passwordHash(of fighter: FighterID) async throws -> String? {
        try await database.passwordHash(of: fighter)
    }

    /// Saves a new session.
    public func openSession(_ session: SavedSession) async throws {
        try await database.openSession(session)
    }

    /// The session saved under `key`, if any.
    public func session(key: String) async throws -> SavedSession? {
        try await database.session(key: key)
    }

    /// Saves `now` as the moment session `key` was last used (nothing when there is no such session).
    public func noteUse(ofSession key: String, at now: Timestamp) async throws {
        try await database.noteUse(ofSession: key, at: now)
    }

    /// Deletes session `key` of `fighter`, and tells the other servers sharing the database, so
    /// that they close its connections too.
    /// - Returns: whether there was one.
    @discardableResult
    public func closeSession(key: String, of fighter: FighterID) async throws -> Bool {
        try await database.closeSession(key: key, of: fighter)
    }

    /// Deletes every session last used before `cutoff`.
    /// - Returns: how many there were.
    @discardableResult
    public func forgetSessions(unusedSince cutoff: Timestamp) async throws -> Int {
        try await database.forgetSessions(unusedSince: cutoff)
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
