import FightEngine

// MARK: - Audit

extension FightStore {
    /// Checks the saved fights, fighters' records and statistics against the event log, read in
    /// one snapshot (a running server may keep writing meanwhile).
    public func audit() async throws -> LogAudit {
        let (log, fights, fighters, statistics) = try await database.auditInputs()
        return LogAudit(log: log, fights: fights, fighters: fighters, statistics: statistics, rules: referee.rules)
    }
}
