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
/// The store's methods are `async`: they await the database's own driver (GRDB's queues,
/// postgres-nio's connections), never holding their caller's thread while it answers.
public final class FightStore: Sendable {
    /// The rules commands are judged by.
    public let referee: Referee
    let database: any StoreDatabase
    /// The PostgreSQL client's `run()`, owned by the store and cancelled when it goes.
    private let running: Task<Void, Never>?

    /// Opens (creating and migrating if needed) the SQLite store at `path`.
    public convenience init(path: String, rules: Rules = Rules(), durability: Durability = .powerLoss) throws {
        try self.init(path: path, rules: rules, configuration: durability.configuration)
    }

    /// Opens the SQLite store with `configuration` as given: a test's, which may also watch the statements run.
    convenience init(path: String, rules: Rules, configuration: Configuration) throws {
        try self.init(database: SQLiteDatabase(path: path, configuration: configuration), rules: rules)
    }

    /// The store over `database`, already migrated; `running` is the task that keeps its driver
    /// running, cancelled when the store goes.
    init(database: any StoreDatabase, rules: Rules, running: Task<Void, Never>? = nil) {
        self.database = database
        self.running = running
        referee = Referee(rules: rules)
    }

    deinit { running?.cancel() }

    /// The database's kind, as `/health` names it: `sqlite` or `postgres`.
    public var databaseKind: String { database.kind }

    /// Asks the database a trivial question.
    /// - Throws: why it cannot answer (a PostgreSQL server down or unreachable, say).
    public func checkReachable() async throws {
        try await database.checkReachable()
    }

    /// Applies `command` at `now` and saves the result: the events it caused, or why it was refused
    /// (then nothing was saved). Throws only when the database fails.
    ///
    /// On PostgreSQL it waits only for the writers of what it may change (`scope(of:)`).
    public func execute(_ command: Command, at now: Timestamp) async throws -> Result<[Event], Refusal> {
        try await database.execute([command], scope: Self.scope(of: command), at: now, referee: referee)[0]
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
    public func execute(_ commands: [Command], at now: Timestamp) async throws -> [Result<[Event], Refusal>] {
        try await database.execute(commands, scope: .everything, at: now, referee: referee)
    }
}

// MARK: - Queries

extension FightStore {
    /// The fighter with identifier `id`, if any.
    public func fighter(_ id: FighterID) async throws -> Fighter? {
        try await database.fighter(id)
    }

    /// The fighter whose username is `username` in any case, if any.
    public func fighter(named username: String) async throws -> Fighter? {
        let key = username.lowercased()
        // The key is bound whole, so that "alice\0x" does not find alice; no saved username holds
        // a NUL (the engine refuses control characters), and PostgreSQL refuses to be asked.
        guard !key.utf8.contains(0) else { return nil }
        return try await database.fighter(usernameKey: key)
    }

    /// The fight with identifier `id`, if any.
    public func fight(_ id: FightID) async throws -> Fight? {
        try await database.fight(id)
    }

    /// `id`'s fights waiting for an answer or under way, oldest first.
    public func openFights(of id: FighterID) async throws -> [Fight] {
        try await openFights(of: [id])
    }

    /// The fights waiting for an answer or under way of any of `fighters`, oldest first: one
    /// question for many fighters (a server's batch of comings and goings), not one each.
    public func openFights(of fighters: some Collection<FighterID>) async throws -> [Fight] {
        var found: [FightID: Fight] = [:]
        for batch in Array(fighters).chunked(Self.largestBatch) {
            for fight in try await database.openFights(of: Array(batch)) { found[fight.id] = fight }
        }
        return found.values.sorted { $0.id < $1.id }
    }

    /// The most fighters one statement names: SQLite takes at most 32,766 parameters.
    static let largestBatch = 1_000

    /// Every fight `id` was in, newest first.
    public func fights(of id: FighterID) async throws -> [Fight] {
        try await database.fights(of: id)
    }

    /// The challenger and opponent of fight `id`, if there is one, without reading the fight.
    public func corners(ofFight id: FightID) async throws -> Both<FighterID>? {
        try await database.corners(ofFight: id)
    }

    /// The fighters `id` has an open fight with.
    public func opponents(of id: FighterID) async throws -> Set<FighterID> {
        try await database.opponents(of: id)
    }

    /// The log of fight `id` after sequence `after` (the whole log by default), in sequence order:
    /// what a follower that has seen up to `after` missed. Read through the log's index by fight
    /// and sequence.
    public func events(ofFight id: FightID, after: Int = 0) async throws -> [FightEvent] {
        try await database.events(ofFight: id, after: after).compactMap { event -> FightEvent? in
            guard case .fight(let fightEvent) = event else { return nil }
            return fightEvent
        }
    }

    /// The whole log, in the order it was saved.
    public func events() async throws -> [Event] {
        try await database.events()
    }

    /// The quick-match rooms, oldest first.
    public func rooms() async throws -> [Room] {
        try await database.rooms()
    }

    /// The earliest moment an open fight's challenge expires or turn passes, for a scheduler that
    /// sends `Command.settleDeadlines` then.
    public func nextDeadline() async throws -> Timestamp? {
        try await database.nextDeadline()
    }
}
