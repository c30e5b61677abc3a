import FightEngine
import GRDB

// MARK: - FightStore

/// The fight engine over a database, SQLite's file or a PostgreSQL server: every accepted
/// command's events and new state are saved in one transaction before the command is acknowledged.
///
/// Commands are serialised: each runs load → reduce → save inside one write transaction that no
/// other writer, in this process or another (another server on the same PostgreSQL), can
/// interleave with, so two punches sent at once are decided one after the other and the second
/// sees the turn the first one passed. What a commit that returned survives is the store's
/// `Durability` on SQLite, and PostgreSQL's own settings on PostgreSQL.
///
/// The store's methods block their thread until the database answers, on either database: the
/// server runs them on a thread of its own (see `FightHub`).
public final class FightStore: Sendable {
    /// The rules commands are judged by.
    public let referee: Referee
    let database: any StoreDatabase

    /// Opens (creating and migrating if needed) the SQLite store at `path`.
    public convenience init(path: String, rules: Rules = Rules(), durability: Durability = .powerLoss) throws {
        try self.init(path: path, rules: rules, configuration: durability.configuration)
    }

    /// Opens the SQLite store with `configuration` as given: a test's, which may also watch the statements run.
    convenience init(path: String, rules: Rules, configuration: Configuration) throws {
        try self.init(database: SQLiteDatabase(path: path, configuration: configuration), rules: rules)
    }

    /// The store over `database`, already migrated.
    init(database: any StoreDatabase, rules: Rules) {
        self.database = database
        referee = Referee(rules: rules)
    }

    /// The database's kind, as `/health` names it: `sqlite` or `postgres`.
    public var databaseKind: String {
        switch database.dialect {
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        }
    }

    /// Asks the database a trivial question.
    /// - Throws: why it cannot answer (a PostgreSQL server down or unreachable, say).
    public func checkReachable() throws {
        _ = try database.readStatement { db in try db.fetch("SELECT 1 AS one", []) }
    }

    /// Applies `command` at `now` and saves the result: the events it caused, or why it was refused
    /// (then nothing was saved). Throws only when the database fails.
    ///
    /// On PostgreSQL it waits only for the writers of what it may change (`scope(of:)`).
    public func execute(_ command: Command, at now: Timestamp) throws -> Result<[Event], Refusal> {
        try database.write(Self.scope(of: command)) { db in try apply(command, at: now, in: db) }
    }

    /// What `command` may change: a command in one fight (a punch, an answer to a challenge, a
    /// forfeit) that fight and its two fighters (`slice(for:at:in:)` reads no more); a quick
    /// match the rooms and the fight it starts; a registration the new fighter; any other,
    /// anything (a challenge starts a fight of its own, a move or profile is a fighter's row
    /// saved whole, the deadlines are every fight's).
    static func scope(of command: Command) -> WriteScope {
        if let fight = command.fight { return .fight(fight) }
        switch command {
        case .quickMatch, .leaveQuickMatch: return .rooms
        case .register: return .registrations
        default: return .everything
        }
    }

    /// Applies `commands` in order at `now` in one transaction, each judged on the state the ones
    /// before it left: one commit for bulk work such as importing fighters. A refused command saves
    /// nothing and does not stop the others; a database failure saves none of them.
    public func execute(_ commands: [Command], at now: Timestamp) throws -> [Result<[Event], Refusal>] {
        try database.write { db in try commands.map { try apply($0, at: now, in: db) } }
    }

    func apply(_ command: Command, at now: Timestamp, in db: any SQLSession) throws -> Result<[Event], Refusal> {
        let before = try slice(for: command, at: now, in: db)
        let outcome = referee.reduce(before, command, at: now)
        guard case .success(let transition) = outcome else {
            return outcome.map(\.events)
        }
        try save(transition, replacing: before, in: db)
        try database.announce(Self.changes(of: transition.events), in: db)
        return .success(transition.events)
    }
}

// MARK: - Loading a command's slice

extension FightStore {
    /// The part of the world `command` can look at: its fighters and fight, the fighters of that
    /// fight, open fights of the pair or fighter it concerns, rooms, and the next identifiers.
    ///
    /// Everything but the fighters of the other fights a command reads (a fighter's open fights,
    /// those due) is asked for together: on PostgreSQL one wait for all of it, not a round trip
    /// for each question one after another (a quick match asked four times).
    func slice(for command: Command, at now: Timestamp, in db: any SQLSession) throws -> FightState {
        let next = try db.prefetch(
            """
            SELECT (SELECT coalesce(max(id), 0) + 1 FROM fighters) AS fighter,
                (SELECT coalesce(max(id), 0) + 1 FROM fights) AS fight
            """, [])
        let ownFight = try command.fight.map { try db.prefetch(FightRows.select(where: "id = ?"), [$0.rawValue]) }
        // One list of values, the fight's corners among them as scalar subqueries: each database
        // looks the list up in the primary key (an OR of two IN lists made PostgreSQL scan).
        var fighterValues = Array(repeating: "?", count: command.fighters.count)
        var fighterArguments: SQLArguments = command.fighters.map(\.rawValue)
        if let id = command.fight {
            fighterValues += [
                "(SELECT challenger_id FROM fights WHERE id = ?)", "(SELECT opponent_id FROM fights WHERE id = ?)",
            ]
            fighterArguments += [id.rawValue, id.rawValue]
        }
        let ownFighters =
            try fighterValues.isEmpty
            ? nil
            : db.prefetch(
                FighterRows.select(where: "id IN (\(fighterValues.joined(separator: ", ")))", in: db.dialect),
                fighterArguments)
        let more = try prefetchMore(for: command, at: now, in: db)

        let ids = try next.rows().first
        var state = FightState(
            nextFighterID: FighterID(try ids?.get("fighter", as: Int64.self) ?? 1),
            nextFightID: FightID(try ids?.get("fight", as: Int64.self) ?? 1))
        var fights = try ownFight?.rows().map(FightRows.decode) ?? []
        let fighters = try (ownFighters?.rows() ?? []) + (more.fighters?.rows() ?? [])
        for fighter in try fighters.map(FighterRows.decode) { state.fighters[fighter.id] = fighter }
        fights += try more.fights?.rows().map(FightRows.decode) ?? []
        if let rooms = more.rooms { state.rooms = try RoomRows.decode(rooms.rows()) }
        for fight in fights { state.fights[fight.id] = fight }
        let missing = Set(fights.flatMap { [$0.challenger, $0.opponent] }).subtracting(state.fighters.keys).sorted()
        if !missing.isEmpty {
            for fighter in try FighterRows.fetch(
                db, where: "id IN (\(Array(repeating: "?", count: missing.count).joined(separator: ", ")))",
                missing.map(\.rawValue))
            {
                state.fighters[fighter.id] = fighter
            }
        }
        return state
    }

    /// What a command reads beyond its own fight and fighters, started: a fighter found by
    /// username, the open fights of a pair or fighter or those due, the rooms.
    private func prefetchMore(for command: Command, at now: Timestamp, in db: any SQLSession) throws -> (
        fighters: Prefetched?, fights: Prefetched?, rooms: Prefetched?
    ) {
        func fights(where condition: String, _ arguments: SQLArguments) throws -> Prefetched {
            try db.prefetch(FightRows.select(where: condition), arguments)
        }
        switch command {
        case .register(let registration):
            return (try FighterRows.prefetch(db, usernameKey: registration.username.lowercased()), nil, nil)
        case .challenge(let a, let b):
            let (low, high) = (min(a, b), max(a, b))
            return (nil, try fights(where: "is_open AND pair_low = ? AND pair_high = ?", [low.rawValue, high.rawValue]), nil)
        case .quickMatch(let id):
            return (
                nil, try fights(where: "is_open AND (challenger_id = ? OR opponent_id = ?)", [id.rawValue, id.rawValue]),
                try db.prefetch(RoomRows.select(), [])
            )
        case .leaveQuickMatch(let id):
            return (nil, nil, try db.prefetch(RoomRows.select(where: "fighter_id = ?"), [id.rawValue]))
        case .settleDeadlines:
            return (nil, try fights(where: "is_open AND deadline <= ?", [now.secondsSince1970]), nil)
        case .resumeTurns:
            // Every open fight, through the same index as the deadlines' (challenges among them:
            // the referee leaves those be).
            return (nil, try fights(where: "is_open AND deadline <= ?", [Int64.max]), nil)
        default:
            return (nil, nil, nil)
        }
    }

    /// Writes what changed between `before` and the transition's state, the events, and the
    /// statistics the events move.
    func save(_ transition: Transition, replacing before: FightState, in db: any SQLSession) throws {
        let after = transition.state
        for (id, fighter) in after.fighters where before.fighters[id] != fighter {
            try FighterRows.save(fighter, replacing: before.fighters[id], in: db)
        }
        for (id, fight) in after.fights.sorted(by: { $0.key < $1.key }) where before.fights[id] != fight {
            try FightRows.save(fight, in: db)
        }
        if after.rooms != before.rooms {
            for room in before.rooms where !after.rooms.contains(room) {
                try db.send("DELETE FROM rooms WHERE fighter_id = ?", [room.fighter.rawValue])
            }
            for room in after.rooms where !before.rooms.contains(room) {
                try db.send(
                    "INSERT INTO rooms (fighter_id, opened_at) VALUES (?, ?)",
                    [room.fighter.rawValue, room.openedAt.secondsSince1970])
            }
        }
        for event in transition.events { try EventRows.append(event, in: db) }
        try StatisticsRows.record(transition.events, in: db)
    }
}

// MARK: - Queries

extension FightStore {
    /// The fighter with identifier `id`, if any.
    public func fighter(_ id: FighterID) throws -> Fighter? {
        try database.readStatement { db in try FighterRows.fetch(db, where: "id = ?", [id.rawValue]).first }
    }

    /// The fighter whose username is `username` in any case, if any.
    public func fighter(named username: String) throws -> Fighter? {
        try database.readStatement { db in try FighterRows.fetch(db, usernameKey: username.lowercased()) }
    }

    /// The fight with identifier `id`, if any.
    public func fight(_ id: FightID) throws -> Fight? {
        try database.readStatement { db in try FightRows.fetch(db, where: "id = ?", [id.rawValue]).first }
    }

    /// `id`'s fights waiting for an answer or under way, oldest first.
    public func openFights(of id: FighterID) throws -> [Fight] {
        try openFights(of: [id])
    }

    /// The fights waiting for an answer or under way of any of `fighters`, oldest first: one
    /// question for many fighters (a server's batch of comings and goings), not one each.
    public func openFights(of fighters: some Collection<FighterID>) throws -> [Fight] {
        var found: [FightID: Fight] = [:]
        for batch in Array(fighters).chunked(Self.largestBatch) {
            // Through the partial indexes of open fights: the fighters' finished fights are not read.
            let fights = try database.readStatement { db in
                try FightRows.fetch(
                    db, where: "id IN (\(Self.fightsOf(open: true, fighters: batch.count)))", batch.map(\.rawValue))
            }
            for fight in fights { found[fight.id] = fight }
        }
        return found.values.sorted { $0.id < $1.id }
    }

    /// Every fight `id` was in, newest first.
    public func fights(of id: FighterID) throws -> [Fight] {
        try database.readStatement { db in
            try FightRows.fetch(db, where: "id IN (\(Self.fightsOf(open: false))) ORDER BY id DESC", [id.rawValue])
        }
    }

    /// The identifiers of the fights (open ones only, or all) of fighters `?1` to `?count`, found
    /// through the index of each corner.
    static func fightsOf(open: Bool, fighters count: Int = 1) -> String {
        let condition = open ? "is_open AND " : ""
        let fighters = (1...count).map { "?\($0)" }.joined(separator: ", ")
        return """
            SELECT id FROM fights WHERE \(condition)challenger_id IN (\(fighters))
            UNION ALL SELECT id FROM fights WHERE \(condition)opponent_id IN (\(fighters))
            """
    }

    /// The challenger and opponent of fight `id`, if there is one, without reading the fight.
    public func corners(ofFight id: FightID) throws -> Both<FighterID>? {
        try database.readStatement { db in
            try db.fetch("SELECT challenger_id, opponent_id FROM fights WHERE id = ?", [id.rawValue]).first.map { row in
                Both(FighterID(try row.get("challenger_id")), FighterID(try row.get("opponent_id")))
            }
        }
    }

    /// The fighters `id` has an open fight with.
    public func opponents(of id: FighterID) throws -> Set<FighterID> {
        try database.readStatement { db in try Self.opponents(of: id, in: db) }
    }

    static func opponents(of id: FighterID, in db: any SQLSession) throws -> Set<FighterID> {
        let rows = try db.fetch(
            """
            SELECT opponent_id AS id FROM fights WHERE is_open AND challenger_id = ?1
            UNION SELECT challenger_id AS id FROM fights WHERE is_open AND opponent_id = ?1
            """,
            [id.rawValue])
        return Set(try rows.map { FighterID(try $0.get("id")) })
    }

    /// The log of fight `id` after sequence `after` (the whole log by default), in sequence order:
    /// what a follower that has seen up to `after` missed. Read through the log's index by fight
    /// and sequence.
    public func events(ofFight id: FightID, after: Int = 0) throws -> [FightEvent] {
        try database.readStatement { db in
            try EventRows.fetch(db, where: "fight_id = ? AND sequence > ?", [id.rawValue, after]).compactMap {
                event -> FightEvent? in
                guard case .fight(let fightEvent) = event else { return nil }
                return fightEvent
            }
        }
    }

    /// The whole log, in the order it was saved.
    public func events() throws -> [Event] {
        try database.readStatement { db in try EventRows.fetch(db) }
    }

    /// The quick-match rooms, oldest first.
    public func rooms() throws -> [Room] {
        try database.readStatement { db in
            try RoomRows.fetch(db, "SELECT fighter_id, opened_at FROM rooms ORDER BY opened_at, fighter_id")
        }
    }

    /// The earliest moment an open fight's challenge expires or turn passes, for a scheduler that
    /// sends `Command.settleDeadlines` then.
    public func nextDeadline() throws -> Timestamp? {
        try database.readStatement { db in
            // One row always, NULL when no fight is open.
            (try db.fetchValue("SELECT min(deadline) FROM fights WHERE is_open", as: Int64?.self) ?? nil).map {
                Timestamp(secondsSince1970: $0)
            }
        }
    }
}

// MARK: - Rooms

enum RoomRows {
    /// The statement that selects the rooms `condition` holds for (all by default), for `decode`.
    static func select(where condition: String = "TRUE") -> String {
        "SELECT fighter_id, opened_at FROM rooms WHERE \(condition)"
    }

    /// The rooms `sql` selects (`fighter_id`, `opened_at`).
    static func fetch(_ db: any SQLSession, _ sql: String) throws -> [Room] {
        try decode(db.fetch(sql, []))
    }

    static func decode(_ rows: [SQLRow]) throws -> [Room] {
        try rows.map { row in
            Room(
                fighter: FighterID(try row.get("fighter_id")),
                openedAt: Timestamp(secondsSince1970: try row.get("opened_at")))
        }
    }
}
