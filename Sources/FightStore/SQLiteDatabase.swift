import FightEngine
import Foundation
import GRDB

// MARK: - SQLite

/// The store's SQLite file, through a GRDB pool: one writer at a time, readers beside it (WAL).
struct SQLiteDatabase: StoreDatabase {
    let pool: DatabasePool
    var dialect: SQLDialect { .sqlite }

    /// Opens (creating if needed) the file at `path` and brings it up to date.
    init(path: String, configuration: Configuration) throws {
        pool = try DatabasePool(path: path, configuration: configuration)
        try Schema.migrator.migrate(pool)
    }

    /// `BEGIN IMMEDIATE` takes the write lock up front, so that another process cannot slip a
    /// write between this one's read and write. One writer at a time, whatever its scope.
    func write<T>(_ scope: WriteScope, _ work: (any SQLSession) throws -> T) throws -> T {
        try pool.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
            do {
                let result = try work(SQLiteSession(db: db))
                try db.cachedStatement(sql: "COMMIT").execute()
                return result
            } catch {
                try? db.cachedStatement(sql: "ROLLBACK").execute()
                throw error
            }
        }
    }

    func read<T>(_ work: (any SQLSession) throws -> T) throws -> T {
        try pool.read { db in try work(SQLiteSession(db: db)) }
    }

    func readStatement<T>(_ work: (any SQLSession) throws -> T) throws -> T {
        try read { db in try work(OneStatement(db)) }
    }

    func writeApart<T>(_ work: (any SQLSession) throws -> T) throws -> T {
        try write { db in try work(OneStatement(db)) }
    }

    /// One server a file: there is nobody to tell, and nobody tells.
    var isShared: Bool { false }
    func announce(_ changes: [StoreChange], in db: any SQLSession) throws {}
    func changes() -> AsyncStream<StoreChange>? { nil }
}

/// A GRDB connection as a session. Statements are prepared once per connection and kept
/// (`cachedStatement`): preparing them anew for every command cost the hub's thread three times
/// the time (p99 push latency 57 ms against 18).
struct SQLiteSession: ImmediateSQLSession {
    let db: Database

    var dialect: SQLDialect { .sqlite }

    func fetch(_ sql: String, _ arguments: SQLArguments) throws -> [SQLRow] {
        let statement = try db.cachedStatement(sql: sql)
        let names = statement.columnNames
        return try Row.fetchAll(statement, arguments: Self.arguments(arguments)).map { row in
            SQLRow(names: names, values: row.databaseValues.map(Self.value))
        }
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
        try db.cachedStatement(sql: sql).execute(arguments: Self.arguments(arguments))
        return db.changesCount
    }

    func executeScript(_ sql: String) throws {
        try db.execute(sql: sql)
    }

    static func arguments(_ arguments: SQLArguments) -> StatementArguments {
        StatementArguments(
            arguments.map { argument -> (any DatabaseValueConvertible)? in
                switch argument?.sqlValue ?? .null {
                case .null: nil
                case .integer(let value): value
                case .real(let value): value
                case .text(let value): value
                case .bool(let value): value
                // Bound as its UTF-8 bytes, cast to TEXT by the placeholder (see `WholeText`).
                case .wholeText(let value): Data(value.utf8)
                }
            })
    }

    static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let value): .integer(value)
        case .double(let value): .real(value)
        case .string(let value): .text(value)
        // Only text selected through `WholeText.column` is read as bytes.
        case .blob(let bytes): .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}
