#if PostgreSQL
    import FightEngine
    import Logging
    import NIOCore
    import PostgresNIO

    // MARK: - One connection's statements

    /// A connection of the pool in use by one transaction (or one statement). Statements go out
    /// in order on the connection; those sent (`send`) are not awaited one by one: the next one
    /// awaited waits for them too, and throws the first failure among them. A command's writes
    /// and its announcement are sent, and the commit waits for all of them at once.
    final class PostgresSession {
        let connection: PostgresConnection
        let logger: Logger
        /// The statements sent and not yet waited for, oldest first.
        private var sent: [EventLoopFuture<Void>] = []

        init(_ connection: PostgresConnection, logger: Logger) {
            self.connection = connection
            self.logger = logger
        }

        /// Starts `query` on the connection (postgres-nio's future-returning `query`, which queues
        /// it behind those started before).
        private func start(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
            connection.query(query, logger: logger)
        }

        /// Runs `query` whose result nobody reads (a save, a notification), without waiting: its
        /// failure is thrown by the next statement waited for, at the latest the commit, which
        /// then rolls back.
        func send(_ query: PostgresQuery) {
            sent.append(start(query).map { _ in })
        }

        /// Starts `query`, whose rows are read later (`rows(of:)`), so that statements that do
        /// not depend on each other wait once between them.
        func prefetch(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
            let started = start(query)
            // Among those sent, so that its failure fails the transaction even if nobody reads it.
            sent.append(started.map { _ in })
            return started
        }

        /// The rows of a statement started ahead.
        func rows(of started: EventLoopFuture<PostgresQueryResult>) async throws -> [SQLRow] {
            try await waitForSent()
            return try Self.rows(await started.get().rows)
        }

        /// Runs `query` and gives its rows.
        func rows(_ query: PostgresQuery) async throws -> [SQLRow] {
            try await rows(of: start(query))
        }

        /// Runs `query`, which returns no rows.
        /// - Returns: how many rows it inserted, changed or deleted.
        @discardableResult
        func run(_ query: PostgresQuery) async throws -> Int {
            let started = start(query)
            try await waitForSent()
            return try await started.get().metadata.rows ?? 0
        }

        /// Waits for the statements sent before (answered before any started after them: the
        /// connection runs them in order).
        private func waitForSent() async throws {
            let earlier = sent
            sent = []
            for statement in earlier { try await statement.get() }
        }

        /// Lets the statements sent go unread, as a transaction that failed rolls back: their
        /// answers (failures among them) are of no more use.
        func forgetSent() async {
            for statement in sent { _ = try? await statement.get() }
            sent = []
        }

        static func rows(_ rows: [PostgresRow]) throws -> [SQLRow] {
            guard let first = rows.first else { return [] }
            let names = first.map(\.columnName)
            return try rows.map { row in SQLRow(names: names, values: try row.map(Self.value)) }
        }

        static func value(_ cell: PostgresCell) throws -> SQLValue {
            guard cell.bytes != nil else { return .null }
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .bool: return .bool(try cell.decode(Bool.self))
            default: return .text(try cell.decode(String.self))
            }
        }
    }
#endif
