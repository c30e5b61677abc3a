import FightEngine
import Foundation

// MARK: - Rows, whichever database read them

/// A value read from a row: the types the store's columns hold.
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case bool(Bool)
}

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

/// One row of a result, its values by column name: what each driver's rows are read as, so that
/// fighters, fights and statistics are decoded once for both databases.
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

// MARK: - Fighters

enum FighterRows {
    /// The columns a fighter is saved in, in the order both databases' inserts list them.
    static let names = [
        "id", "username", "display_name", "bio", "latitude", "longitude", "height_cm", "weight_kg", "reach_cm", "wins",
        "losses", "draws", "joined_at",
    ]
    /// The columns of free text, read whole on SQLite (`WholeText`).
    static let freeText: Set = ["display_name", "bio"]
    static let columns = names.joined(separator: ", ")

    /// The columns of `table` (a name, or an alias in a join) to select for `decode`, free text
    /// read whole where `wholeText` (SQLite).
    static func selection(of table: String = "fighters", wholeText: Bool) -> String {
        names.map { name in
            wholeText && freeText.contains(name)
                ? "CAST(\(table).\(name) AS BLOB) AS \(name)" : "\(table).\(name) AS \(name)"
        }
        .joined(separator: ", ")
    }

    /// What an upsert of a fighter changes of a row already there (the username and when they
    /// joined never change).
    static let upsert = """
        ON CONFLICT(id) DO UPDATE SET
            display_name = excluded.display_name, bio = excluded.bio,
            latitude = excluded.latitude, longitude = excluded.longitude,
            height_cm = excluded.height_cm, weight_kg = excluded.weight_kg, reach_cm = excluded.reach_cm,
            wins = excluded.wins, losses = excluded.losses, draws = excluded.draws
        """

    static func decode(_ row: SQLRow) throws -> Fighter {
        let id: Int64 = try row.get("id")
        let username: Username
        do { username = try Username(validating: row.get("username")) } catch {
            throw StoreError(table: "fighters", rowID: id, problem: "\(error)")
        }
        let latitude: Double? = try row.get("latitude"), longitude: Double? = try row.get("longitude")
        return Fighter(
            id: FighterID(id), username: username, displayName: try row.get("display_name"), bio: try row.get("bio"),
            location: latitude.flatMap { lat in longitude.map { Coordinate(latitude: lat, longitude: $0) } },
            profile: ProfileStats(
                heightCm: try row.get("height_cm"), weightKg: try row.get("weight_kg"), reachCm: try row.get("reach_cm")
            ),
            record: Record(wins: try row.get("wins"), losses: try row.get("losses"), draws: try row.get("draws")),
            joinedAt: Timestamp(secondsSince1970: try row.get("joined_at")))
    }
}

// MARK: - Fights

enum FightRows {
    /// What an upsert of a fight changes of a row already there.
    static let upsert = "ON CONFLICT(id) DO UPDATE SET is_open = excluded.is_open, deadline = excluded.deadline, body = excluded.body"

    static func decode(_ row: SQLRow) throws -> Fight {
        try JSON.decode(Fight.self, from: row.get("body"), table: "fights", rowID: row.get("id"))
    }

    /// The fight's lower and higher fighter, the pair's key.
    static func pair(of fight: Fight) -> (low: Int64, high: Int64) {
        (min(fight.challenger, fight.opponent).rawValue, max(fight.challenger, fight.opponent).rawValue)
    }
}

// MARK: - Events

enum EventRows {
    /// The columns an event is saved in besides its body: its fight and sequence, or its fighter.
    static func keys(of event: Event) -> (fight: Int64?, sequence: Int?, fighter: Int64?) {
        switch event {
        case .fight(let e): (e.fight.rawValue, e.sequence, nil)
        case .fighter(let e): (nil, nil, e.fighter.rawValue)
        }
    }

    static func decode(_ row: SQLRow) throws -> Event {
        try JSON.decode(Event.self, from: row.get("body"), table: "events", rowID: row.get("id"))
    }
}

// MARK: - Rooms

enum RoomRows {
    static func decode(_ row: SQLRow) throws -> Room {
        Room(
            fighter: FighterID(try row.get("fighter_id")),
            openedAt: Timestamp(secondsSince1970: try row.get("opened_at")))
    }
}

// MARK: - Text kept whole

/// Text written and read by its length in bytes, so that it comes back as it went in: SQLite's.
///
/// GRDB binds a `String` as a C string (`sqlite3_bind_text` with length -1) and reads a TEXT
/// value back with `String(cString:)`, so both ways a text stopped at its first NUL: "ab\0cd" was
/// saved as "ab". Bound as its UTF-8 bytes and cast to TEXT in SQL, a text is saved whole and
/// stays a TEXT value (compared and indexed as before); selected cast to a BLOB
/// (`FighterRows.selection`), it is read by its length. The engine refuses control characters in
/// fighters' text, so a NUL should never come; if one does, SQLite keeps it, not cut. PostgreSQL
/// binds and reads text by its length anyway; it refuses a NUL in text outright, so there one is
/// an error, never a cut.
enum WholeText {
    /// `text` as bound where SQLite's SQL reads `CAST(\(bytes) AS TEXT)`.
    static func bytes(_ text: String) -> Data { Data(text.utf8) }
}

// MARK: - JSON

enum JSON {
    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String, table: String, rowID: Int64) throws -> T {
        do { return try JSONDecoder().decode(type, from: Data(text.utf8)) } catch {
            throw StoreError(table: table, rowID: rowID, problem: "unreadable \(T.self): \(error)")
        }
    }
}
