#if PostgreSQL
    import PostgresNIO
#endif

// MARK: - Failures

/// PostgreSQL failed a statement or a connection: its SQLSTATE code and message, or why the
/// connection could not be made or was lost. (postgres-nio's own error prints neither, so that a
/// query's values never reach a log; these hold none.)
public struct PostgresFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The SQLSTATE code the server gave (`23505` a unique violation, `57P01` an administrator's
    /// shutdown…), or `nil` when the failure was the connection's.
    public var sqlState: String?
    /// The server's message, or what happened to the connection.
    public var message: String

    /// Creates a failure.
    public init(sqlState: String?, message: String) {
        self.sqlState = sqlState
        self.message = message
    }

    /// For example "PostgreSQL 23505: duplicate key value violates unique constraint …".
    public var description: String {
        sqlState.map { "PostgreSQL \($0): \(message)" } ?? "PostgreSQL: \(message)"
    }

    #if PostgreSQL
        /// Runs `work`, giving postgres-nio's errors as `PostgresFailure`s.
        static func translating<T>(_ work: () async throws -> T) async throws -> T {
            do {
                return try await work()
            } catch let error as PSQLError {
                throw PostgresFailure(error)
            } catch let error as PostgresError {
                throw PostgresFailure(error)
            } catch where String(reflecting: type(of: error)).contains("ConnectionPool") {
                // The pool's own (shut down, or no connection could be made for a while): not a
                // type this module can name.
                throw PostgresFailure(sqlState: nil, message: "\(error)")
            }
        }

        /// What a prepared statement fails with (postgres-nio gives its older errors there).
        init(_ error: PostgresError) {
            switch error {
            case .server(let server):
                self.init(
                    sqlState: server.fields[.sqlState],
                    message: server.fields[.message] ?? "the server gave no message")
            case .protocol(let message): self.init(sqlState: nil, message: message)
            case .connectionClosed: self.init(sqlState: nil, message: "connection closed")
            }
        }

        /// postgres-nio's `error` as a failure: the server's code and message, or the connection's.
        init(_ error: PSQLError) {
            if let server = error.serverInfo {
                self.init(sqlState: server[.sqlState], message: server[.message] ?? "the server gave no message")
            } else {
                self.init(sqlState: nil, message: "\(error.code)" + (error.underlying.map { ": \($0)" } ?? ""))
            }
        }

        /// What to log of `error`: postgres-nio's own says nothing.
        static func describing(_ error: any Error) -> String {
            if let error = error as? PSQLError { return "\(PostgresFailure(error))" }
            if let error = error as? PostgresError { return "\(PostgresFailure(error))" }
            return "\(error)"
        }
    #endif
}
