import GRDB

// MARK: - Schema

enum Schema {
    /// Every migration, oldest first. A new file gets them all; an old one gets the ones it lacks.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: fighters, fights, events, rooms, shown, statistics") { db in
            try db.execute(
                sql: """
                    CREATE TABLE fighters (
                        id INTEGER PRIMARY KEY,
                        username TEXT NOT NULL,
                        username_key TEXT NOT NULL UNIQUE,
                        display_name TEXT NOT NULL,
                        bio TEXT NOT NULL,
                        latitude REAL,
                        longitude REAL,
                        height_cm INTEGER,
                        weight_kg INTEGER,
                        reach_cm INTEGER,
                        wins INTEGER NOT NULL,
                        losses INTEGER NOT NULL,
                        draws INTEGER NOT NULL,
                        joined_at INTEGER NOT NULL
                    );
                    -- Locations as degenerate boxes: the R*Tree finds fighters in a rectangle without a scan.
                    CREATE VIRTUAL TABLE fighter_locations USING rtree(id, min_lat, max_lat, min_lon, max_lon);

                    -- The fight itself is JSON (the engine's value); the columns are what queries need.
                    CREATE TABLE fights (
                        id INTEGER PRIMARY KEY,
                        challenger_id INTEGER NOT NULL REFERENCES fighters(id),
                        opponent_id INTEGER NOT NULL REFERENCES fighters(id),
                        pair_low INTEGER NOT NULL,
                        pair_high INTEGER NOT NULL,
                        is_open INTEGER NOT NULL,
                        deadline INTEGER,
                        body TEXT NOT NULL
                    );
                    -- The engine refuses a second open fight per pair; the database refuses it too.
                    CREATE UNIQUE INDEX fights_one_open_per_pair ON fights(pair_low, pair_high) WHERE is_open;
                    CREATE INDEX fights_open_by_deadline ON fights(deadline) WHERE is_open;
                    CREATE INDEX fights_by_challenger ON fights(challenger_id) WHERE is_open;
                    CREATE INDEX fights_by_opponent ON fights(opponent_id) WHERE is_open;

                    CREATE TABLE events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        fight_id INTEGER REFERENCES fights(id),
                        sequence INTEGER,
                        fighter_id INTEGER REFERENCES fighters(id),
                        at INTEGER NOT NULL,
                        body TEXT NOT NULL,
                        UNIQUE (fight_id, sequence)
                    );

                    CREATE TABLE rooms (
                        fighter_id INTEGER PRIMARY KEY REFERENCES fighters(id),
                        opened_at INTEGER NOT NULL
                    );

                    CREATE TABLE shown (
                        viewer_id INTEGER NOT NULL REFERENCES fighters(id),
                        shown_id INTEGER NOT NULL REFERENCES fighters(id),
                        shown_at INTEGER NOT NULL,
                        PRIMARY KEY (viewer_id, shown_id)
                    ) WITHOUT ROWID;

                    -- scope: 'overall' (0, 0), 'fighter' (id, 0) or 'pair' (id, versus).
                    CREATE TABLE statistics (
                        scope TEXT NOT NULL,
                        fighter_id INTEGER NOT NULL,
                        versus_id INTEGER NOT NULL,
                        qty_battles INTEGER NOT NULL,
                        qty_wins INTEGER NOT NULL,
                        last_battle INTEGER,
                        last_win INTEGER,
                        PRIMARY KEY (scope, fighter_id, versus_id)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2: each open fight's missed turns, counted from its log") { db in
            // A fight saved before missed turns were counted reads as having none missed. An open
            // one is given the count its log adds up to, as the audit does, so that a fight
            // abandoned before the rule ends at its next lapse. Finished fights are left as they
            // are: nothing judges their counts again, and there may be millions of them.
            for fight in try FightRows.fetch(db, where: "is_open", []) {
                var counted = fight
                for case .fight(let event) in try EventRows.fetch(db, where: "fight_id = ?", [fight.id.rawValue]) {
                    counted.missedTurns = counted.missedTurns.counting(event.change, corner: fight.corner(of:))
                }
                try FightRows.save(counted, in: db)
            }
        }
        migrator.registerMigration("v3: accounts and sessions") { db in
            // Until this migration the server made these two tables itself, through a second pool
            // on the file, with these very statements: a file it served already has them, with
            // every password and session in them, so they are created only if missing.
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS accounts (
                        fighter_id INTEGER PRIMARY KEY, password_hash TEXT NOT NULL, created_at INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS sessions (
                        token_hash TEXT PRIMARY KEY, fighter_id INTEGER NOT NULL, created_at INTEGER NOT NULL);
                    """)
        }
        migrator.registerMigration("v4: every fight by each corner") { db in
            // A fighter's history is found through these rather than by reading the log at start-up:
            // the partial indexes of v1 cover open fights only.
            try db.execute(
                sql: """
                    CREATE INDEX fights_of_challenger ON fights(challenger_id);
                    CREATE INDEX fights_of_opponent ON fights(opponent_id);
                    """)
        }
        migrator.registerMigration("v5: when each session was last used") { db in
            // Sessions lapse when unused for a while (the server decides how long). When a session
            // saved before was last used is not known; its opening is the one use on record, so a
            // token older than the lifetime lapses and its client logs in again.
            try db.execute(
                sql: """
                    ALTER TABLE sessions ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
                    UPDATE sessions SET last_used_at = created_at;
                    CREATE INDEX sessions_by_last_use ON sessions(last_used_at);
                    """)
        }
        return migrator
    }
}
