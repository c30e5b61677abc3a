import FightEngine

// MARK: - Punch profiles

/// What each fighter taught the server's detector of their punches: the profile's JSON, as the
/// detector's side writes and checks it (the store keeps the text, and reads nothing in it). Like
/// accounts, rows no command reads: each written by one statement of its own (`writeApart`).
extension FightStore {
    /// `fighter`'s punch profile as saved (its JSON), if they taught one.
    public func punchProfile(of fighter: FighterID) throws -> String? {
        try database.readStatement { db in
            try db.fetchValue("SELECT profile FROM punch_profiles WHERE fighter_id = ?", [fighter.rawValue])
        }
    }

    /// Saves `json` as `fighter`'s punch profile, taught at `now`, replacing the one before.
    public func savePunchProfile(_ json: String, of fighter: FighterID, at now: Timestamp) throws {
        _ = try database.writeApart { db in
            try db.execute(
                """
                INSERT INTO punch_profiles (fighter_id, profile, taught_at) VALUES (?, ?, ?)
                ON CONFLICT (fighter_id) DO UPDATE SET profile = excluded.profile, taught_at = excluded.taught_at
                """,
                [fighter.rawValue, json, now.secondsSince1970])
        }
    }

    /// Deletes `fighter`'s punch profile.
    /// - Returns: whether there was one.
    @discardableResult
    public func forgetPunchProfile(of fighter: FighterID) throws -> Bool {
        try database.writeApart { db in
            try db.execute("DELETE FROM punch_profiles WHERE fighter_id = ?", [fighter.rawValue]) == 1
        }
    }
}
