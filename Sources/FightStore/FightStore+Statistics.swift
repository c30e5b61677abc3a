import FightEngine

// MARK: - Statistics

extension FightStore {
    /// The statistics as kept up to date while fights ended.
    public func statistics() async throws -> Statistics {
        try await database.statistics()
    }

    /// The saved lines of `scopes` only, read together and each by its key: what one fighter asks
    /// for, without reading every line. A scope that never fought reads as zero, as in `statistics()`.
    public func statistics(_ scopes: [StatScope]) async throws -> Statistics {
        try await database.statistics(scopes)
    }

    /// Throws the saved statistics away, rebuilds them from the event log alone, saves and returns them.
    @discardableResult
    public func rebuildStatistics() async throws -> Statistics {
        try await database.rebuildStatistics()
    }
}
