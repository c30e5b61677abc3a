import FightEngine
import Foundation
import GRDB

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
    static func selection(of table: String = "fighters") -> String {
        names.map { name in
            freeText.contains(name) ? WholeText.column("\(table).\(name)", as: name) : "\(table).\(name) AS \(name)"
        }
        .joined(separator: ", ")
    }

    static func decode(_ row: Row) throws -> Fighter {
        let id: Int64 = row["id"]
        let username: Username
        do { username = try Username(validating: row["username"]) } catch {
            throw StoreError(table: "fighters", rowID: id, problem: "\(error)")
        }
        let latitude: Double? = row["latitude"], longitude: Double? = row["longitude"]
        return Fighter(
            id: FighterID(id), username: username, displayName: row["display_name"], bio: row["bio"],
            location: latitude.flatMap { lat in longitude.map { Coordinate(latitude: lat, longitude: $0) } },
            profile: ProfileStats(heightCm: row["height_cm"], weightKg: row["weight_kg"], reachCm: row["reach_cm"]),
            record: Record(wins: row["wins"], losses: row["losses"], draws: row["draws"]),
            joinedAt: Timestamp(secondsSince1970: row["joined_at"]))
    }

    static func fetch(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [Fighter] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT \(selection()) FROM fighters WHERE \(condition)"), arguments: arguments).map(
            decode)
    }

    /// The fighter whose lowercased username is `key`, if any. The key is bound whole, so that
    /// "alice\0x" does not find alice.
    static func fetch(_ db: Database, usernameKey key: String) throws -> Fighter? {
        try fetch(db, where: "username_key = \(WholeText.placeholder)", [WholeText.argument(key)]).first
    }

    /// Inserts or updates `fighter`, and its R*Tree entry when the location changed.
    static func save(_ fighter: Fighter, replacing old: Fighter?, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO fighters (\(columns), username_key) VALUES (\(placeholders), ?)
                ON CONFLICT(id) DO UPDATE SET
                    display_name = excluded.display_name, bio = excluded.bio,
                    latitude = excluded.latitude, longitude = excluded.longitude,
                    height_cm = excluded.height_cm, weight_kg = excluded.weight_kg, reach_cm = excluded.reach_cm,
                    wins = excluded.wins, losses = excluded.losses, draws = excluded.draws
                """).execute(
            arguments: [
                fighter.id.rawValue, fighter.username.rawValue, WholeText.argument(fighter.displayName),
                WholeText.argument(fighter.bio),
                fighter.location?.latitude, fighter.location?.longitude, fighter.profile.heightCm,
                fighter.profile.weightKg, fighter.profile.reachCm, fighter.record.wins, fighter.record.losses,
                fighter.record.draws, fighter.joinedAt.secondsSince1970, fighter.username.key,
            ])
        guard fighter.location != old?.location else { return }
        if let location = fighter.location {
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO fighter_locations VALUES (?, ?, ?, ?, ?)").execute(
                arguments: [
                    fighter.id.rawValue, location.latitude, location.latitude, location.longitude, location.longitude,
                ])
        } else {
            try db.cachedStatement(sql: "DELETE FROM fighter_locations WHERE id = ?").execute(arguments: [fighter.id.rawValue])
        }
    }
}

// MARK: - Fights

enum FightRows {
    static func fetch(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [Fight] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT id, body FROM fights WHERE \(condition)"), arguments: arguments).map { row in
            try JSON.decode(Fight.self, from: row["body"], table: "fights", rowID: row["id"])
        }
    }

    static func save(_ fight: Fight, in db: Database) throws {
        let (low, high) = (min(fight.challenger, fight.opponent), max(fight.challenger, fight.opponent))
        try db.cachedStatement(
            sql: """
                INSERT INTO fights (id, challenger_id, opponent_id, pair_low, pair_high, is_open, deadline, body)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET is_open = excluded.is_open, deadline = excluded.deadline, body = excluded.body
                """).execute(
            arguments: [
                fight.id.rawValue, fight.challenger.rawValue, fight.opponent.rawValue, low.rawValue, high.rawValue,
                fight.isOpen, fight.deadline?.secondsSince1970, try JSON.encode(fight),
            ])
    }
}

// MARK: - Events

enum EventRows {
    static func append(_ event: Event, in db: Database) throws {
        var fight: Int64?, sequence: Int?, fighter: Int64?
        switch event {
        case .fight(let e): (fight, sequence) = (e.fight.rawValue, e.sequence)
        case .fighter(let e): fighter = e.fighter.rawValue
        }
        try db.cachedStatement(
            sql: "INSERT INTO events (fight_id, sequence, fighter_id, at, body) VALUES (?, ?, ?, ?, ?)").execute(
            arguments: [fight, sequence, fighter, event.at.secondsSince1970, try JSON.encode(event)])
    }

    static func fetch(
        _ db: Database, where condition: String = "1", _ arguments: StatementArguments = []
    ) throws -> [Event] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT id, body FROM events WHERE \(condition) ORDER BY id"), arguments: arguments)
            .map { row in
                try JSON.decode(Event.self, from: row["body"], table: "events", rowID: row["id"])
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
/// come; if one does, it is kept, not cut.
enum WholeText {
    /// The value to bind where `placeholder` stands.
    static func argument(_ text: String) -> Data { Data(text.utf8) }
    /// Where a `WholeText.argument` is bound in SQL.
    static let placeholder = "CAST(? AS TEXT)"
    /// Selects text column `column` as `name`, to be read whole as a `String`.
    static func column(_ column: String, as name: String) -> String { "CAST(\(column) AS BLOB) AS \(name)" }
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
