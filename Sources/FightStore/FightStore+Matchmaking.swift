import FightEngine

// MARK: - Matchmaking

extension FightStore {
    /// The versus screen: the nearest fighter `viewer` has not been shown, within `maxDistanceKm`
    /// (the rules' radius by default), not `viewer` and not someone they are fighting. The fighter
    /// returned is remembered as shown, so "back down" is calling this again. `nil` when nobody is left.
    public func nextOpponent(
        for viewer: FighterID, at now: Timestamp, maxDistanceKm: Double? = nil
    ) async throws -> Result<Matchup?, Refusal> {
        try await database.nearestUnseen(
            for: viewer, maxDistanceKm: maxDistanceKm ?? referee.rules.matchRadiusKm, showingAt: now)
    }

    /// The opponent `nextOpponent` would show, without remembering them (a read; no write lock).
    public func peekNextOpponent(
        for viewer: FighterID, maxDistanceKm: Double? = nil
    ) async throws -> Result<Matchup?, Refusal> {
        try await database.nearestUnseen(
            for: viewer, maxDistanceKm: maxDistanceKm ?? referee.rules.matchRadiusKm, showingAt: nil)
    }

    /// The database's plan for the versus screen's first step for `viewer` (the fighters in the
    /// box around them, not yet shown to them), one line a step: SQLite's `EXPLAIN QUERY PLAN`,
    /// PostgreSQL's `EXPLAIN`. Benchmarks and tests read it to check that the search goes through
    /// the index of locations (the R*Tree, the GiST index) rather than reading every fighter.
    public func nearestUnseenPlan(for viewer: FighterID, radiusKm: Double = 1) async throws -> [String] {
        try await nearestUnseenPlan(for: viewer, radiusKm: radiusKm, pricingScansOut: false)
    }

    /// The plan, with PostgreSQL's sequential scans priced out when `pricingScansOut`: on the
    /// few rows of a test a scan is the cheapest plan, and one that remains then means that no
    /// index can answer.
    func nearestUnseenPlan(for viewer: FighterID, radiusKm: Double, pricingScansOut: Bool) async throws -> [String] {
        try await database.nearestUnseenPlan(for: viewer, radiusKm: radiusKm, pricingScansOut: pricingScansOut)
    }
}
