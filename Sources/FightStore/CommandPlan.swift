import FightEngine

// MARK: - What a command reads and writes, whichever database

/// A command's transaction as both databases run it: the questions it asks (`questions(for:at:)`),
/// the state the answers make (`state(from:)`), and the rows the referee's transition writes
/// (`writes(of:replacing:)`). Values only: each database answers the questions and performs the
/// writes in its own SQL (`SQLiteDatabase+Commands`, `PostgresDatabase+Commands`).
enum CommandPlan {
    /// The part of the world a command can look at, asked all at once: its fighters and fight, the
    /// fighters of that fight, open fights of the pair or fighter it concerns, rooms, and the next
    /// identifiers (always asked). On PostgreSQL one wait for all of it, not a round trip for
    /// each question one after another (a quick match asked four times).
    struct Questions: Sendable, Equatable {
        /// The command's own fight.
        var fight: FightID?
        /// The fighters the command names, with the two corners of `fight` when there is one.
        var fighters: [FighterID] = []
        /// The fighter with this lowercased username (a registration's), when one can have it.
        var usernameKey: String?
        /// Open fights the command looks at besides its own.
        var openFights: OpenFights?
        /// The rooms it looks at.
        var rooms: Rooms?
    }

    /// Which open fights a command looks at.
    enum OpenFights: Sendable, Equatable {
        /// Those of the pair, by its key (a challenge's).
        case pair(low: Int64, high: Int64)
        /// Those of one fighter (a quick match's).
        case of(FighterID)
        /// Those whose deadline is at or before this moment (seconds since 1970): the deadlines'
        /// settling, and every open fight for `resumeTurns` (`Int64.max`).
        case due(by: Int64)
    }

    /// Which quick-match rooms a command looks at.
    enum Rooms: Sendable, Equatable {
        case all
        case of(FighterID)
    }

    /// What a database found for `Questions`.
    struct Answers: Sendable {
        var nextFighter: Int64 = 1
        var nextFight: Int64 = 1
        var fighters: [Fighter] = []
        var fights: [Fight] = []
        var rooms: [Room]?
    }

    static func questions(for command: Command, at now: Timestamp) -> Questions {
        var questions = Questions(fight: command.fight, fighters: command.fighters)
        switch command {
        case .register(let registration):
            // No saved username holds a NUL (the engine refuses control characters), and
            // PostgreSQL refuses to be asked about text that does.
            let key = registration.username.lowercased()
            if !key.utf8.contains(0) { questions.usernameKey = key }
        case .challenge(let a, let b):
            questions.openFights = .pair(low: min(a, b).rawValue, high: max(a, b).rawValue)
        case .quickMatch(let id):
            questions.openFights = .of(id)
            questions.rooms = .all
        case .leaveQuickMatch(let id):
            questions.rooms = .of(id)
        case .settleDeadlines:
            questions.openFights = .due(by: now.secondsSince1970)
        case .resumeTurns:
            // Every open fight, through the same index as the deadlines' (challenges among them:
            // the referee leaves those be).
            questions.openFights = .due(by: Int64.max)
        default:
            break
        }
        return questions
    }

    /// The state the answers make, and the fighters of its fights that were not among them (the
    /// corners of the other fights a command read), to be read and added before it is judged.
    static func state(from answers: Answers) -> (state: FightState, missing: [FighterID]) {
        var state = FightState(nextFighterID: FighterID(answers.nextFighter), nextFightID: FightID(answers.nextFight))
        for fighter in answers.fighters { state.fighters[fighter.id] = fighter }
        for fight in answers.fights { state.fights[fight.id] = fight }
        if let rooms = answers.rooms { state.rooms = rooms }
        let corners = Set(answers.fights.flatMap { [$0.challenger, $0.opponent] })
        return (state, corners.subtracting(state.fighters.keys).sorted())
    }

    /// One row to write.
    enum Write: Sendable, Equatable {
        /// A fighter inserted or updated; `moved` when its location changed (or it is new with one).
        case fighter(Fighter, moved: Bool)
        /// A fight inserted or updated.
        case fight(Fight)
        /// A quick-match room closed.
        case roomClosed(FighterID)
        /// A quick-match room opened.
        case roomOpened(Room)
        /// An event appended to the log.
        case event(Event)
        /// What the events add to one line of statistics.
        case statistics(StatScope, StatLine)
    }

    /// The rows the transition from `before` writes: what changed, in an order every database
    /// takes (a fight after its fighters, the log after its fight), then the log and statistics.
    static func writes(of transition: Transition, replacing before: FightState) -> [Write] {
        let after = transition.state
        var writes: [Write] = []
        for (id, fighter) in after.fighters.sorted(by: { $0.key < $1.key }) where before.fighters[id] != fighter {
            writes.append(.fighter(fighter, moved: fighter.location != before.fighters[id]?.location))
        }
        for (id, fight) in after.fights.sorted(by: { $0.key < $1.key }) where before.fights[id] != fight {
            writes.append(.fight(fight))
        }
        if after.rooms != before.rooms {
            for room in before.rooms where !after.rooms.contains(room) { writes.append(.roomClosed(room.fighter)) }
            for room in after.rooms where !before.rooms.contains(room) { writes.append(.roomOpened(room)) }
        }
        writes += transition.events.map(Write.event)
        writes += statistics(of: transition.events).map { .statistics($0.scope, $0.line) }
        return writes
    }

    /// What `events` add to each line of statistics, in the order the lines first appear. Each
    /// line is written once and none read: a line is a count and a latest moment, so what a
    /// command adds is added in SQL to whatever is saved when it commits. Two fights that end at
    /// once on two servers (whose writers run side by side, `WriteScope`) both count on the overall
    /// line, which a line read, added to and written back would not.
    static func statistics(of events: [Event]) -> [(scope: StatScope, line: StatLine)] {
        var added: [StatScope: StatLine] = [:]
        var scopes: [StatScope] = []
        for entry in events.flatMap(Statistics.entries(for:)) {
            if added[entry.scope] == nil { scopes.append(entry.scope) }
            added[entry.scope] = (added[entry.scope] ?? StatLine()).recording(battleAt: entry.at, won: entry.won)
        }
        return scopes.map { ($0, added[$0] ?? StatLine()) }
    }

    /// The announcements of what `events` changed: one per fight, one per fighter event.
    static func changes(of events: [Event]) -> [StoreChange] {
        var changes: [StoreChange] = []
        var fights: [FightID: (first: Int, last: Int)] = [:]
        var order: [FightID] = []
        for event in events {
            switch event {
            case .fight(let event):
                if let known = fights[event.fight] {
                    fights[event.fight] = (min(known.first, event.sequence), max(known.last, event.sequence))
                } else {
                    fights[event.fight] = (event.sequence, event.sequence)
                    order.append(event.fight)
                }
            case .fighter(let event):
                // A new fighter has no connection anywhere yet: nobody to tell.
                if case .registered = event.change { continue }
                changes.append(.fighter(event))
            }
        }
        return order.compactMap { id in fights[id].map { .fight(id, first: $0.first, last: $0.last) } } + changes
    }
}

// MARK: - Statistics lines

enum StatisticsRows {
    /// The upsert that adds a line's counts and keeps the later of each moment, saved or added,
    /// either of which may be NULL (as `StatLine.recording` takes the later one), in words both
    /// databases read alike.
    static let upsert = """
        ON CONFLICT (scope, fighter_id, versus_id) DO UPDATE SET
            qty_battles = statistics.qty_battles + excluded.qty_battles,
            qty_wins = statistics.qty_wins + excluded.qty_wins,
            last_battle = \(later("last_battle")), last_win = \(later("last_win"))
        """

    private static func later(_ column: String) -> String {
        """
        CASE WHEN excluded.\(column) IS NULL OR statistics.\(column) >= excluded.\(column) \
        THEN statistics.\(column) ELSE excluded.\(column) END
        """
    }

    /// The lines `rows` hold.
    static func decode(_ rows: [SQLRow]) throws -> [StatScope: StatLine] {
        var lines: [StatScope: StatLine] = [:]
        for row in rows { lines[try scope(of: row)] = try line(row) }
        return lines
    }

    /// Whose statistics `row` holds.
    static func scope(of row: SQLRow) throws -> StatScope {
        let fighter = FighterID(try row.get("fighter_id")), versus = FighterID(try row.get("versus_id"))
        switch try row.get("scope", as: String.self) {
        case "overall": return .overall
        case "fighter": return .fighter(fighter)
        case "pair": return .pair(fighter, versus: versus)
        case let other:
            throw StoreError(table: "statistics", rowID: fighter.rawValue, problem: "unknown scope '\(other)'")
        }
    }

    static func line(_ row: SQLRow) throws -> StatLine {
        StatLine(
            qtyBattles: try row.get("qty_battles"), qtyWins: try row.get("qty_wins"),
            lastBattle: try row.get("last_battle", as: Int64?.self).map { Timestamp(secondsSince1970: $0) },
            lastWin: try row.get("last_win", as: Int64?.self).map { Timestamp(secondsSince1970: $0) })
    }

    /// A line's key as its columns hold it.
    static func columns(_ scope: StatScope) -> (scope: String, fighter: Int64, versus: Int64) {
        switch scope {
        case .overall: ("overall", 0, 0)
        case .fighter(let id): ("fighter", id.rawValue, 0)
        case .pair(let id, let versus): ("pair", id.rawValue, versus.rawValue)
        }
    }
}
