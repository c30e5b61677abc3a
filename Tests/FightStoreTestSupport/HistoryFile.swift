import FightEngine
import FightStore
import Foundation
import GRDB

// MARK: - HistoryFile

/// A store file with a long history, written fast: for start-up tests and benchmarks that need a
/// million finished fights, six million commands that the store would take many minutes to run
/// one at a time.
///
/// The engine plays one fight to a knockout; its saved fight and its events, as the store would
/// write them, are then copied into the store's own tables once for each fight, in one
/// transaction, by SQL alone, the fighters' identifiers and the fight's put in. The fighters'
/// records and the statistics are what those fights add up to, so `FightStore.audit()` finds
/// nothing wrong with the file.
public enum HistoryFile {
    /// What the file holds.
    public struct Contents: Hashable, Sendable {
        /// Fighters registered (identifiers 1 to `fighters`).
        public var fighters: Int
        /// Finished fights (identifiers 1 to `fights`), each won by its challenger by knockout.
        public var fights: Int
        /// Events each fight has in the log.
        public var eventsPerFight: Int
    }

    /// The moment the copied fight began; every copy ended at the same moment.
    public static let start = Timestamp(secondsSince1970: 1_800_000_000)

    /// Creates the store at `path` (which must not hold any fighter yet) with `fighters` fighters
    /// and `fights` finished fights between them, fight `n` between fighter `n mod fighters + 1`
    /// and another that changes as `n` grows, so that pairs and records are spread out.
    @discardableResult
    public static func build(at path: String, fighters: Int, fights: Int) async throws -> Contents {
        guard fighters >= 2, fights >= 0 else {
            throw HistoryFileError("expected 2 or more fighters and 0 or more fights, got \(fighters) and \(fights)")
        }
        do {
            let store = try FightStore(path: path, durability: .processCrash)
            guard try await store.fighter(FighterID(1)) == nil else {
                throw HistoryFileError("\(path) already holds fighters")
            }
            // One transaction per 10,000 fighters, as an import would.
            for batch in stride(from: 1, through: fighters, by: 10_000) {
                let commands = (batch...min(batch + 9_999, fighters)).map { n in
                    Command.register(Registration(username: "fighter\(n)", displayName: "Fighter \(n)"))
                }
                for outcome in try await store.execute(commands, at: start) { _ = try outcome.get() }
            }
        }  // the store's pool is closed here: the copies are written through a connection of their own
        let template = try Template.played()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { [template] db in
            try copy(template, fights: fights, fighters: fighters, in: db)
        }
        return Contents(fighters: fighters, fights: fights, eventsPerFight: template.events.count)
    }

    /// Writes `fights` copies of the template fight, their events, the records and statistics.
    private static func copy(_ template: Template, fights: Int, fighters: Int, in db: Database) throws {
        guard fights > 0 else { return }
        // Row k of fight n (both 0-based), one row a fight or one an event of it, generated in that
        // order (a recursive CTE's queue is first in, first out), so no sort is needed. Fight n is
        // between a, fighter n mod F + 1, and b, a fighter 1 to F - 1 places after a round the
        // ring, the distance moving on each time n goes round: never a with a.
        func rows(_ perFight: Int) -> String {
            """
            WITH RECURSIVE n(i, k) AS (
                SELECT 0, 0
                UNION ALL SELECT i + (k + 1) / \(perFight), (k + 1) % \(perFight) FROM n
                WHERE i < \(fights - 1) OR k < \(perFight - 1)),
            copies(i, k, a, b) AS (
                SELECT i, k, i % \(fighters) + 1,
                    (i % \(fighters) + 1 + (i / \(fighters)) % \(fighters - 1)) % \(fighters) + 1
                FROM n)
            """
        }
        // The template's JSON (the SQL expression `json`) with fight n's identifiers put in.
        func filled(_ json: String) -> String {
            "replace(replace(replace(\(json), "
                + "'\(Template.fight)', i + 1), '\(Template.challenger)', a), '\(Template.opponent)', b)"
        }
        // Text as an SQL string literal: its quotes doubled.
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        // The value for row k: `values[k]`.
        func byRow(_ values: [String]) -> String {
            "CASE k " + values.enumerated().map { "WHEN \($0) THEN \($1)" }.joined(separator: " ") + " END"
        }
        try db.execute(
            sql: """
                \(rows(1))
                INSERT INTO fights (id, challenger_id, opponent_id, pair_low, pair_high, is_open, deadline, body)
                SELECT i + 1, a, b, min(a, b), max(a, b), 0, NULL, \(filled(literal(template.fight))) FROM copies
                """)
        let events = template.events
        try db.execute(
            sql: """
                \(rows(events.count))
                INSERT INTO events (fight_id, sequence, fighter_id, at, body)
                SELECT i + 1, \(byRow(events.map { "\($0.sequence)" })), NULL, \(byRow(events.map { "\($0.at)" })),
                    \(filled(byRow(events.map { literal($0.body) })))
                FROM copies
                """)
        let end = template.endedAt
        try db.execute(
            sql: """
                UPDATE fighters SET
                    wins = (SELECT count(*) FROM fights WHERE challenger_id = fighters.id),
                    losses = (SELECT count(*) FROM fights WHERE opponent_id = fighters.id);
                INSERT INTO statistics VALUES ('overall', 0, 0, \(fights), \(fights), \(end), \(end));
                INSERT INTO statistics
                SELECT 'fighter', f, 0, count(*), sum(won), \(end), CASE WHEN sum(won) > 0 THEN \(end) END
                FROM (SELECT challenger_id AS f, 1 AS won FROM fights UNION ALL SELECT opponent_id, 0 FROM fights)
                GROUP BY f;
                INSERT INTO statistics
                SELECT 'pair', f, v, count(*), sum(won), \(end), CASE WHEN sum(won) > 0 THEN \(end) END
                FROM (
                    SELECT challenger_id AS f, opponent_id AS v, 1 AS won FROM fights
                    UNION ALL SELECT opponent_id, challenger_id, 0 FROM fights)
                GROUP BY f, v;
                """)
    }
}

/// Why a history file could not be built.
public struct HistoryFileError: Error, CustomStringConvertible {
    /// What was wrong.
    public var description: String

    init(_ description: String) { self.description = description }
}

// MARK: - The template

/// One fight the engine played to a knockout between two fighters with identifiers no real file
/// reaches, so that the copies can put the real ones in the JSON text by replacing them.
private struct Template {
    static let challenger: Int64 = 900_000_001
    static let opponent: Int64 = 900_000_002
    static let fight: Int64 = 900_000_003

    /// The saved fight's JSON.
    var fight: String
    /// Each event's sequence, moment and JSON.
    var events: [(sequence: Int, at: Int64, body: String)]
    /// When the fight ended.
    var endedAt: Int64

    /// The challenger throws 64 a punch and the opponent 1, so the challenger wins by knockout.
    static func played() throws -> Template {
        let referee = Referee()
        var state = FightState(nextFighterID: FighterID(challenger), nextFightID: FightID(fight))
        var log: [Event] = []
        var now = HistoryFile.start
        func run(_ command: Command) throws {
            let transition = try referee.reduce(state, command, at: now).get()
            state = transition.state
            log += transition.events
            now = now + 1
        }
        let a = FighterID(challenger), b = FighterID(opponent), id = FightID(fight)
        try run(.register(Registration(username: "template_a", displayName: "A")))
        try run(.register(Registration(username: "template_b", displayName: "B")))
        try run(.challenge(a, opponent: b))
        try run(.accept(id, by: b))
        while let current = state.fights[id], case .active(let turn, _) = current.phase {
            let puncher = current.fighter(in: turn)
            try run(.punch(id, by: puncher, after: current.lastSequence, kind: .hook, damage: puncher == a ? 64 : 1))
        }
        guard let finished = state.fights[id],
            case .finished(.decided(let result), let endedAt) = finished.phase,
            result.winner == a, result.decision == .knockout
        else { throw HistoryFileError("the template fight did not end in the challenger's knockout") }
        let encoder = JSONEncoder()  // as the store encodes: JSONEncoder's defaults
        func json(_ value: some Encodable) throws -> String {
            String(decoding: try encoder.encode(value), as: UTF8.self)
        }
        var events: [(sequence: Int, at: Int64, body: String)] = []
        for case .fight(let event) in log {
            events.append((event.sequence, event.at.secondsSince1970, try json(Event.fight(event))))
        }
        return Template(fight: try json(finished), events: events, endedAt: endedAt.secondsSince1970)
    }
}
