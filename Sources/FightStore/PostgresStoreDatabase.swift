#if PostgreSQL
    import FightEngine
    import Foundation
    import Logging
    import NIOConcurrencyHelpers
    import NIOCore
    import NIOPosix
    import PostgresNIO

    // MARK: - PostgreSQL

    /// The store's tables on a PostgreSQL server, which several servers may share.
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
    /// no lock.
    ///
    /// **The calling thread waits**, as it waits for SQLite's disk: the store's API is synchronous
    /// and the server calls it from a thread of its own. The connections run on an event loop of
    /// the store's own, never the caller's, so waiting cannot deadlock them; the wait is a
    /// condition variable, not `EventLoopFuture.wait()`, which NIO forbids on any event loop
    /// thread, the hub's among them.
    final class PostgresStoreDatabase: StoreDatabase {
        let location: PostgresLocation
        private let group: MultiThreadedEventLoopGroup
        let logger: Logger
        /// Connections open and not in use; each call takes one (or opens one) and gives it back.
        private let idle = NIOLockedValueBox<[PooledConnection]>([])
        private let lastConnectionID = NIOLockedValueBox(0)
        /// The statements as PostgreSQL numbers placeholders, and how often each was sent, by the
        /// store's SQL text.
        private let translated = NIOLockedValueBox<[String: (statement: String, uses: Int)]>([:])
        /// The advisory lock writers take: one per schema, so that stores in different schemas
        /// of one database (the tests') do not wait for each other.
        let writeLock: Int64
        /// The first half of the key of the advisory locks of writers' scopes (`locks(for:)`; the
        /// second is a fighter's identifier, or a scope's own number): the writers' lock's lower
        /// 32 bits, so one schema's are apart from another's as its writers' lock is. (Locks keyed
        /// by two integers are apart from those keyed by one.)
        var scopeLockSpace: Int { Int(Int32(truncatingIfNeeded: writeLock)) }
        /// The channel the servers of one schema announce their changes on (`NOTIFY`): named after
        /// the schema, as the lock is, since channels are the database's, not the schema's.
        let channel: String
        /// This store's name in its announcements: a new one each time it is opened.
        let origin = UUID().uuidString
        var dialect: SQLDialect { .postgres }

        /// Connections kept open while unused: as many as a server uses at once (its hub, its
        /// presence and deadline services, and the eight threads it waits for the database on
        /// besides), so that a burst does not open and close connections, each a new backend
        /// process for PostgreSQL to start.
        static let idleConnections = 12

        /// Connects to `location`, creates its schema if it names one that is missing, and brings
        /// the tables up to date.
        init(_ location: PostgresLocation) throws {
            self.location = location
            group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            var logger = Logger(label: "hitthat.store.postgres")
            logger.logLevel = .warning
            self.logger = logger
            writeLock = Self.lockKey(schema: location.schema ?? "public")
            channel = "hitthat_changes_" + String(UInt64(bitPattern: writeLock), radix: 16)
            do {
                try migrate()
            } catch {
                shutDown()
                throw error
            }
        }

        deinit { shutDown() }

        private func shutDown() {
            let connections = idle.withLockedValue { connections in
                defer { connections = [] }
                return connections
            }
            let group = group
            EventLoopFuture.andAllComplete(connections.map { Self.close($0.connection) }, on: group.next()).whenComplete { _ in
                group.shutdownGracefully { _ in }
            }
        }

        /// Closes `connection`, keeping it until it is closed: postgres-nio asserts that a
        /// connection is closed before it is freed.
        @discardableResult
        private static func close(_ connection: PostgresConnection) -> EventLoopFuture<Void> {
            let closed: EventLoopFuture<Void> = connection.close()
            closed.whenComplete { _ in withExtendedLifetime(connection) {} }
            return closed
        }

        /// FNV-1a of "hitthat:" and the schema's name: the same on every server.
        static func lockKey(schema: String) -> Int64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in "hitthat:\(schema)".utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            return Int64(bitPattern: hash)
        }

        // MARK: Transactions

        func write<T>(_ scope: WriteScope, _ work: (any SQLSession) throws -> T) throws -> T {
            try transaction("BEGIN ISOLATION LEVEL READ COMMITTED") { session in
                // Sent with BEGIN, unanswered, in order: the command's first read waits for them.
                for (sql, arguments) in locks(for: scope) { try session.send(sql, arguments) }
                return try work(session)
            }
        }

        /// The advisory locks a writer in `scope` takes, in the order every writer takes them: the
        /// writers' lock (alone for `everything`, shared otherwise), then those of what the scope
        /// writes: a fight's two fighters by their keys, the lower first, or the scope's own. No
        /// writer takes locks of two kinds, so two writers never each hold a lock the other waits
        /// for. A fight that is not there locks no fighter (the lock functions skip NULL), and
        /// its command is refused.
        private func locks(for scope: WriteScope) -> [(String, SQLArguments)] {
            let shared = ("SELECT pg_advisory_xact_lock_shared(?)", [writeLock] as SQLArguments)
            let named = "SELECT pg_advisory_xact_lock(CAST(? AS INTEGER), CAST(? AS INTEGER))"
            switch scope {
            case .everything:
                return [("SELECT pg_advisory_xact_lock(?)", [writeLock])]
            case .fight(let id):
                return [shared]
                    + ["least", "greatest"].map { key in
                        (
                            """
                            SELECT pg_advisory_xact_lock(CAST(? AS INTEGER), \(key)(a, b)) FROM (
                                SELECT CAST(challenger_id % 2147483647 AS INTEGER) AS a,
                                    CAST(opponent_id % 2147483647 AS INTEGER) AS b
                                FROM fights WHERE id = ?) AS corners
                            """, [scopeLockSpace, id.rawValue]
                        )
                    }
            // Below the fighters' keys (identifiers, never negative).
            case .rooms: return [shared, (named, [scopeLockSpace, -1])]
            case .registrations: return [shared, (named, [scopeLockSpace, -2])]
            case .presence: return [shared, (named, [scopeLockSpace, -3])]
            }
        }

        func read<T>(_ work: (any SQLSession) throws -> T) throws -> T {
            try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", work)
        }

        func readStatement<T>(_ work: (any SQLSession) throws -> T) throws -> T {
            try transaction(nil) { session in try work(OneStatement(session)) }
        }

        func writeApart<T>(_ work: (any SQLSession) throws -> T) throws -> T {
            try transaction(nil) { session in try work(OneStatement(session)) }
        }

        /// Runs `work` between `begin` and COMMIT on a connection of its own (or, with no `begin`,
        /// its one statement as its own transaction); rolls back when it throws. A connection that
        /// failed is closed, not given back: the next call opens another, so a server restarted or
        /// reached again is used again without the store being reopened.
        private func transaction<T>(_ begin: String?, _ work: (any SQLSession) throws -> T) throws -> T {
            let pooled = try takeIdle() ?? PooledConnection(connect())
            let session = PostgresSession(pooled, database: self)
            do {
                if let begin { try session.send(begin, []) }
                let result = try work(session)
                // Waits for every statement sent: one that failed fails the commit.
                if begin != nil { try session.execute("COMMIT", []) }
                giveBack(pooled)
                return result
            } catch {
                // A statement on its own that failed may have failed with its connection: closed,
                // as one that cannot roll back is.
                session.forgetSent()
                if begin != nil, (try? session.execute("ROLLBACK", [])) != nil {
                    giveBack(pooled)
                } else {
                    Self.close(pooled.connection)
                }
                throw error
            }
        }

        /// An idle connection still open, if any: those the server closed meanwhile (it restarted,
        /// say) are dropped, so that a call after an outage does not fail on one.
        private func takeIdle() -> PooledConnection? {
            idle.withLockedValue { idle in
                while let pooled = idle.popLast() {
                    if !pooled.connection.isClosed { return pooled }
                }
                return nil
            }
        }

        private func giveBack(_ pooled: PooledConnection) {
            guard !pooled.connection.isClosed else { return }
            let kept = idle.withLockedValue { idle in
                guard idle.count < Self.idleConnections else { return false }
                idle.append(pooled)
                return true
            }
            if !kept { Self.close(pooled.connection) }
        }

        private func connect() throws -> PostgresConnection {
            let configuration = connectionConfiguration()
            let id = nextConnectionID()
            return try PostgresFailure.translating {
                try Blocking.wait(
                    PostgresConnection.connect(on: group.next(), configuration: configuration, id: id, logger: logger))
            }
        }

        func nextConnectionID() -> Int {
            lastConnectionID.withLockedValue { id in
                id += 1
                return id
            }
        }

        /// The application name of the connections that listen (`pg_stat_activity` shows it):
        /// the channel's, so that those of one schema can be told apart.
        var listenerName: String { "hitthat listening on \(channel)" }

        func connectionConfiguration(listening: Bool = false) -> PostgresConnection.Configuration {
            var configuration: PostgresConnection.Configuration
            if let folder = location.socketFolder {
                configuration = .init(
                    unixSocketPath: "\(folder)/.s.PGSQL.\(location.port)", username: location.username,
                    password: location.password, database: location.database)
            } else {
                configuration = .init(
                    host: location.host ?? "localhost", port: location.port, username: location.username,
                    password: location.password, database: location.database, tls: .disable)
            }
            // Run-time parameters in the start-up message. No parallel workers: every query of the
            // store reads a handful of rows, but PostgreSQL prices a box overlap (`&&`, the nearest
            // search's) at a fixed 0.5 % of the table, 5,000 rows of a million fighters, and then
            // starts two workers for it: 50 ms instead of 0.3 ms (EXPLAIN ANALYZE, 26 Nov).
            configuration.options.additionalStartupParameters = [("max_parallel_workers_per_gather", "0")]
            if listening {
                configuration.options.additionalStartupParameters.append(("application_name", listenerName))
            }
            if let schema = location.schema {
                // Every statement on the connection finds the store's tables in the schema,
                // unqualified as the SQL names them.
                configuration.options.additionalStartupParameters.append(("search_path", schema))
            }
            return configuration
        }

        /// The statement to send for the store's `sql` (placeholders numbered as PostgreSQL's), and
        /// whether it is sent often enough to be worth preparing on each connection.
        func statement(_ sql: String) -> (text: String, isFrequent: Bool) {
            translated.withLockedValue { translated in
                let statement = translated[sql]?.statement ?? SQLDialect.numberedPlaceholders(sql)
                let uses = (translated[sql]?.uses ?? 0) + 1
                translated[sql] = (statement, uses)
                return (statement, uses >= Self.usesBeforePreparing)
            }
        }

        /// How often a statement is sent before the connections prepare it. Most of PostgreSQL's
        /// time on the store's statements went to parsing and planning them (a statement log of a
        /// load run, 27 Nov: parse 12.6 s, bind 14.8 s, execute 15.1 s), which a statement
        /// prepared by name does once per connection. Those sent once or twice (a migration, a
        /// list of a thousand fighters) are not worth a round trip to prepare, nor the memory.
        static let usesBeforePreparing = 3

        // MARK: Announcements

        var isShared: Bool { true }

        /// What one server says to the others: its changes, each with the store that made it, so
        /// that a store does not hear itself.
        private struct Announcement: Codable {
            let origin: String
            let change: StoreChange
        }

        /// PostgreSQL refuses a notification's payload of 8,000 bytes or more.
        static let largestPayload = 7_999

        /// `NOTIFY`, one notification a change, sent by PostgreSQL when the transaction commits,
        /// in the order of the commits. One statement for all of them (a deadline's tick may
        /// settle many fights at once): the payloads, JSON without line breaks, one a line.
        func announce(_ changes: [StoreChange], in db: any SQLSession) throws {
            var payloads: [String] = []
            for change in changes {
                let payload = try JSON.encode(Announcement(origin: origin, change: change))
                guard payload.utf8.count <= Self.largestPayload else {
                    // Only a fighter event can be this long (a long bio): it is for the fighter's own
                    // other connections, which read the profile again when they next ask.
                    logger.warning("a change too long to announce", metadata: ["bytes": "\(payload.utf8.count)"])
                    continue
                }
                payloads.append(payload)
            }
            guard !payloads.isEmpty else { return }
            try db.send(
                "SELECT count(pg_notify(?, payload)) FROM regexp_split_to_table(?, E'\\n') AS payload",
                [channel, payloads.joined(separator: "\n")])
        }

        /// Listens on a connection of its own (`LISTEN` needs one that stays open, outside any
        /// transaction), and again, after a pause that doubles up to a few seconds, whenever it is
        /// lost; each time it listens it first says `.resynchronize`.
        func changes() -> AsyncStream<StoreChange>? {
            let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self)
            let listener = Listener(database: self, eventLoop: group.next())
            let listening = Task { await listener.listen(telling: continuation) }
            continuation.onTermination = { _ in listening.cancel() }
            return stream
        }

        /// The first pause before listening again, and the longest: what a server missed
        /// meanwhile is caught up when it listens again, so the pause costs pushes a little delay.
        static let listeningRetry: (first: Duration, longest: Duration) = (.milliseconds(250), .seconds(4))

        /// The listening loop, on the store's own event loop rather than Swift's shared threads:
        /// the callers of the store's blocking methods may hold those (two of them on two cores),
        /// and the changes would then wait for them.
        private actor Listener {
            let database: PostgresStoreDatabase
            let eventLoop: any EventLoop

            init(database: PostgresStoreDatabase, eventLoop: any EventLoop) {
                self.database = database
                self.eventLoop = eventLoop
            }

            nonisolated var unownedExecutor: UnownedSerialExecutor {
                eventLoop.executor.asUnownedSerialExecutor()
            }

            func listen(telling continuation: AsyncStream<StoreChange>.Continuation) async {
                var pause = PostgresStoreDatabase.listeningRetry.first
                while !Task.isCancelled {
                    do {
                        let connection = try await PostgresConnection.connect(
                            on: eventLoop, configuration: database.connectionConfiguration(listening: true),
                            id: database.nextConnectionID(), logger: database.logger)
                        do {
                            try await connection.listen(on: database.channel) { notifications in
                                continuation.yield(.resynchronize)
                                pause = PostgresStoreDatabase.listeningRetry.first
                                let logger = database.logger
                                try await withThrowingTaskGroup(of: Void.self) { group in
                                    group.addTask { try await PostgresStoreDatabase.keepAlive(connection, logger: logger) }
                                    for try await notification in notifications {
                                        database.hear(notification.payload, telling: continuation)
                                    }
                                    group.cancelAll()
                                }
                            }
                        } catch {
                            database.logger.warning(
                                "stopped listening", metadata: ["error": "\(PostgresFailure.describing(error))"])
                        }
                        try? await connection.close()
                    } catch {
                        database.logger.warning(
                            "cannot listen", metadata: ["error": "\(PostgresFailure.describing(error))"])
                    }
                    try? await Task.sleep(for: pause)
                    pause = min(pause * 2, PostgresStoreDatabase.listeningRetry.longest)
                }
                continuation.finish()
            }
        }

        /// How often the listening connection is asked a trivial question, and how long it has to
        /// answer. A connection that hangs without closing (a network that drops packets, a
        /// server that stopped) tells nothing: without a question, a server would wait for
        /// notifications that never come.
        static let listenerCheck: (every: Duration, answerWithin: TimeAmount) = (.seconds(5), .seconds(5))

        /// Asks `connection` `SELECT 1` every few seconds; closes it when it does not answer in
        /// time, which ends its notifications, so that the loop listens again on a new one.
        /// Returns only by throwing: its cancellation, or the connection's failure.
        fileprivate static func keepAlive(_ connection: PostgresConnection, logger: Logger) async throws {
            while true {
                try await Task.sleep(for: listenerCheck.every)
                try await check(connection, logger: logger).get()
            }
        }

        /// `SELECT 1` on `connection`, which is closed if the answer has not come in time.
        private static func check(_ connection: PostgresConnection, logger: Logger) -> EventLoopFuture<Void> {
            let answered = connection.query(PostgresQuery(unsafeSQL: "SELECT 1"), logger: logger)
            let deadline = connection.eventLoop.scheduleTask(in: listenerCheck.answerWithin) {
                logger.warning("the listening connection did not answer: listening on another")
                connection.close().whenComplete { _ in }
            }
            return answered.always { _ in deadline.cancel() }.map { _ in }
        }

        func hear(_ payload: String, telling continuation: AsyncStream<StoreChange>.Continuation) {
            guard let announcement = try? JSONDecoder().decode(Announcement.self, from: Data(payload.utf8)) else {
                logger.warning("an announcement not understood", metadata: ["payload": "\(payload.prefix(200))"])
                return
            }
            guard announcement.origin != origin else { return }
            continuation.yield(announcement.change)
        }

        // MARK: Migrations

        /// Runs the migrations not yet recorded, in one transaction under the writers' lock: two
        /// servers starting at once migrate one after the other, and the second finds nothing to do.
        /// PostgreSQL's DDL is transactional, so a migration that fails leaves nothing half made.
        private func migrate() throws {
            try write { db in
                if let schema = location.schema {
                    try db.execute("CREATE SCHEMA IF NOT EXISTS \(schema)", [])
                }
                try db.execute(
                    """
                    CREATE TABLE IF NOT EXISTS hitthat_migrations (
                        identifier TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                    """, [])
                let done = Set(
                    try db.fetch("SELECT identifier FROM hitthat_migrations", []).map {
                        try $0.get("identifier", as: String.self)
                    })
                for migration in Schema.migrations where !done.contains(migration.identifier) {
                    try migration.migrate(db)
                    try db.execute("INSERT INTO hitthat_migrations (identifier) VALUES (?)", [migration.identifier])
                }
            }
        }
    }

    /// A connection of the store's with the statements prepared on it: used by one transaction at
    /// a time, taken from the pool of idle connections and given back.
    final class PooledConnection: @unchecked Sendable {
        let connection: PostgresConnection
        /// The statements prepared on the connection, by the store's SQL text.
        var prepared: [String: PreparedStatement] = [:]

        /// The most statements prepared on one connection: the store sends a few dozen often.
        static let mostPrepared = 200

        init(_ connection: PostgresConnection) { self.connection = connection }
    }

    /// A statement prepared on a connection, each parameter cast to the type of the value it was
    /// first sent with. postgres-nio's `PreparedQuery` sends no parameter types, and a value bound
    /// in binary as another type than the one PostgreSQL inferred is misread, not refused (a
    /// DOUBLE PRECISION read as a BIGINT): cast, every parameter's type is the one bound.
    struct PreparedStatement {
        let query: PreparedQuery
        let types: [String]

        /// The type `value` is bound as, to cast its parameter to; `nil` for NULL, which fits any.
        static func type(of value: SQLValue) -> String? {
            switch value {
            case .null: nil
            case .integer: "BIGINT"
            case .real: "DOUBLE PRECISION"
            case .text, .wholeText: "TEXT"
            case .bool: "BOOLEAN"
            }
        }

        /// Whether `values` are of the types the statement's parameters were cast to.
        func fits(_ values: [SQLValue]) -> Bool {
            values.count == types.count && zip(values, types).allSatisfy { value, type in
                Self.type(of: value).map { $0 == type } ?? true
            }
        }
    }

    /// One connection of the store's, in a transaction. Statements go out in order on the
    /// connection; those sent (`send`) are not waited for one by one: the next one waited for waits
    /// for them too, and throws the first failure among them. A statement sent often is prepared
    /// on the connection the first time it is sent there, and then only bound and run.
    final class PostgresSession: SQLSession {
        let pooled: PooledConnection
        var connection: PostgresConnection { pooled.connection }
        let database: PostgresStoreDatabase
        /// The statements sent and not yet waited for, oldest first.
        private var sent: [EventLoopFuture<Void>] = []

        init(_ pooled: PooledConnection, database: PostgresStoreDatabase) {
            self.pooled = pooled
            self.database = database
        }

        var dialect: SQLDialect { .postgres }

        func fetch(_ sql: String, _ arguments: SQLArguments) throws -> [SQLRow] {
            try Self.rows(wait(for: start(sql, arguments)))
        }

        func prefetch(_ sql: String, _ arguments: SQLArguments) throws -> Prefetched {
            let statement = try start(sql, arguments)
            // Among those sent, so that its failure fails the transaction even if nobody reads it.
            sent.append(statement.map { _ in })
            return Prefetched { try Self.rows(self.wait(for: statement)) }
        }

        private static func rows(_ rows: [PostgresRow]) throws -> [SQLRow] {
            guard let first = rows.first else { return [] }
            let names = first.map(\.columnName)
            return try rows.map { row in SQLRow(names: names, values: try row.map(Self.value)) }
        }

        /// Runs `sql` unprepared: the count of rows it changed is in the answer to an unnamed
        /// statement, not in that to a prepared one.
        @discardableResult
        func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
            let query = PostgresQuery(
                unsafeSQL: database.statement(sql).text, binds: Self.bindings(Self.values(arguments)))
            return try wait(for: connection.query(query, logger: database.logger)).metadata.rows ?? 0
        }

        func send(_ sql: String, _ arguments: SQLArguments) throws {
            sent.append(try start(sql, arguments).map { _ in })
        }

        func executeScript(_ sql: String) throws {
            for statement in SQLDialect.statements(of: sql) { try execute(statement, []) }
        }

        /// Waits for the statements sent before (answered before it: the connection runs them in
        /// order), then for `statement`.
        private func wait<T: Sendable>(for statement: EventLoopFuture<T>) throws -> T {
            let earlier = sent
            sent = []
            return try PostgresFailure.translating {
                for future in earlier { _ = try Blocking.wait(future) }
                return try Blocking.wait(statement)
            }
        }

        /// Lets the statements sent go unread, as a transaction that failed rolls back: their
        /// answers (failures among them) are of no more use.
        func forgetSent() {
            for future in sent { _ = try? Blocking.wait(future) }
            sent = []
        }

        /// Sends `sql` with `arguments`: prepared, when it is sent often; otherwise as an unnamed
        /// statement, parsed and planned each time.
        private func start(_ sql: String, _ arguments: SQLArguments) throws -> EventLoopFuture<[PostgresRow]> {
            let values = Self.values(arguments)
            let (statement, isFrequent) = database.statement(sql)
            if let prepared = try prepared(sql, for: values, isFrequent: isFrequent) {
                return prepared.execute(values.map(Self.data))
            }
            let query = PostgresQuery(unsafeSQL: statement, binds: Self.bindings(values))
            return connection.query(query, logger: database.logger).map(\.rows)
        }

        /// `sql` as prepared on this connection for `values`: already, or now when it is sent
        /// often (a round trip, once per connection, after the statements sent before it). `nil`
        /// to send it unnamed: values of other types than it was prepared for, or a NULL to
        /// prepare it with, whose type cannot be told.
        private func prepared(_ sql: String, for values: [SQLValue], isFrequent: Bool) throws -> PreparedQuery? {
            if let known = pooled.prepared[sql] { return known.fits(values) ? known.query : nil }
            let types = values.compactMap(PreparedStatement.type(of:))
            guard isFrequent, types.count == values.count, pooled.prepared.count < PooledConnection.mostPrepared
            else { return nil }
            // A statement prepared by name outlives the transaction, even one rolled back.
            let query = try wait(
                for: connection.prepare(query: SQLDialect.numberedPlaceholders(sql, castTo: types)))
            pooled.prepared[sql] = PreparedStatement(query: query, types: types)
            return query
        }

        private static func values(_ arguments: SQLArguments) -> [SQLValue] {
            arguments.map { $0?.sqlValue ?? .null }
        }

        /// `values` as an unnamed statement binds them, each with its type (which its `Parse` names).
        private static func bindings(_ values: [SQLValue]) -> PostgresBindings {
            var binds = PostgresBindings(capacity: values.count)
            for value in values { binds.append(data(value)) }
            return binds
        }

        /// `value` as bound: in binary, typed BIGINT, DOUBLE PRECISION, TEXT or BOOLEAN (PostgreSQL
        /// binds text by its length: no `WholeText` trick is needed).
        private static func data(_ value: SQLValue) -> PostgresData {
            switch value {
            case .null: .null
            case .integer(let value): PostgresData(int64: value)
            case .real(let value): PostgresData(double: value)
            case .text(let value), .wholeText(let value): PostgresData(string: value)
            case .bool(let value): PostgresData(bool: value)
            }
        }

        static func value(_ cell: PostgresCell) throws -> SQLValue {
            guard cell.bytes != nil else { return .null }
            // postgres-nio asks for every result in binary, but the rows of a `PreparedQuery` keep
            // the formats its statement was described with when prepared: text.
            var cell = cell
            cell.format = .binary
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .bool: return .bool(try cell.decode(Bool.self))
            default: return .text(try cell.decode(String.self))
            }
        }
    }

    // MARK: - Waiting

    /// A thread waiting for a future fulfilled on another thread's event loop.
    enum Blocking {
        /// Waits for `future` on a condition variable (pthread's, which ThreadSanitizer sees).
        static func wait<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
            let done = ConditionLock(value: false)
            let outcome = NIOLockedValueBox<Result<T, any Error>?>(nil)
            future.whenComplete { result in
                outcome.withLockedValue { $0 = result }
                done.lock()
                done.unlock(withValue: true)
            }
            done.lock(whenValue: true)
            done.unlock()
            // Set before `done` was: the lock orders the two.
            return try outcome.withLockedValue { $0! }.get()
        }
    }
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
        static func translating<T>(_ work: () throws -> T) throws -> T {
            do {
                return try work()
            } catch let error as PSQLError {
                throw PostgresFailure(error)
            } catch let error as PostgresError {
                throw PostgresFailure(error)
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
