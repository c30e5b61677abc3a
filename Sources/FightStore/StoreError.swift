// MARK: - StoreError

/// A store failure that is not a rule's refusal: the file holds something the engine cannot read.
/// (SQLite's own failures surface as GRDB's `DatabaseError`, PostgreSQL's as `PostgresFailure`.)
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The table holding the bad row.
    public var table: String
    /// The row's identifier.
    public var rowID: Int64
    /// What is wrong with it.
    public var problem: String

    /// Creates a store error.
    public init(table: String, rowID: Int64, problem: String) {
        self.table = table
        self.rowID = rowID
        self.problem = problem
    }

    /// For example "fighters row 12: username: expected 3 to 20 characters, got 2 characters".
    public var description: String { "\(table) row \(rowID): \(problem)" }
}
