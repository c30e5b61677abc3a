import FightEngine

// MARK: - The two databases

/// What the store asks of a database, each answered in the database's own driver and SQL:
/// `SQLiteDatabase` (GRDB's pool, its async reads and writes, its `SQL` interpolation) and
/// `PostgresDatabase` (postgres-nio's `PostgresClient`, `PostgresQuery` interpolation, which binds
/// each value with its type). The engine-facing logic, what a command reads and writes and how
/// rows become fighters and fights, is written once (`CommandPlan`, `Rows.swift`); each database
/// gives its SQL for it, concern by concern, in files of the same names (`SQLite/…+Commands.swift`
/// beside `Postgres/…+Commands.swift`) so that a reader compares the two.
///
/// Where the two dialects differ, and nowhere else:
/// - column types (`ColumnTypes`): SQLite's INTEGER/REAL/INTEGER-as-boolean, PostgreSQL's
///   BIGINT/DOUBLE PRECISION/BOOLEAN; `WITHOUT ROWID` and `UNLOGGED` tables;
/// - the index of locations: SQLite's R*Tree (a virtual table, which takes no upsert, so a
///   location is deleted and inserted again) and PostgreSQL's GiST index of boxes, asked with `&&`;
/// - lists of values: GRDB's interpolation writes `IN (?, ?, …)`; PostgreSQL is given an array
///   (`= ANY(…)`, `unnest(…)`), one parameter however long the list;
/// - text kept whole: SQLite binds and reads fighters' free text as bytes (`WholeText`);
/// - `max`/`min` of two values are PostgreSQL's `greatest`/`least`; `floor` is a cast on SQLite;
/// - writers: SQLite has one at a time (`BEGIN IMMEDIATE`); PostgreSQL's take advisory locks by
///   scope (`WriteScope`) so that servers sharing it run fights of different fighters side by side;
/// - announcements (`NOTIFY`/`LISTEN`), leases, presence and shared allowances exist only where
///   several servers share the database (PostgreSQL).
protocol StoreDatabase: Sendable {
    /// `sqlite` or `postgres`, as `/health` names it.
    var kind: String { get }

    /// Whether other servers may share the database (PostgreSQL): then what one commits is
    /// announced to the others, and starts and rate limits are the cluster's, not the process's.
    var isShared: Bool { get }

    /// Asks the database a trivial question; throws why it cannot answer.
    func checkReachable() async throws

    /// Applies `commands` in order in one write transaction that waits only for the writers of
    /// `scope` (every writer, on SQLite), each judged on the state the ones before left.
    func execute(_ commands: [Command], scope: WriteScope, at now: Timestamp, referee: Referee) async throws
        -> [Result<[Event], Refusal>]

    // MARK: Queries (one statement each, on its own snapshot)

    func fighter(_ id: FighterID) async throws -> Fighter?
    func fighter(usernameKey key: String) async throws -> Fighter?
    func fight(_ id: FightID) async throws -> Fight?
    /// The open fights of any of `fighters`, in any order.
    func openFights(of fighters: [FighterID]) async throws -> [Fight]
    /// Every fight of `id`, newest first.
    func fights(of id: FighterID) async throws -> [Fight]
    func corners(ofFight id: FightID) async throws -> Both<FighterID>?
    func opponents(of id: FighterID) async throws -> Set<FighterID>
    /// Fight `id`'s log after sequence `after`, in order.
    func events(ofFight id: FightID, after: Int) async throws -> [Event]
    /// The whole log, in the order it was saved.
    func events() async throws -> [Event]
    func rooms() async throws -> [Room]
    func nextDeadline() async throws -> Timestamp?
    /// Everything the audit compares, read in one snapshot.
    func auditInputs() async throws -> (log: [Event], fights: [Fight], fighters: [Fighter], statistics: Statistics)

    // MARK: Matchmaking

    /// The nearest fighter `viewer` was not shown within `limit` km; remembered as shown at `now`
    /// (a write), or not remembered when `now` is nil (a read).
    func nearestUnseen(for viewer: FighterID, maxDistanceKm limit: Double, showingAt now: Timestamp?) async throws
        -> Result<Matchup?, Refusal>
    /// The database's plan for the first box of the search (see `FightStore.nearestUnseenPlan`).
    func nearestUnseenPlan(for viewer: FighterID, radiusKm: Double, pricingScansOut: Bool) async throws -> [String]

    // MARK: Accounts, sessions and punch profiles (rows no command reads)

    func hasAccount(_ fighter: FighterID) async throws -> Bool
    func createAccount(_ fighter: FighterID, passwordHash: String, at now: Timestamp) async throws -> Bool
    func passwordHash(of fighter: FighterID) async throws -> String?
    func openSession(_ session: SavedSession) async throws
    func session(key: String) async throws -> SavedSession?
    func noteUse(ofSession key: String, at now: Timestamp) async throws
    func closeSession(key: String, of fighter: FighterID) async throws -> Bool
    func forgetSessions(unusedSince cutoff: Timestamp) async throws -> Int
    func punchProfile(of fighter: FighterID) async throws -> String?
    func savePunchProfile(_ json: String, of fighter: FighterID, at now: Timestamp) async throws
    func forgetPunchProfile(of fighter: FighterID) async throws -> Bool

    // MARK: Statistics

    func statistics() async throws -> Statistics
    func statistics(_ scopes: [StatScope]) async throws -> Statistics
    func rebuildStatistics() async throws -> Statistics

    // MARK: Several servers on one database

    /// What the other servers commit, as they commit it; `nil` where no other server can share it.
    func changes() -> AsyncStream<StoreChange>?
    func events(after sequences: [FightID: Int]) async throws -> [FightID: FightNews]
    func startServing(
        as server: String, named name: String?, at now: Timestamp, leaseUntil expiry: Timestamp,
        replacing stale: ServerLease?, referee: Referee
    ) async throws -> ServingStart
    func renewLease(of server: String, named name: String?, until expiry: Timestamp) async throws -> Bool
    func endLease(of server: String) async throws
    func liveServers(at now: Timestamp) async throws -> [String]
    func notePresence(_ changes: [PresenceChange], on server: String) async throws -> [FighterID: Timestamp]
    func presence(of fighter: FighterID, besides server: String, at now: Timestamp) async throws -> Timestamp?
    func sweepLapsedServers(at now: Timestamp) async throws -> [FighterID]
    func takeAllowance(_ request: AllowanceRequest) async throws -> Int

    // MARK: Tests

    /// Writes `writes` as a command's transaction writes them, in one transaction of everything,
    /// whatever the engine would say of them: a test's rows the engine would refuse.
    func perform(_ writes: [CommandPlan.Write]) async throws

    /// Runs `sql` (statements each ending a line with a semicolon, no parameters) in a write
    /// transaction of everything and gives the last statement's rows: a test's look, or change,
    /// behind the engine's back. `beforeCommit` runs once they have run, before the commit.
    func runScript(_ sql: String, beforeCommit: @escaping @Sendable () -> Void) async throws -> [SQLRow]
}

/// What a write transaction may change, and so which other writers it waits for: on PostgreSQL
/// those of other scopes (fights of other fighters, the rooms, registrations, presence) run side
/// by side, on any server. What every scope adds to (the log, the statistics) is added in SQL,
/// whatever the others added meanwhile. SQLite has one writer at a time, whatever its scope.
enum WriteScope: Hashable, Sendable {
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

/// A taking from a fighter's allowance (`FightStore.takeAllowance`), its numbers as the SQL uses them.
struct AllowanceRequest: Sendable {
    var fighter: FighterID
    var kind: String
    var want: Double
    var atLeast: Double
    var perSecond: Double
    var burst: Double
    /// Milliseconds since 1970.
    var now: Int64
}

extension Array {
    /// The elements in runs of `size` (the last one shorter), in order.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
