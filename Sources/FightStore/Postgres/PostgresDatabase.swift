#if PostgreSQL
    import FightEngine
    import Foundation
    import Logging
    import NIOConcurrencyHelpers
    import NIOCore
    import PostgresNIO

    // MARK: - Endpoints

    /// postgres-nio's two configurations, the pool's and a lone connection's, which are made alike
    /// but share no protocol of the library's.
    protocol PostgresEndpoint {
        init(unixSocketPath: String, username: String, password: String?, database: String?)
        /// A host and port without TLS.
        init(host: String, port: Int, username: String, password: String?, database: String?)
    }

    extension PostgresClient.Configuration: PostgresEndpoint {
        init(host: String, port: Int, username: String, password: String?, database: String?) {
            self.init(host: host, port: port, username: username, password: password, database: database, tls: .disable)
        }
    }

    extension PostgresConnection.Configuration: PostgresEndpoint {
        init(host: String, port: Int, username: String, password: String?, database: String?) {
            self.init(host: host, port: port, username: username, password: password, database: database, tls: .disable)
        }
    }

    // MARK: - PostgreSQL

    /// The store's tables on a PostgreSQL server, which several servers may share, through
    /// postgres-nio's `PostgresClient` (its pool of connections, run by a task the store owns) and
    /// `PostgresQuery` interpolation, which binds each value with its type (`"… WHERE id = \(id)"`).
    ///
    /// **Writers take turns, across servers.** Every write transaction first takes the writers'
    /// transaction-scoped advisory lock (one per schema): alone for a writer of `everything`, as
    /// SQLite's `BEGIN IMMEDIATE` takes the file's write lock, so that a command's load → reduce
    /// → save sees every commit before it and is seen whole by every one after, whichever server
    /// runs it. A writer of less (`WriteScope`) shares it with the others, then takes the locks
    /// of what it writes: a command in one fight those of the fight's two fighters, so that two
    /// punches sent at once to two servers take turns and never both land, two fights of one
    /// fighter take turns, and fights of other fighters run side by side; a quick match the
    /// rooms', whose holders alone start fights besides `everything`, so the next identifier
    /// (`max(id) + 1`) never collides. What they all add to, the statistics, is added in SQL. The
    /// transactions are READ COMMITTED, so each statement after the locks reads what was committed
    /// before they were granted (a REPEATABLE READ transaction would read the snapshot taken
    /// before it waited). The database refuses a second open fight per pair by itself as well (a
    /// partial unique index). Reads run in a REPEATABLE READ READ ONLY transaction: one snapshot,
    /// no lock; a question of one statement runs on its own, without BEGIN and COMMIT.
    final class PostgresDatabase: StoreDatabase {
        let location: PostgresLocation
        let client: PostgresClient
        let logger: Logger
        /// The advisory lock writers take: one per schema, so that stores in different schemas
        /// of one database (the tests') do not wait for each other.
        let writeLock: Int64
        /// The first half of the key of the advisory locks of writers' scopes (the second is a
        /// fighter's identifier, or a scope's own number): the writers' lock's lower 32 bits, so
        /// one schema's are apart from another's as its writers' lock is. (Locks keyed by two
        /// integers are apart from those keyed by one.)
        var scopeLockSpace: Int32 { Int32(truncatingIfNeeded: writeLock) }
        /// The channel the servers of one schema announce their changes on (`NOTIFY`): named after
        /// the schema, as the lock is, since channels are the database's, not the schema's.
        let channel: String
        /// This store's name in its announcements: a new one each time it is opened.
        let origin = UUID().uuidString
        private let lastListenerID = NIOLockedValueBox(0)
        var kind: String { "postgres" }
        var isShared: Bool { true }

        /// How long a call waits for a connection before it fails: while the server is down the
        /// pool keeps trying to connect, and a call should say so rather than wait with it.
        static let connectionWait: Duration = .seconds(5)

        private init(_ location: PostgresLocation) {
            self.location = location
            var logger = Logger(label: "hitthat.store.postgres")
            logger.logLevel = .warning
            self.logger = logger
            writeLock = Self.lockKey(schema: location.schema ?? "public")
            channel = "hitthat_changes_" + String(UInt64(bitPattern: writeLock), radix: 16)
            client = PostgresClient(configuration: Self.clientConfiguration(location), backgroundLogger: logger)
        }

        /// Connects to `location` (its client run by the task returned, which the store owns and
        /// cancels), creates its schema if it names one that is missing, and brings the tables up
        /// to date.
        static func open(_ location: PostgresLocation) async throws -> (PostgresDatabase, Task<Void, Never>) {
            let database = PostgresDatabase(location)
            let running = Task { [client = database.client] in await client.run() }
            do {
                try await database.migrate()
            } catch {
                running.cancel()
                throw error
            }
            return (database, running)
        }

        /// FNV-1a of "hitthat:" and the schema's name: the same on every server.
        static func lockKey(schema: String) -> Int64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in "hitthat:\(schema)".utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            return Int64(bitPattern: hash)
        }

        // MARK: Connections

        /// The pool's connections: as many as a server uses at once (its hub, its presence and
        /// deadline services, sign-ins), kept open while unused so that a burst does not start a
        /// backend process for each.
        static func clientConfiguration(_ location: PostgresLocation) -> PostgresClient.Configuration {
            var configuration: PostgresClient.Configuration = endpoint(location)
            configuration.options.additionalStartupParameters = startupParameters(location)
            configuration.options.minimumConnections = 2
            configuration.options.maximumConnections = 16
            return configuration
        }

        /// Where `location` is reached, as the pool's or a lone connection's configuration: its
        /// Unix socket in a folder, or a host and port (no TLS).
        static func endpoint<Configuration: PostgresEndpoint>(_ location: PostgresLocation) -> Configuration {
            if let folder = location.socketFolder {
                return Configuration(
                    unixSocketPath: "\(folder)/.s.PGSQL.\(location.port)", username: location.username,
                    password: location.password, database: location.database)
            }
            return Configuration(
                host: location.host ?? "localhost", port: location.port, username: location.username,
                password: location.password, database: location.database)
        }

        /// Run-time parameters in each connection's start-up message. No parallel workers: every
        /// query of the store reads a handful of rows, but PostgreSQL prices a box overlap (`&&`,
        /// the nearest search's) at a fixed 0.5 % of the table, 5,000 rows of a million fighters,
        /// and then starts two workers for it, a hundred times slower. Every statement finds the
        /// store's tables in the location's schema, unqualified as the SQL names them.
        static func startupParameters(_ location: PostgresLocation) -> [(String, String)] {
            var parameters = [("max_parallel_workers_per_gather", "0")]
            if let schema = location.schema { parameters.append(("search_path", schema)) }
            return parameters
        }

        /// A connection of its own for listening, outside the pool (`LISTEN` needs one that stays
        /// open, outside any transaction), named after the channel (`pg_stat_activity` shows it).
        func listeningConnection() async throws -> PostgresConnection {
            var configuration: PostgresConnection.Configuration = Self.endpoint(location)
            configuration.options.additionalStartupParameters =
                Self.startupParameters(location) + [("application_name", listenerName)]
            let id = lastListenerID.withLockedValue { id in
                id += 1
                return id
            }
            return try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: configuration, id: id, logger: logger)
        }

        /// The application name of the connections that listen: the channel's, so that those of
        /// one schema can be told apart.
        var listenerName: String { "hitthat listening on \(channel)" }

        /// Runs `work` on a connection of the pool, waiting for one at most `connectionWait`.
        func withConnection<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T)
            async throws -> T
        {
            let leased = NIOLockedValueBox(false)
            return try await PostgresFailure.translating {
                try await withThrowingTaskGroup(of: T?.self) { group in
                    group.addTask { [client] in
                        try await client.withConnection { connection in
                            leased.withLockedValue { $0 = true }
                            return try await work(connection)
                        }
                    }
                    group.addTask {
                        try await Task.sleep(for: Self.connectionWait)
                        guard leased.withLockedValue({ $0 }) else {
                            throw PostgresFailure(sqlState: nil, message: "no connection within \(Self.connectionWait)")
                        }
                        return nil
                    }
                    while let result = try await group.next() {
                        guard let result else { continue }
                        group.cancelAll()
                        return result
                    }
                    preconditionFailure("the work ended without a result")
                }
            }
        }

        // MARK: Transactions

        /// Runs `work` in a write transaction of `scope` (see the type's comment): commits when
        /// it returns, rolls back when it throws.
        func write<T: Sendable>(_ scope: WriteScope, _ work: @escaping @Sendable (PostgresSession) async throws -> T)
            async throws -> T
        {
            try await transaction(begin: "BEGIN ISOLATION LEVEL READ COMMITTED") { session in
                // Sent with BEGIN, unanswered, in order: the command's first read waits for them.
                for lock in self.locks(for: scope) { session.send(lock) }
                return try await work(session)
            }
        }

        /// The advisory locks a writer in `scope` takes, in the order every writer takes them: the
        /// writers' lock (alone for `everything`, shared otherwise), then those of what the scope
        /// writes: a fight's two fighters by their keys, the lower first, or the scope's own. No
        /// writer takes locks of two kinds, so two writers never each hold a lock the other waits
        /// for. A fight that is not there locks no fighter, and its command is refused.
        private func locks(for scope: WriteScope) -> [PostgresQuery] {
            let shared: PostgresQuery = "SELECT pg_advisory_xact_lock_shared(\(writeLock))"
            let space = scopeLockSpace
            switch scope {
            case .everything:
                return ["SELECT pg_advisory_xact_lock(\(writeLock))"]
            case .fight(let id):
                // The lower key first, in a statement of its own: the order of two calls in one
                // statement's results is not the order they run in.
                return [shared]
                    + ["least", "greatest"].map { key -> PostgresQuery in
                        """
                        SELECT pg_advisory_xact_lock(\(space), \(unescaped: key)(a, b)) FROM (
                            SELECT CAST(challenger_id % 2147483647 AS INTEGER) AS a,
                                CAST(opponent_id % 2147483647 AS INTEGER) AS b
                            FROM fights WHERE id = \(id.rawValue)) AS corners
                        """
                    }
            // Below the fighters' keys (identifiers, never negative).
            case .rooms: return [shared, "SELECT pg_advisory_xact_lock(\(space), \(Int32(-1)))"]
            case .registrations: return [shared, "SELECT pg_advisory_xact_lock(\(space), \(Int32(-2)))"]
            case .presence: return [shared, "SELECT pg_advisory_xact_lock(\(space), \(Int32(-3)))"]
            }
        }

        /// Runs `work` on one snapshot, without blocking writers.
        func read<T: Sendable>(_ work: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T {
            try await transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", work)
        }

        /// The rows of `query`, one statement on its own snapshot (or, for a write, its own
        /// transaction), without BEGIN and COMMIT: two round trips fewer.
        func rows(_ query: PostgresQuery) async throws -> [SQLRow] {
            try await withConnection { [logger] connection in
                try await PostgresSession(connection, logger: logger).rows(query)
            }
        }

        /// Runs `query`, one statement that returns no rows, as its own transaction.
        /// - Returns: how many rows it inserted, changed or deleted.
        @discardableResult
        func run(_ query: PostgresQuery) async throws -> Int {
            try await withConnection { [logger] connection in
                try await PostgresSession(connection, logger: logger).run(query)
            }
        }

        /// Runs `work` between `begin` and COMMIT on a connection of the pool; rolls back when it
        /// throws. A connection that cannot roll back is closed, and the pool opens another.
        private func transaction<T: Sendable>(
            begin: PostgresQuery, _ work: @escaping @Sendable (PostgresSession) async throws -> T
        ) async throws -> T {
            try await withConnection { [logger] connection in
                let session = PostgresSession(connection, logger: logger)
                session.send(begin)
                do {
                    let result = try await work(session)
                    // Waits for every statement sent: one that failed fails the commit.
                    try await session.run("COMMIT")
                    return result
                } catch {
                    await session.forgetSent()
                    if (try? await session.run("ROLLBACK")) == nil { try? await connection.close() }
                    throw error
                }
            }
        }

        func checkReachable() async throws {
            _ = try await rows("SELECT 1 AS one")
        }

        func runScript(_ sql: String, beforeCommit: @escaping @Sendable () -> Void) async throws -> [SQLRow] {
            try await write(.everything) { session in
                var rows: [SQLRow] = []
                for statement in Schema.statements(sql) { rows = try await session.rows(PostgresQuery(unsafeSQL: statement)) }
                beforeCommit()
                return rows
            }
        }

        // MARK: Migrations

        /// Runs the migrations not yet recorded in the store's own table of them, in one
        /// transaction under the writers' lock: two servers starting at once migrate one after
        /// the other, and the second finds nothing to do. PostgreSQL's DDL is transactional, so a
        /// migration that fails leaves nothing half made.
        private func migrate() async throws {
            let schema = location.schema
            try await write(.everything) { session in
                if let schema {
                    // A plain identifier (`PostgresLocation.isPlainIdentifier`), as the URL gave it.
                    try await session.run(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"))
                }
                try await session.run(
                    """
                    CREATE TABLE IF NOT EXISTS hitthat_migrations (
                        identifier TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                    """)
                let done = Set(
                    try await session.rows("SELECT identifier FROM hitthat_migrations").map {
                        try $0.get("identifier", as: String.self)
                    })
                let types = ColumnTypes(.postgres)
                for migration in Schema.migrations where !done.contains(migration.identifier) {
                    switch migration.step {
                    case .statements(let statements):
                        for statement in statements(types) { try await session.run(PostgresQuery(unsafeSQL: statement)) }
                    case .countMissedTurns:
                        for fight in try await session.rows("SELECT id, body FROM fights WHERE is_open").map(FightRows.decode) {
                            let log = try await session.rows(
                                "SELECT id, body FROM events WHERE fight_id = \(fight.id.rawValue) ORDER BY id")
                            try Self.save(Schema.countingMissedTurns(fight, log: try log.map(EventRows.decode)), in: session)
                        }
                    }
                    try await session.run("INSERT INTO hitthat_migrations (identifier) VALUES (\(migration.identifier))")
                }
            }
        }
    }
#endif
