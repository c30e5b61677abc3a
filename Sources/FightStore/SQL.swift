import FightEngine
import Foundation

// MARK: - The store's SQL, apart from the database that runs it

/// The two databases the store runs on. The SQL is written once, in the subset both speak (`?` and
/// `?N` placeholders, `ON CONFLICT … DO UPDATE`, `TRUE`); what differs (column types, the index of
/// locations, reading text whole) is asked of the dialect, in the few places it differs.
enum SQLDialect: Sendable {
    case sqlite
    case postgres
}

/// A value bound to a statement or read from a row: the types the store's columns hold.
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case bool(Bool)
    /// Text bound by its length in bytes where `WholeText.placeholder` stands (see `WholeText`).
    case wholeText(String)
}

/// A Swift value that can be bound to a placeholder.
protocol SQLBindable {
    /// The value as bound.
    var sqlValue: SQLValue { get }
}

extension Int64: SQLBindable { var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLBindable { var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Double: SQLBindable { var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLBindable { var sqlValue: SQLValue { .bool(self) } }
extension SQLValue: SQLBindable { var sqlValue: SQLValue { self } }

/// A statement's arguments, in placeholder order; `nil` binds NULL.
typealias SQLArguments = [(any SQLBindable)?]

/// A Swift value that can be read from a column.
protocol SQLReadable {
    /// The value, or nil when the column's value is not of this type.
    init?(sqlValue: SQLValue)
}

extension Int64: SQLReadable {
    init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value
    }
}
extension Int: SQLReadable {
    init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self.init(value)
    }
}
extension Double: SQLReadable {
    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let value): self = value
        // SQLite keeps a whole number in a REAL column as an integer when it is read back from an index.
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}
extension String: SQLReadable {
    init?(sqlValue: SQLValue) {
        guard case .text(let value) = sqlValue else { return nil }
        self = value
    }
}
extension Bool: SQLReadable {
    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .bool(let value): self = value
        // SQLite has no booleans: a comparison is 0 or 1.
        case .integer(let value): self = value != 0
        default: return nil
        }
    }
}
extension Optional: SQLReadable where Wrapped: SQLReadable {
    init?(sqlValue: SQLValue) {
        if case .null = sqlValue {
            self = .none
        } else if let value = Wrapped(sqlValue: sqlValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
}

/// One row of a result, its values by column name.
struct SQLRow: Sendable {
    /// The result's column names, shared by its rows.
    let names: [String]
    let values: [SQLValue]

    /// The value of column `name`, read as `T`.
    /// - Throws: `StoreError` when there is no such column or its value is not a `T`: the table
    ///   is not what this store wrote.
    func get<T: SQLReadable>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let index = names.firstIndex(of: name) else {
            throw StoreError(table: "result", rowID: 0, problem: "no column \(name) among \(names)")
        }
        guard let value = T(sqlValue: values[index]) else {
            throw StoreError(
                table: "result", rowID: 0, problem: "column \(name): expected \(T.self), found \(values[index])")
        }
        return value
    }
}

/// One connection's work, in the transaction (or read snapshot) the database opened for it.
protocol SQLSession {
    /// The language it speaks where the two differ.
    var dialect: SQLDialect { get }

    /// Runs one statement and returns its rows.
    func fetch(_ sql: String, _ arguments: SQLArguments) throws -> [SQLRow]

    /// Runs one statement that returns no rows.
    /// - Returns: how many rows it inserted, changed or deleted.
    @discardableResult
    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int

    /// Starts one statement whose rows are read later (`Prefetched.rows`), in a transaction, so
    /// that statements that do not depend on each other wait once between them. PostgreSQL's
    /// session sends it and goes on; SQLite's runs it at once.
    func prefetch(_ sql: String, _ arguments: SQLArguments) throws -> Prefetched

    /// Runs one statement whose result nobody reads (a save, a notification), in a transaction.
    /// PostgreSQL's session sends it and goes on without waiting for the answer: its failure is
    /// thrown by the next statement waited for, at the latest the commit, which then rolls back.
    /// One wake of the waiting thread for a command's writes together, not one a statement.
    func send(_ sql: String, _ arguments: SQLArguments) throws

    /// Runs statements separated by semicolons, with no arguments: a migration's.
    func executeScript(_ sql: String) throws
}

extension SQLSession {
    /// The first row's first column, if there is a row.
    func fetchValue<T: SQLReadable>(
        _ sql: String, _ arguments: SQLArguments = [], as type: T.Type = T.self
    ) throws -> T? {
        guard let row = try fetch(sql, arguments).first, let name = row.names.first else { return nil }
        return try row.get(name, as: T.self)
    }
}

/// A database the store keeps everything in: SQLite through GRDB, or PostgreSQL.
protocol StoreDatabase: Sendable {
    /// The language it speaks where the two differ.
    var dialect: SQLDialect { get }

    /// Runs `work`, which writes only what `scope` says, in a transaction that no other writer
    /// of it can interleave with, from whichever process: it sees every commit of theirs before
    /// it and writes as if alone. Commits when `work` returns, rolls back when it throws. Where
    /// there is one writer anyway (SQLite), every scope is `everything`.
    func write<T>(_ scope: WriteScope, _ work: (any SQLSession) throws -> T) throws -> T

    /// Runs `work` on one snapshot of the database, without blocking writers.
    func read<T>(_ work: (any SQLSession) throws -> T) throws -> T

    /// Runs `work`, one statement, on the statement's own snapshot, without blocking writers: on
    /// PostgreSQL without `BEGIN` and `COMMIT`, two round trips fewer than `read` (the hub reads
    /// a fight for each hold's first motion batch). A second statement is a programming error
    /// (it would read another snapshot), caught by `OneStatement` on either database.
    func readStatement<T>(_ work: (any SQLSession) throws -> T) throws -> T

    /// Runs `work`, one statement (`OneStatement`), on its own, not waiting for the commands'
    /// writers: for rows that only it touches and that no command reads (a fighter's rate
    /// allowance, a server's lease, accounts and sessions), so that keeping them does not queue
    /// behind every fight's commands on every server.
    /// On PostgreSQL the statement is its own transaction (no `BEGIN` and `COMMIT`: two round
    /// trips fewer). Where there is one writer anyway (SQLite), the same as `write`.
    func writeApart<T>(_ work: (any SQLSession) throws -> T) throws -> T

    /// Whether other servers may share the database (PostgreSQL): then what one commits is
    /// announced to the others (`announce`, `changes`), and starts and rate limits are the
    /// cluster's, not the process's.
    var isShared: Bool { get }

    /// Tells the other servers sharing the database of `changes` once the transaction of `db`
    /// commits, and never if it does not; nothing where no other server can share it.
    func announce(_ changes: [StoreChange], in db: any SQLSession) throws

    /// What the other servers commit, as they commit it; `nil` where no other server can share
    /// the database.
    func changes() -> AsyncStream<StoreChange>?
}

extension StoreDatabase {
    /// Runs `work` in a transaction that no other writer can interleave with (`everything`).
    func write<T>(_ work: (any SQLSession) throws -> T) throws -> T {
        try write(.everything, work)
    }
}

/// What a write transaction may change, and so which other writers it waits for: on PostgreSQL
/// those of other scopes (fights of other fighters, the rooms, registrations, presence) run side
/// by side, on any server. What every scope adds to (the log, the statistics) is added in SQL,
/// whatever the others added meanwhile.
enum WriteScope: Hashable {
    /// Anything: waits for every other writer, and every other writer waits for it.
    case everything
    /// Fight `id` and its two fighters, and the events and statistics lines it adds: a command
    /// in one fight (`Command.fight`). Waits for the writers of those fighters' fights.
    case fight(FightID)
    /// The quick-match rooms and the fights they start: with `everything`'s challenges, the only
    /// writers that start fights, so the next fight's identifier is theirs alone.
    case rooms
    /// New fighters: the next fighter's identifier, and usernames.
    case registrations
    /// Which servers each fighter is connected to.
    case presence
}

/// The rows of a statement started ahead (`SQLSession.prefetch`).
struct Prefetched {
    /// Waits for the rows, if they have not come yet, and gives them; throws the statement's failure.
    let rows: () throws -> [SQLRow]
}

// MARK: - One statement

/// The session `readStatement` and `writeApart` give their work: it runs one statement, and traps
/// on a second, which would run on another snapshot (or commit apart) on PostgreSQL. Trapping on
/// SQLite as well lets the default tests catch the mistake.
final class OneStatement: ImmediateSQLSession {
    private let session: any SQLSession
    private var used = false

    init(_ session: any SQLSession) { self.session = session }

    var dialect: SQLDialect { session.dialect }

    private func use() {
        precondition(!used, "a second statement in a session of one")
        used = true
    }

    func fetch(_ sql: String, _ arguments: SQLArguments) throws -> [SQLRow] {
        use()
        return try session.fetch(sql, arguments)
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
        use()
        return try session.execute(sql, arguments)
    }

    func executeScript(_ sql: String) throws {
        preconditionFailure("a script in a session of one statement")
    }
}

/// A session that runs each statement as it is given: what it is asked to send or prefetch it
/// runs at once. SQLite's (a local file has no round trip to save), and one statement's (with no
/// transaction around it, nothing later would report a failure sent ahead).
protocol ImmediateSQLSession: SQLSession {}

extension ImmediateSQLSession {
    func send(_ sql: String, _ arguments: SQLArguments) throws {
        try execute(sql, arguments)
    }

    func prefetch(_ sql: String, _ arguments: SQLArguments) throws -> Prefetched {
        let rows = try fetch(sql, arguments)
        return Prefetched { rows }
    }
}

// MARK: - Scripts

extension SQLDialect {
    /// The statements of `script`, without the semicolons between them, for a database whose
    /// driver runs one statement at a time. Semicolons in quotes and comments do not split.
    static func statements(of script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var quote: Character?
        var inComment = false
        var previous: Character?
        for character in script {
            defer { previous = character }
            if inComment {
                if character == "\n" { inComment = false }
                current.append(character)
                continue
            }
            if let open = quote {
                if character == open { quote = nil }
                current.append(character)
                continue
            }
            switch character {
            case "'", "\"": quote = character
            case "-" where previous == "-": inComment = true
            case ";":
                statements.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        statements.append(current)
        return statements.filter { statement in
            // A piece that is only comments and blanks is nothing to run.
            statement.split(separator: "\n").contains { line in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                return !trimmed.isEmpty && !trimmed.hasPrefix("--")
            }
        }
    }

    /// `sql` with SQLite's placeholders (`?`, `?N`) written as PostgreSQL's (`$N`), numbered as
    /// SQLite numbers them: a bare `?` is one more than the largest number before it. With
    /// `types`, placeholder N is cast to the Nth (`CAST($N AS BIGINT)`), which types the parameter.
    static func numberedPlaceholders(_ sql: String, castTo types: [String] = []) -> String {
        var result = ""
        var largest = 0
        var quote: Character?
        var characters = sql[...]
        while let character = characters.popFirst() {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                result.append(character)
            case "?":
                let digits = characters.prefix { $0.isASCII && $0.isNumber }
                characters = characters.dropFirst(digits.count)
                let number = Int(digits) ?? largest + 1
                largest = max(largest, number)
                result +=
                    types.indices.contains(number - 1) ? "CAST($\(number) AS \(types[number - 1]))" : "$\(number)"
            default:
                result.append(character)
            }
        }
        return result
    }
}
