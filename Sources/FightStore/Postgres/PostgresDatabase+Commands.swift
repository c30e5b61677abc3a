#if PostgreSQL
    import FightEngine
    import Foundation
    import NIOCore
    import PostgresNIO

    // MARK: - Commands on PostgreSQL

    /// A command's transaction (`CommandPlan`) in PostgreSQL's SQL. Compare `SQLiteDatabase+Commands`.
    extension PostgresDatabase {
        func execute(_ commands: [Command], scope: WriteScope, at now: Timestamp, referee: Referee) async throws
            -> [Result<[Event], Refusal>]
        {
            try await execute(commands, scope: scope, at: now, referee: referee, beforeCommit: {})
        }

        /// `execute`, running `beforeCommit` once the commands are applied, before the commit: a
        /// test's way to hold a transaction open while others run.
        func execute(
            _ commands: [Command], scope: WriteScope, at now: Timestamp, referee: Referee,
            beforeCommit: @escaping @Sendable () async -> Void
        ) async throws -> [Result<[Event], Refusal>] {
            try await write(scope) { session in
                var outcomes: [Result<[Event], Refusal>] = []
                for command in commands {
                    outcomes.append(try await self.apply(command, at: now, referee: referee, in: session))
                }
                await beforeCommit()
                return outcomes
            }
        }

        /// Load → reduce → save of one command, in `session`'s write transaction; the changes
        /// announced to the other servers when it commits.
        func apply(_ command: Command, at now: Timestamp, referee: Referee, in session: PostgresSession) async throws
            -> Result<[Event], Refusal>
        {
            let answers = try await Self.answer(CommandPlan.questions(for: command, at: now), in: session)
            var (before, missing) = CommandPlan.state(from: answers)
            if !missing.isEmpty {
                let ids = missing.map(\.rawValue)
                for fighter in try await Self.fighters(session, where: "id = ANY(\(ids))") {
                    before.fighters[fighter.id] = fighter
                }
            }
            let outcome = referee.reduce(before, command, at: now)
            guard case .success(let transition) = outcome else { return outcome.map(\.events) }
            for write in CommandPlan.writes(of: transition, replacing: before) { try Self.perform(write, in: session) }
            try announce(CommandPlan.changes(of: transition.events), in: session)
            return .success(transition.events)
        }

        /// Every question started at once, then the answers read: one wait for all of them.
        static func answer(_ questions: CommandPlan.Questions, in session: PostgresSession) async throws
            -> CommandPlan.Answers
        {
            let next = session.prefetch(
                """
                SELECT (SELECT coalesce(max(id), 0) + 1 FROM fighters) AS fighter,
                    (SELECT coalesce(max(id), 0) + 1 FROM fights) AS fight
                """)
            let ownFight = questions.fight.map { id in
                session.prefetch("SELECT id, body FROM fights WHERE id = \(id.rawValue)")
            }
            // One array of identifiers, the fight's corners among them: looked up in the primary key
            // (an OR of two conditions made PostgreSQL scan).
            let ids = questions.fighters.map(\.rawValue)
            let ownFighters: EventLoopFuture<PostgresQueryResult>? =
                if let id = questions.fight {
                    session.prefetch(
                        """
                        SELECT \(unescaped: fighterColumns) FROM fighters WHERE id = ANY(\(ids) || ARRAY(
                            SELECT challenger_id FROM fights WHERE id = \(id.rawValue)
                            UNION ALL SELECT opponent_id FROM fights WHERE id = \(id.rawValue)))
                        """)
                } else if !ids.isEmpty {
                    session.prefetch("SELECT \(unescaped: fighterColumns) FROM fighters WHERE id = ANY(\(ids))")
                } else {
                    nil
                }
            let named = questions.usernameKey.map { key in
                session.prefetch("SELECT \(unescaped: fighterColumns) FROM fighters WHERE username_key = \(key)")
            }
            let openFights: EventLoopFuture<PostgresQueryResult>? =
                switch questions.openFights {
                case .pair(let low, let high)?:
                    session.prefetch(
                        "SELECT id, body FROM fights WHERE is_open AND pair_low = \(low) AND pair_high = \(high)")
                case .of(let fighter)?:
                    session.prefetch(
                        """
                        SELECT id, body FROM fights WHERE is_open AND challenger_id = \(fighter.rawValue)
                        UNION ALL SELECT id, body FROM fights WHERE is_open AND opponent_id = \(fighter.rawValue)
                        """)
                case .due(let moment)?:
                    session.prefetch("SELECT id, body FROM fights WHERE is_open AND deadline <= \(moment)")
                case nil: nil
                }
            let rooms: EventLoopFuture<PostgresQueryResult>? =
                switch questions.rooms {
                case .all?: session.prefetch("SELECT fighter_id, opened_at FROM rooms")
                case .of(let fighter)?:
                    session.prefetch("SELECT fighter_id, opened_at FROM rooms WHERE fighter_id = \(fighter.rawValue)")
                case nil: nil
                }

            var answers = CommandPlan.Answers()
            if let row = try await session.rows(of: next).first {
                answers.nextFighter = try row.get("fighter")
                answers.nextFight = try row.get("fight")
            }
            for fights in [ownFight, openFights].compactMap({ $0 }) {
                answers.fights += try await session.rows(of: fights).map(FightRows.decode)
            }
            for fighters in [ownFighters, named].compactMap({ $0 }) {
                answers.fighters += try await session.rows(of: fighters).map(FighterRows.decode)
            }
            if let rooms { answers.rooms = try await session.rows(of: rooms).map(RoomRows.decode) }
            return answers
        }

        func perform(_ writes: [CommandPlan.Write]) async throws {
            try await write(.everything) { session in for write in writes { try Self.perform(write, in: session) } }
        }

        /// Sends the statement of one row written, unanswered (the commit waits for it).
        static func perform(_ write: CommandPlan.Write, in session: PostgresSession) throws {
            switch write {
            case .fighter(let f, let moved):
                session.send(
                    """
                    INSERT INTO fighters (\(unescaped: FighterRows.columns), username_key) VALUES (
                        \(f.id.rawValue), \(f.username.rawValue), \(f.displayName), \(f.bio),
                        \(f.location?.latitude), \(f.location?.longitude),
                        \(f.profile.heightCm.map(Int64.init)), \(f.profile.weightKg.map(Int64.init)),
                        \(f.profile.reachCm.map(Int64.init)), \(Int64(f.record.wins)), \(Int64(f.record.losses)),
                        \(Int64(f.record.draws)), \(f.joinedAt.secondsSince1970), \(f.username.key))
                    \(unescaped: FighterRows.upsert)
                    """)
                guard moved else { return }
                if let at = f.location {
                    session.send(
                        """
                        INSERT INTO fighter_locations (id, min_lat, max_lat, min_lon, max_lon)
                        VALUES (\(f.id.rawValue), \(at.latitude), \(at.latitude), \(at.longitude), \(at.longitude))
                        ON CONFLICT (id) DO UPDATE SET min_lat = excluded.min_lat, max_lat = excluded.max_lat,
                            min_lon = excluded.min_lon, max_lon = excluded.max_lon
                        """)
                } else {
                    session.send("DELETE FROM fighter_locations WHERE id = \(f.id.rawValue)")
                }
            case .fight(let fight):
                try save(fight, in: session)
            case .roomClosed(let fighter):
                session.send("DELETE FROM rooms WHERE fighter_id = \(fighter.rawValue)")
            case .roomOpened(let room):
                session.send(
                    "INSERT INTO rooms (fighter_id, opened_at) VALUES (\(room.fighter.rawValue), \(room.openedAt.secondsSince1970))"
                )
            case .event(let event):
                let keys = EventRows.keys(of: event), body = try JSON.encode(event)
                session.send(
                    """
                    INSERT INTO events (fight_id, sequence, fighter_id, at, body)
                    VALUES (\(keys.fight), \(keys.sequence.map(Int64.init)), \(keys.fighter), \(event.at.secondsSince1970),
                        \(body))
                    """)
            case .statistics(let scope, let line):
                let key = StatisticsRows.columns(scope)
                session.send(
                    """
                    INSERT INTO statistics (scope, fighter_id, versus_id, qty_battles, qty_wins, last_battle, last_win)
                    VALUES (\(key.scope), \(key.fighter), \(key.versus), \(Int64(line.qtyBattles)), \(Int64(line.qtyWins)),
                        \(line.lastBattle?.secondsSince1970), \(line.lastWin?.secondsSince1970))
                    \(unescaped: StatisticsRows.upsert)
                    """)
            }
        }

        /// Sends the upsert of `fight`.
        static func save(_ fight: Fight, in session: PostgresSession) throws {
            let (low, high) = FightRows.pair(of: fight), body = try JSON.encode(fight)
            session.send(
                """
                INSERT INTO fights (id, challenger_id, opponent_id, pair_low, pair_high, is_open, deadline, body)
                VALUES (\(fight.id.rawValue), \(fight.challenger.rawValue), \(fight.opponent.rawValue), \(low), \(high),
                    \(fight.isOpen), \(fight.deadline?.secondsSince1970), \(body))
                \(unescaped: FightRows.upsert)
                """)
        }

        /// A fighter's columns, as selected for `FighterRows.decode`.
        static let fighterColumns = FighterRows.selection(wholeText: false)

        static func fighters(_ session: PostgresSession, where condition: PostgresQuery) async throws -> [Fighter] {
            var query: PostgresQuery = "SELECT \(unescaped: fighterColumns) FROM fighters WHERE "
            query.sql += condition.sql
            query.binds = condition.binds
            return try await session.rows(query).map(FighterRows.decode)
        }

        // MARK: Announcements

        /// What one server says to the others: its changes, each with the store that made it, so
        /// that a store does not hear itself.
        struct Announcement: Codable {
            let origin: String
            let change: StoreChange
        }

        /// PostgreSQL refuses a notification's payload of 8,000 bytes or more.
        static let largestPayload = 7_999

        /// `NOTIFY`, one notification a change, sent by PostgreSQL when the transaction commits,
        /// in the order of the commits. One statement for all of them (a deadline's tick may
        /// settle many fights at once), the payloads an array.
        func announce(_ changes: [StoreChange], in session: PostgresSession) throws {
            var payloads: [String] = []
            for change in changes {
                let payload = try JSON.encode(Announcement(origin: origin, change: change))
                guard payload.utf8.count <= Self.largestPayload else {
                    // Only a fighter event can be this long (a long bio): it is for the fighter's own
                    // other connections, which read the profile again when they next ask.
                    logger.warning("a change too long to announce", metadata: ["bytes": "\(payload.utf8.count)"])
                    continue
                }
                payloads.append(payload)
            }
            guard !payloads.isEmpty else { return }
            session.send("SELECT count(pg_notify(\(channel), payload)) FROM unnest(\(payloads)) AS payload")
        }
    }
#endif
