import FightEngine

// MARK: - Audit

extension FightStore {
    /// Checks the saved fights, fighters' records and statistics against the event log, read in
    /// one snapshot (a running server may keep writing meanwhile).
    public func audit() throws -> LogAudit {
        try database.read { db in
            LogAudit(
                log: try EventRows.fetch(db), fights: try FightRows.fetch(db, where: "TRUE", []),
                fighters: try FighterRows.fetch(db, where: "TRUE", []), statistics: try StatisticsRows.fetchAll(db),
                rules: referee.rules)
        }
    }
}
