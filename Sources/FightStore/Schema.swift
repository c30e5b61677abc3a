import FightEngine
import Foundation

// MARK: - Schema

/// One step of the schema, run once on every database, in order: by GRDB's migrator on SQLite
/// (`SQLiteDatabase.migrator`), by `PostgresDatabase.migrate` on PostgreSQL, each recording it
/// done under its identifier.
struct Migration: Sendable {
    /// Its name, as the database records it done.
    let identifier: String
    /// What it does.
    let step: Step

    enum Step: Sendable {
        /// Statements in the dialect's column types, run in order.
        case statements(@Sendable (ColumnTypes) -> [String])
        /// Each open fight's missed turns counted from its log (`Schema.countingMissedTurns`):
        /// rows read and written by the database's own code.
        case countMissedTurns
    }

    init(identifier: String, _ statements: @escaping @Sendable (ColumnTypes) -> [String]) {
        self.identifier = identifier
        step = .statements(statements)
    }

    init(identifier: String, step: Step) {
        self.identifier = identifier
        self.step = step
    }
}

enum Schema {
    /// The statements of a migration's `script`, each ended by a semicolon at the end of a line
    /// (a semicolon inside a line, in a comment, does not end one): one a call, as postgres-nio's
    /// extended protocol takes them. Pieces of comments only are dropped.
    static func statements(_ script: String) -> [String] {
        (script + "\n").components(separatedBy: ";\n").filter { statement in
            statement.split(separator: "\n").contains { line in
                let trimmed = line.drop { $0 == " " }
                return !trimmed.isEmpty && !trimmed.hasPrefix("--")
            }
        }
    }

    /// `fight` with the missed turns its log adds up to, as the audit counts them.
    static func countingMissedTurns(_ fight: Fight, log: [Event]) -> Fight {
        var counted = fight
        for case .fight(let event) in log {
            counted.missedTurns = counted.missedTurns.counting(event.change, corner: fight.corner(of:))
        }
        return counted
    }

    /// Every migration, oldest first. A new database gets them all; an old one gets the ones it lacks.
    static let migrations: [Migration] = [
        Migration(identifier: "v1: fighters, fights, events, rooms, shown, statistics") { t in
            Schema.statements("""
                CREATE TABLE fighters (
                    id \(t.integer) PRIMARY KEY,
                    username TEXT NOT NULL,
                    username_key TEXT NOT NULL UNIQUE,
                    display_name TEXT NOT NULL,
                    bio TEXT NOT NULL,
                    latitude \(t.real),
                    longitude \(t.real),
                    height_cm \(t.integer),
                    weight_kg \(t.integer),
                    reach_cm \(t.integer),
                    wins \(t.integer) NOT NULL,
                    losses \(t.integer) NOT NULL,
                    draws \(t.integer) NOT NULL,
                    joined_at \(t.integer) NOT NULL
                );
                -- Locations as degenerate boxes: an R*Tree (SQLite) or a GiST index (PostgreSQL) finds fighters in a rectangle without a scan.
                \(t.locations)

                -- The fight itself is JSON (the engine's value); the columns are what queries need.
                CREATE TABLE fights (
                    id \(t.integer) PRIMARY KEY,
                    challenger_id \(t.integer) NOT NULL REFERENCES fighters(id),
                    opponent_id \(t.integer) NOT NULL REFERENCES fighters(id),
                    pair_low \(t.integer) NOT NULL,
                    pair_high \(t.integer) NOT NULL,
                    is_open \(t.boolean) NOT NULL,
                    deadline \(t.integer),
                    body TEXT NOT NULL
                );
                -- The engine refuses a second open fight per pair; the database refuses it too.
                CREATE UNIQUE INDEX fights_one_open_per_pair ON fights(pair_low, pair_high) WHERE is_open;
                CREATE INDEX fights_open_by_deadline ON fights(deadline) WHERE is_open;
                CREATE INDEX fights_by_challenger ON fights(challenger_id) WHERE is_open;
                CREATE INDEX fights_by_opponent ON fights(opponent_id) WHERE is_open;

                CREATE TABLE events (
                    id \(t.autoincrementingKey),
                    fight_id \(t.integer) REFERENCES fights(id),
                    sequence \(t.integer),
                    fighter_id \(t.integer) REFERENCES fighters(id),
                    at \(t.integer) NOT NULL,
                    body TEXT NOT NULL,
                    UNIQUE (fight_id, sequence)
                );

                CREATE TABLE rooms (
                    fighter_id \(t.integer) PRIMARY KEY REFERENCES fighters(id),
                    opened_at \(t.integer) NOT NULL
                );

                CREATE TABLE shown (
                    viewer_id \(t.integer) NOT NULL REFERENCES fighters(id),
                    shown_id \(t.integer) NOT NULL REFERENCES fighters(id),
                    shown_at \(t.integer) NOT NULL,
                    PRIMARY KEY (viewer_id, shown_id)
                )\(t.withoutRowID);

                -- scope: 'overall' (0, 0), 'fighter' (id, 0) or 'pair' (id, versus).
                CREATE TABLE statistics (
                    scope TEXT NOT NULL,
                    fighter_id \(t.integer) NOT NULL,
                    versus_id \(t.integer) NOT NULL,
                    qty_battles \(t.integer) NOT NULL,
                    qty_wins \(t.integer) NOT NULL,
                    last_battle \(t.integer),
                    last_win \(t.integer),
                    PRIMARY KEY (scope, fighter_id, versus_id)
                )\(t.withoutRowID);
                """)
        },
        // A fight saved before missed turns were counted reads as having none missed. An open one
        // is given the count its log adds up to, as the audit does, so that a fight abandoned
        // before the rule ends at its next lapse. Finished fights are left as they are: nothing
        // judges their counts again, and there may be millions of them.
        Migration(identifier: "v2: each open fight's missed turns, counted from its log", step: .countMissedTurns),
        Migration(identifier: "v3: accounts and sessions") { t in
            // Until this migration the server made these two tables itself, through a second pool
            // on the file, with these very statements: a file it served already has them, with
            // every password and session in them, so they are created only if missing.
            Schema.statements("""
                CREATE TABLE IF NOT EXISTS accounts (
                    fighter_id \(t.integer) PRIMARY KEY, password_hash TEXT NOT NULL, created_at \(t.integer) NOT NULL);
                CREATE TABLE IF NOT EXISTS sessions (
                    token_hash TEXT PRIMARY KEY, fighter_id \(t.integer) NOT NULL, created_at \(t.integer) NOT NULL);
                """)
        },
        Migration(identifier: "v4: every fight by each corner") { t in
            // A fighter's history is found through these rather than by reading the log at start-up:
            // the partial indexes of v1 cover open fights only.
            Schema.statements("""
                CREATE INDEX fights_of_challenger ON fights(challenger_id);
                CREATE INDEX fights_of_opponent ON fights(opponent_id);
                """)
        },
        Migration(identifier: "v5: when each session was last used") { t in
            // Sessions lapse when unused for a while (the server decides how long). When a session
            // saved before was last used is not known; its opening is the one use on record, so a
            // token older than the lifetime lapses and its client logs in again.
            Schema.statements("""
                ALTER TABLE sessions ADD COLUMN last_used_at \(t.integer) NOT NULL DEFAULT 0;
                UPDATE sessions SET last_used_at = created_at;
                CREATE INDEX sessions_by_last_use ON sessions(last_used_at);
                """)
        },
        Migration(identifier: "v6: servers' leases and fighters' rate allowances") { t in
            // What several servers on one database share besides the log (see FightStore+SharedDatabase):
            // which servers are serving, and each fighter's allowances. An SQLite file has the tables
            // and leaves them empty. The allowances are worth nothing after a crash (a full bucket is
            // the worst that comes of losing them), so PostgreSQL need not log them.
            Schema.statements("""
                CREATE TABLE server_leases (server_id TEXT PRIMARY KEY, expires_at \(t.integer) NOT NULL);
                CREATE \(t.unlogged)TABLE rate_buckets (
                    fighter_id \(t.integer) NOT NULL,
                    kind TEXT NOT NULL,
                    tokens \(t.real) NOT NULL,
                    refilled_at \(t.integer) NOT NULL,
                    allowed \(t.boolean) NOT NULL,
                    PRIMARY KEY (fighter_id, kind)
                );
                """)
        },
        Migration(identifier: "v7: fighters' connections by server") { t in
            // Whether a fighter is connected to any of the servers sharing the database (see
            // FightStore.notePresence): a row a fighter and server while the fighter has a connection
            // there, counted only while the server's lease is live. Worth nothing after a crash of
            // the database (every connection dropped with it), so PostgreSQL need not log them.
            Schema.statements("""
                CREATE \(t.unlogged)TABLE presence (
                    fighter_id \(t.integer) NOT NULL,
                    server_id TEXT NOT NULL,
                    since \(t.integer) NOT NULL,
                    PRIMARY KEY (fighter_id, server_id)
                );
                """)
        },
        Migration(identifier: "v8: how much an allowance's last taking took") { t in
            // A server takes a few messages' worth at once (FightStore.takeAllowance) and is told how many.
            ["ALTER TABLE rate_buckets ADD COLUMN granted \(t.real) NOT NULL DEFAULT 0"]
        },
        Migration(identifier: "v9: fighters' punch profiles") { t in
            // What a fighter taught the server's detector of their punches (FightStore.savePunchProfile):
            // the profile's JSON as PunchProfile writes it (`profile.json`), one a fighter, replaced
            // when they teach it again. A table of its own: no command reads it, and a fighter's row
            // stays as narrow as it was.
            Schema.statements("""
                CREATE TABLE punch_profiles (
                    fighter_id \(t.integer) PRIMARY KEY REFERENCES fighters(id),
                    profile TEXT NOT NULL,
                    taught_at \(t.integer) NOT NULL
                );
                """)
        },
        Migration(identifier: "v10: the name each server keeps over its restarts") { _ in
            // A lease is still one run's (`server_id`); its name says which server that run was, so
            // that a server restarted within its last run's lease knows that lease for its own
            // (FightStore.startServing). Two live leases never share a name.
            Schema.statements("""
                ALTER TABLE server_leases ADD COLUMN name TEXT;
                CREATE UNIQUE INDEX server_leases_by_name ON server_leases(name) WHERE name IS NOT NULL;
                """)
        },
    ]
}

/// The two databases' dialects, where the schema's words differ.
enum Dialect: Sendable {
    case sqlite
    case postgres
}

/// The column types of the tables, in each dialect's words. SQLite's are those its files were
/// always made with (an `INTEGER PRIMARY KEY` is the row's own identifier there); PostgreSQL's
/// hold the same values (its `INTEGER` and `REAL` are 32-bit, too small for times and places).
struct ColumnTypes: Sendable {
    let integer: String
    let real: String
    let boolean: String
    /// A primary key the database numbers, each number greater than any before it.
    let autoincrementingKey: String
    /// After a table's closing parenthesis: a table clustered on its primary key.
    let withoutRowID: String
    /// The table of fighters' locations and its index, which finds those in a rectangle without a scan.
    let locations: String
    /// Before `TABLE`: a table whose rows a crash may lose, which spares writing them twice.
    let unlogged: String

    init(_ dialect: Dialect) {
        switch dialect {
        case .sqlite:
            integer = "INTEGER"
            real = "REAL"
            boolean = "INTEGER"
            autoincrementingKey = "INTEGER PRIMARY KEY AUTOINCREMENT"
            withoutRowID = " WITHOUT ROWID"
            unlogged = ""
            locations = "CREATE VIRTUAL TABLE fighter_locations USING rtree(id, min_lat, max_lat, min_lon, max_lon);"
        case .postgres:
            integer = "BIGINT"
            real = "DOUBLE PRECISION"
            boolean = "BOOLEAN"
            autoincrementingKey = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
            withoutRowID = ""
            unlogged = "UNLOGGED "
            // The same columns as SQLite's R*Tree, with a GiST index of each fighter's box (a point):
            // the search asks for boxes that overlap its rectangle, which this index answers.
            locations = """
                CREATE TABLE fighter_locations (
                        id BIGINT PRIMARY KEY REFERENCES fighters(id),
                        min_lat DOUBLE PRECISION NOT NULL, max_lat DOUBLE PRECISION NOT NULL,
                        min_lon DOUBLE PRECISION NOT NULL, max_lon DOUBLE PRECISION NOT NULL);
                    CREATE INDEX fighter_locations_by_box
                        ON fighter_locations USING gist (box(point(min_lat, min_lon), point(max_lat, max_lon)));
                """
        }
    }
}
