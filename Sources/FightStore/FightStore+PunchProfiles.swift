import FightEngine

// MARK: - Punch profiles

/// What each fighter taught the server's detector of their punches: the profile's JSON, as the
/// detector's side writes and checks it (the store keeps the text, and reads nothing in it). Like
/// accounts, rows no command reads: each written by one statement of its own (on PostgreSQL outside the commands' writers' locks).
extension FightStore {
    /// `fighter`'s punch profile as saved (its JSON), if they taught one.
    public func punchProfile(of fighter: FighterID) async throws -> String? {
        try await database.punchProfile(of: fighter)
    }

    /// Saves `json` as `fighter`'s punch profile, taught at `now`, replacing the one before.
    public func savePunchProfile(_ json: String, of fighter: FighterID, at now: Timestamp) async throws {
        try await database.savePunchProfile(json, of: fighter, at: now)
    }

    /// Deletes `fighter`'s punch profile.
    /// - Returns: whether there was one.
    @discardableResult
    public func forgetPunchProfile(of fighter: FighterID) async throws -> Bool {
        try await database.forgetPunchProfile(of: fighter)
    }
}
