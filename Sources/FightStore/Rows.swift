import FightEngine
import Foundation

// MARK: - Fighters

enum FighterRows {
    static let names = [
        "id", "username", "display_name", "bio", "latitude", "longitude", "height_cm", "weight_kg", "reach_cm", "wins",
        "losses", "draws", "joined_at",
    ]
    /// The columns of free text, written and read through `WholeText`.
    static let freeText: Set = ["display_name", "bio"]
    static let columns = names.joined(separator: ", ")
    static let placeholders = names.map { freeText.contains($0) ? WholeText.placeholder : "?" }
        .joined(separator: ", ")

    /// The columns of `table` (a name, or an alias in a join) to select for `decode`, free text
    /// read whole.
    static func selection(of table: String = "fighters", in dialect: SQLDialect) -> String {
        names.map { name in
            freeText.contains(name)
                ? WholeText.column("\(table).\(name)", as: name, in: dialect) : "\(table).\(name) AS \(name)"
        }
        .joined(separator: ", ")
    }

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

    static func fetch(_ db: any SQLSession, where condition: String, _ arguments: SQLArguments) throws -> [Fighter] {
        try db.fetch(select(where: condition, in: db.dialect), arguments).map(decode)
    }

    /// The statement that selects the fighters `condition` holds for, for `decode`.
    static func select(where condition: String, in dialect: SQLDialect) -> String {
        "SELECT \(selection(in: dialect)) FROM fighters WHERE \(condition)"
    }

    /// The fighter whose lowercased username is `key`, if any. The key is bound whole, so that
    /// "alice\0x" does not find alice.
    static func fetch(_ db: any SQLSession, usernameKey key: String) throws -> Fighter? {
        try prefetch(db, usernameKey: key)?.rows().first.map(decode)
    }

    /// Starts asking for the fighter whose lowercased username is `key` (`fetch(_:usernameKey:)`):
    /// `nil` when no fighter can have it.
    static func prefetch(_ db: any SQLSession, usernameKey key: String) throws -> Prefetched? {
        // No saved username holds a NUL (the engine refuses control characters), and PostgreSQL
        // refuses to be asked about text that does.
        guard !key.utf8.contains(0) else { return nil }
        return try db.prefetch(
            select(where: "username_key = \(WholeText.placeholder)", in: db.dialect), [SQLValue.wholeText(key)])
    }

    /// Inserts or updates `fighter`, and its R*Tree entry when the location changed.
    static func save(_ fighter: Fighter, replacing old: Fighter?, in db: any SQLSession) throws {
        try db.send(
            """
            INSERT INTO fighters (\(columns), username_key) VALUES (\(placeholders), ?)
            ON CONFLICT(id) DO UPDATE SET
                display_name = excluded.display_name, bio = excluded.bio,
                latitude = excluded.latitude, longitude = excluded.longitude,
                height_cm = excluded.height_cm, weight_kg = excluded.weight_kg, reach_cm = excluded.reach_cm,
                wins = excluded.wins, losses = excluded.losses, draws = excluded.draws
            """,
            [
                fighter.id.rawValue, fighter.username.rawValue, SQLValue.wholeText(fighter.displayName),
                SQLValue.wholeText(fighter.bio),
                fighter.location?.latitude, fighter.location?.longitude, fighter.profile.heightCm,
                fighter.profile.weightKg, fighter.profile.reachCm, fighter.record.wins, fighter.record.losses,
                fighter.record.draws, fighter.joinedAt.secondsSince1970, fighter.username.key,
            ])
        guard fighter.location != old?.location else { return }
        // Deleted and inserted again rather than upserted: SQLite's R*Tree, a virtual table, takes
        // no ON CONFLICT clause.
        try db.send("DELETE FROM fighter_locations WHERE id = ?", [fighter.id.rawValue])
        if let location = fighter.location {
            try db.send(
                "INSERT INTO fighter_locations (id, min_lat, max_lat, min_lon, max_lon) VALUES (?, ?, ?, ?, ?)",
                [fighter.id.rawValue, location.latitude, location.latitude, location.longitude, location.longitude])
        }
    }
}

// MARK: - Fights

enum FightRows {
    static func fetch(_ db: any SQLSession, where condition: String, _ arguments: SQLArguments) throws -> [Fight] {
        try db.fetch(select(where: condition), arguments).map(decode)
    }

    /// The statement that selects the fights `condition` holds for, for `decode`.
    static func select(where condition: String) -> String {
        "SELECT id, body FROM fights WHERE \(condition)"
    }

    static func decode(_ row: SQLRow) throws -> Fight {
        try JSON.decode(Fight.self, from: row.get("body"), table: "fights", rowID: row.get("id"))
    }

    static func save(_ fight: Fight, in db: any SQLSession) throws {
        let (low, high) = (min(fight.challenger, fight.opponent), max(fight.challenger, fight.opponent))
        try db.send(
            """
            INSERT INTO fights (id, challenger_id, opponent_id, pair_low, pair_high, is_open, deadline, body)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET is_open = excluded.is_open, deadline = excluded.deadline, body = excluded.body
            """,
            [
                fight.id.rawValue, fight.challenger.rawValue, fight.opponent.rawValue, low.rawValue, high.rawValue,
                fight.isOpen, fight.deadline?.secondsSince1970, try JSON.encode(fight),
            ])
    }
}

// MARK: - Events

enum EventRows {
    static func append(_ event: Event, in db: any SQLSession) throws {
        var fight: Int64?, sequence: Int?, fighter: Int64?
        switch event {
        case .fight(let e): (fight, sequence) = (e.fight.rawValue, e.sequence)
        case .fighter(let e): fighter = e.fighter.rawValue
        }
        try db.send(
            "INSERT INTO events (fight_id, sequence, fighter_id, at, body) VALUES (?, ?, ?, ?, ?)",
            [fight, sequence, fighter, event.at.secondsSince1970, try JSON.encode(event)])
    }

    static func fetch(
        _ db: any SQLSession, where condition: String = "TRUE", _ arguments: SQLArguments = []
    ) throws -> [Event] {
        try db.fetch("SELECT id, body FROM events WHERE \(condition) ORDER BY id", arguments).map { row in
            try JSON.decode(Event.self, from: row.get("body"), table: "events", rowID: row.get("id"))
        }
    }
}

// MARK: - Text kept whole

/// Text written and read by its length in bytes, so that it comes back as it went in.
///
/// GRDB binds a `String` as a C string (`sqlite3_bind_text` with length -1) and reads a TEXT
/// value back with `String(cString:)`, so both ways a text stopped at its first NUL: "ab\0cd" was
/// saved as "ab". Bound as its UTF-8 bytes and cast to TEXT in SQL, a text is saved whole and
/// stays a TEXT value (compared and indexed as before); selected cast to a BLOB, it is read by
/// its length. The engine refuses control characters in fighters' text, so a NUL should never
/// come; if one does, SQLite keeps it, not cut. PostgreSQL binds and reads text by its length
/// anyway; it refuses a NUL in text outright, so there one is an error, never a cut.
enum WholeText {
    /// Where a `SQLValue.wholeText` is bound in SQL (in PostgreSQL a cast of text to text).
    static let placeholder = "CAST(? AS TEXT)"
    /// Selects text column `column` as `name`, to be read whole as a `String`.
    static func column(_ column: String, as name: String, in dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite: "CAST(\(column) AS BLOB) AS \(name)"
        case .postgres: "\(column) AS \(name)"
        }
    }
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
