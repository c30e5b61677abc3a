import FightEngine
import Foundation
import GRDB

// MARK: - SQLite

/// The store's SQLite file, through one GRDB pool: one writer at a time, readers beside it (WAL),
/// each call awaiting GRDB's own queues (`read`, `writeWithoutTransaction`), so that no caller's
/// thread waits for the disk. The SQL is GRDB's `SQL` interpolation (`"… WHERE id = \(id)"`
/// binds the value), each statement prepared once per connection and kept (`cachedStatement`):
/// preparing them anew for every command cost the hub three times the time.
struct SQLiteDatabase: StoreDatabase {
    let pool: DatabasePool
    var kind: String { "sqlite" }

    /// Opens (creating if needed) the file at `path` and brings it up to date.
    init(path: String, configuration: Configuration) throws {
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    /// GRDB's migrator, with every migration, as files have recorded them all along.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        let types = ColumnTypes(.sqlite)
        for migration in Schema.migrations {
            migrator.registerMigration(migration.identifier) { db in
                switch migration.step {
                case .statements(let statements):
                    for statement in statements(types) { try db.execute(sql: statement) }
                case .countMissedTurns:
                    for fight in try fights(db, "SELECT id, body FROM fights WHERE is_open") {
                        let log = try db.rows("SELECT id, body FROM events WHERE fight_id = \(fight.id.rawValue) ORDER BY id")
                        try save(Schema.countingMissedTurns(fight, log: log.map(EventRows.decode)), in: db)
                    }
                }
            }
        }
        return migrator
    }

    /// Runs `work` in a transaction that takes the write lock up front (`BEGIN IMMEDIATE`), so
    /// that another process cannot slip a write between this one's read and write. One writer
    /// at a time, whatever its scope. Commits when `work` returns, rolls back when it throws.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try work(db)
                return .commit
            }
            return result!
        }
    }

    /// Runs `work` on one snapshot of the file, without blocking the writer.
    func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(work)
    }

    func checkReachable() async throws {
        _ = try await read { db in try db.rows("SELECT 1 AS one") }
    }

    func runScript(_ sql: String, beforeCommit: @escaping @Sendable () -> Void) async throws -> [SQLRow] {
        try await write { db in
            var rows: [SQLRow] = []
            for statement in Schema.statements(sql) { rows = try db.rows(SQL(sql: statement)) }
            beforeCommit()
            return rows
        }
    }

    // MARK: Rows

    /// `value` as the store reads it. Only text selected as a BLOB (`WholeText`) is read as bytes.
    static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let value): .integer(value)
        case .double(let value): .real(value)
        case .string(let value): .text(value)
        case .blob(let bytes): .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The columns of a fighter, free text read whole, of `table` (a name or alias).
    static func fighterColumns(of table: String = "fighters") -> SQL {
        SQL(sql: FighterRows.selection(of: table, wholeText: true))
    }

    static func fighters(_ db: Database, where condition: SQL) throws -> [Fighter] {
        try db.rows("SELECT \(fighterColumns()) FROM fighters WHERE \(condition)").map(FighterRows.decode)
    }

    static func fights(_ db: Database, _ sql: SQL) throws -> [Fight] {
        try db.rows(sql).map(FightRows.decode)
    }

    static func fight(_ db: Database, _ id: FightID) throws -> Fight? {
        try fights(db, "SELECT id, body FROM fights WHERE id = \(id.rawValue)").first
    }

    /// Inserts or updates `fight`.
    static func save(_ fight: Fight, in db: Database) throws {
        let (low, high) = FightRows.pair(of: fight)
        try db.run(
            """
            INSERT INTO fights (id, challenger_id, opponent_id, pair_low, pair_high, is_open, deadline, body)
            VALUES (\(fight.id.rawValue), \(fight.challenger.rawValue), \(fight.opponent.rawValue), \(low), \(high),
                \(fight.isOpen), \(fight.deadline?.secondsSince1970), \(try JSON.encode(fight)))
            \(sql: FightRows.upsert)
            """)
    }
}

extension Database {
    /// The rows of `sql`, read as the store reads rows.
    func rows(_ sql: SQL) throws -> [SQLRow] {
        let statement = try cachedStatement(literal: sql)
        let names = statement.columnNames
        return try Row.fetchAll(statement).map { row in
            SQLRow(names: names, values: row.databaseValues.map(SQLiteDatabase.value))
        }
    }

    /// Runs `sql`, which returns no rows.
    /// - Returns: how many rows it inserted, changed or deleted.
    @discardableResult
    func run(_ sql: SQL) throws -> Int {
        try cachedStatement(literal: sql).execute()
        return changesCount
    }
}
