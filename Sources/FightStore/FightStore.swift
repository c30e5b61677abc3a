import FightEngine
import GRDB

// MARK: - FightStore

/// The fight engine over an SQLite file: every accepted command's events and new state are saved
/// in one transaction before the command is acknowledged.
///
/// Commands are serialised: each runs load → reduce → save inside one `BEGIN IMMEDIATE`
/// transaction, so two punches sent at once are decided one after the other and the second sees
/// the turn the first one passed. The file is in WAL mode; what a commit that returned survives
/// is the store's `Durability`.
public final class FightStore: Sendable {
    /// The rules commands are judged by.
    public let referee: Referee
    let database: DatabasePool

    /// Opens (creating and migrating if needed) the store at `path`.
    public convenience init(path: String, rules: Rules = Rules(), durability: Durability = .powerLoss) throws {
        try self.init(path: path, rules: rules, configuration: durability.configuration)
    }

    /// Opens the store with `configuration` as given: a test's, which may also watch the statements run.
    init(path: String, rules: Rules, configuration: Configuration) throws {
        database = try DatabasePool(path: path, configuration: configuration)
        referee = Referee(rules: rules)
        try Schema.migrator.migrate(database)
    }

    /// Applies `command` at `now` and saves the result: the events it caused, or why it was refused
    /// (then nothing was saved). Throws only when the database fails.
    public func execute(_ command: Command, at now: Timestamp) throws -> Result<[Event], Refusal> {
        try immediateTransaction { db in try apply(command, at: now, in: db) }
    }

    /// Applies `commands` in order at `now` in one transaction, each judged on the state the ones
    /// before it left: one commit for bulk work such as importing fighters. A refused command saves
    /// nothing and does not stop the others; a database failure saves none of them.
    public func execute(_ commands: [Command], at now: Timestamp) throws -> [Result<[Event], Refusal>] {
        try immediateTransaction { db in try commands.map { try apply($0, at: now, in: db) } }
    }

    func apply(_ command: Command, at now: Timestamp, in db: Database) throws -> Result<[Event], Refusal> {
        let before = try slice(for: command, at: now, in: db)
        let outcome = referee.reduce(before, command, at: now)
        guard case .success(let transition) = outcome else {
            return outcome.map(\.events)
        }
        try save(transition, replacing: before, in: db)
        return .success(transition.events)
    }

    /// Runs `work` in a `BEGIN IMMEDIATE` transaction, which takes the write lock up front so
    /// another process cannot slip a write between this one's read and write. Commits when `work`
    /// returns, rolls back when it throws.
    func immediateTransaction<T>(_ work: (Database) throws -> T) throws -> T {
        try database.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
            do {
                let result = try work(db)
                try db.cachedStatement(sql: "COMMIT").execute()
                return result
            } catch {
                try? db.cachedStatement(sql: "ROLLBACK").execute()
                throw error
            }
        }
    }
}

// MARK: - Loading a command's slice

extension FightStore {
    /// The part of the world `command` can look at: its fighters and fight, the fighters of that
    /// fight, open fights of the pair or fighter it concerns, rooms, and the next identifiers.
    func slice(for command: Command, at now: Timestamp, in db: Database) throws -> FightState {
        var state = FightState(
            nextFighterID: FighterID(
                try Int64.fetchOne(db.cachedStatement(sql: "SELECT coalesce(max(id), 0) + 1 FROM fighters")) ?? 1),
            nextFightID: FightID(
                try Int64.fetchOne(db.cachedStatement(sql: "SELECT coalesce(max(id), 0) + 1 FROM fights")) ?? 1))
        var fights: [Fight] = []
        if let id = command.fight {
            fights += try FightRows.fetch(db, where: "id = ?", [id.rawValue])
        }
        switch command {
        case .register(let registration):
            if let fighter = try FighterRows.fetch(db, usernameKey: registration.username.lowercased()) {
                state.fighters[fighter.id] = fighter
            }
        case .challenge(let a, let b):
            let (low, high) = (min(a, b), max(a, b))
            fights += try FightRows.fetch(
                db, where: "is_open AND pair_low = ? AND pair_high = ?", [low.rawValue, high.rawValue])
        case .quickMatch(let id):
            fights += try FightRows.fetch(
                db, where: "is_open AND (challenger_id = ? OR opponent_id = ?)", [id.rawValue, id.rawValue])
            state.rooms = try Row.fetchAll(db.cachedStatement(sql: "SELECT fighter_id, opened_at FROM rooms")).map {
                row in
                Room(fighter: FighterID(row["fighter_id"]), openedAt: Timestamp(secondsSince1970: row["opened_at"]))
            }
        case .leaveQuickMatch(let id):
            if let openedAt = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT opened_at FROM rooms WHERE fighter_id = ?"), arguments: [id.rawValue])
            {
                state.rooms = [Room(fighter: id, openedAt: Timestamp(secondsSince1970: openedAt))]
            }
        case .settleDeadlines:
            fights += try FightRows.fetch(db, where: "is_open AND deadline <= ?", [now.secondsSince1970])
        case .resumeTurns:
            // Every open fight, through the same index as the deadlines' (challenges among them:
            // the referee leaves those be).
            fights += try FightRows.fetch(db, where: "is_open AND deadline <= ?", [Int64.max])
        default:
            break
        }
        for fight in fights { state.fights[fight.id] = fight }
        let fighterIDs = Set(command.fighters + fights.flatMap { [$0.challenger, $0.opponent] })
        for id in fighterIDs.sorted() {
            for fighter in try FighterRows.fetch(db, where: "id = ?", [id.rawValue]) {
                state.fighters[fighter.id] = fighter
            }
        }
        return state
    }

    /// Writes what changed between `before` and the transition's state, the events, and the
    /// statistics the events move.
    func save(_ transition: Transition, replacing before: FightState, in db: Database) throws {
        let after = transition.state
        for (id, fighter) in after.fighters where before.fighters[id] != fighter {
            try FighterRows.save(fighter, replacing: before.fighters[id], in: db)
        }
        for (id, fight) in after.fights.sorted(by: { $0.key < $1.key }) where before.fights[id] != fight {
            try FightRows.save(fight, in: db)
        }
        if after.rooms != before.rooms {
            for room in before.rooms where !after.rooms.contains(room) {
                try db.cachedStatement(sql: "DELETE FROM rooms WHERE fighter_id = ?").execute(arguments: [
                    room.fighter.rawValue
                ])
            }
            for room in after.rooms where !before.rooms.contains(room) {
                try db.cachedStatement(
                    sql: "INSERT INTO rooms (fighter_id, opened_at) VALUES (?, ?)"
                ).execute(
                    arguments: [room.fighter.rawValue, room.openedAt.secondsSince1970])
            }
        }
        for event in transition.events {
            try EventRows.append(event, in: db)
            try StatisticsRows.record(event, in: db)
        }
    }
}

// MARK: - Queries

extension FightStore {
    /// The fighter with identifier `id`, if any.
    public func fighter(_ id: FighterID) throws -> Fighter? {
        try database.read { db in try FighterRows.fetch(db, where: "id = ?", [id.rawValue]).first }
    }

    /// The fighter whose username is `username` in any case, if any.
    public func fighter(named username: String) throws -> Fighter? {
        try database.read { db in try FighterRows.fetch(db, usernameKey: username.lowercased()) }
    }

    /// The fight with identifier `id`, if any.
    public func fight(_ id: FightID) throws -> Fight? {
        try database.read { db in try FightRows.fetch(db, where: "id = ?", [id.rawValue]).first }
    }

    /// `id`'s fights waiting for an answer or under way, oldest first.
    public func openFights(of id: FighterID) throws -> [Fight] {
        try database.read { db in
            // Through the partial indexes of open fights: a fighter's finished fights are not read.
            try FightRows.fetch(db, where: "id IN (\(Self.fightsOf(open: true))) ORDER BY id", [id.rawValue])
        }
    }

    /// Every fight `id` was in, newest first.
    public func fights(of id: FighterID) throws -> [Fight] {
        try database.read { db in
            try FightRows.fetch(db, where: "id IN (\(Self.fightsOf(open: false))) ORDER BY id DESC", [id.rawValue])
        }
    }

    /// The identifiers of fighter `?1`'s fights (open ones only, or all), found through the index
    /// of each corner.
    static func fightsOf(open: Bool) -> String {
        let condition = open ? "is_open AND " : ""
        return """
            SELECT id FROM fights WHERE \(condition)challenger_id = ?1
            UNION ALL SELECT id FROM fights WHERE \(condition)opponent_id = ?1
            """
    }

    /// The challenger and opponent of fight `id`, if there is one, without reading the fight.
    public func corners(ofFight id: FightID) throws -> Both<FighterID>? {
        try database.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT challenger_id, opponent_id FROM fights WHERE id = ?"),
                arguments: [id.rawValue]
            ).map { row in Both(FighterID(row["challenger_id"]), FighterID(row["opponent_id"])) }
        }
    }

    /// The fighters `id` has an open fight with.
    public func opponents(of id: FighterID) throws -> Set<FighterID> {
        try database.read { db in try Self.opponents(of: id, in: db) }
    }

    static func opponents(of id: FighterID, in db: Database) throws -> Set<FighterID> {
        let ids = try Int64.fetchAll(
            db,
            sql: """
                SELECT opponent_id FROM fights WHERE is_open AND challenger_id = ?1
                UNION SELECT challenger_id FROM fights WHERE is_open AND opponent_id = ?1
                """,
            arguments: [id.rawValue])
        return Set(ids.map { FighterID($0) })
    }

    /// The log of fight `id`, in sequence order.
    public func events(ofFight id: FightID) throws -> [FightEvent] {
        try database.read { db in
            try EventRows.fetch(db, where: "fight_id = ?", [id.rawValue]).compactMap { event -> FightEvent? in
                guard case .fight(let fightEvent) = event else { return nil }
                return fightEvent
            }
        }
    }

    /// The whole log, in the order it was saved.
    public func events() throws -> [Event] {
        try database.read { db in try EventRows.fetch(db) }
    }

    /// The quick-match rooms, oldest first.
    public func rooms() throws -> [Room] {
        try database.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT fighter_id, opened_at FROM rooms ORDER BY opened_at, fighter_id")
            ).map {
                row in
                Room(fighter: FighterID(row["fighter_id"]), openedAt: Timestamp(secondsSince1970: row["opened_at"]))
            }
        }
    }

    /// The earliest moment an open fight's challenge expires or turn passes, for a scheduler that
    /// sends `Command.settleDeadlines` then.
    public func nextDeadline() throws -> Timestamp? {
        try database.read { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT min(deadline) FROM fights WHERE is_open")).map {
                Timestamp(secondsSince1970: $0)
            }
        }
    }
}
