// MARK: - Challenges

extension Draft {
    mutating func challenge(_ challenger: FighterID, _ opponent: FighterID) throws(Refusal) {
        guard challenger != opponent else { throw .cannotChallengeSelf }
        _ = try fighter(challenger)
        _ = try fighter(opponent)
        try ensureNoOpenFight(challenger, opponent)
        let expiresAt = now + rules.challengeLifetime
        var fight = startFight(challenger: challenger, opponent: opponent, phase: .challenged(expiresAt: expiresAt))
        emit(&fight, .challenged(challenger: challenger, opponent: opponent, expiresAt: expiresAt))
    }

    mutating func answer(_ id: FightID, by fighter: FighterID, accepting: Bool) throws(Refusal) {
        settle(id)
        var fight = try fight(id)
        guard fight.corner(of: fighter) == .opponent else {
            throw fight.corner(of: fighter) == nil ? .notInFight(fighter, id) : .notTheChallenged(fighter, id)
        }
        guard case .challenged = fight.phase else {
            if case .finished(.expired, _) = fight.phase { throw .challengeExpired(id) }
            throw .challengeNotPending(id)
        }
        if accepting {
            let turn = beginTurn(of: .challenger, in: &fight, at: now)
            emit(&fight, .accepted(turn: turn))
        } else {
            fight.phase = .finished(.declined, at: now)
            emit(&fight, .declined)
        }
    }

    /// Refuses when `a` and `b` already have an open fight, after bringing that fight up to `now`
    /// (an expired challenge no longer holds the pair).
    mutating func ensureNoOpenFight(_ a: FighterID, _ b: FighterID) throws(Refusal) {
        guard let open = state.openFight(between: a, b) else { return }
        settle(open.id)
        if let stillOpen = state.openFight(between: a, b) { throw .pairAlreadyFighting(stillOpen.id) }
    }

    mutating func startFight(challenger: FighterID, opponent: FighterID, phase: Fight.Phase) -> Fight {
        let fight = Fight(
            id: state.nextFightID, challenger: challenger, opponent: opponent, phase: phase,
            stamina: rules.startingStamina)
        state.nextFightID = FightID(fight.id.rawValue + 1)
        return fight
    }

    /// Gives `corner` the turn from `start` and returns it.
    func beginTurn(of corner: Corner, in fight: inout Fight, at start: Timestamp) -> Turn {
        let deadline = start + rules.turnTimeout
        fight.phase = .active(turn: corner, deadline: deadline)
        return Turn(fighter: fight.fighter(in: corner), deadline: deadline)
    }
}

// MARK: - Punches

extension Draft {
    mutating func punch(
        _ id: FightID, by fighter: FighterID, after: Int, kind: PunchType, strength: PunchStrength
    ) throws(Refusal) {
        // Settled first: a turn whose deadline came has passed, and a punch thrown before it
        // passed is stale, whether or not a scheduler saved the passing yet.
        settle(id)
        var fight = try fight(id)
        let corner = try fight.cornerAwaitingPunch(by: fighter, after: after)
        let thrown: Int
        // Said only of a sensor's punch measured at its full scale: other punches' events are as before.
        var clipped: Bool?
        switch strength {
        case .measured(let damage, let atFullScale):
            clipped = atFullScale ? true : nil
            guard Rules.punchDamage.contains(damage) else {
                throw .invalid(
                    FieldError(
                        .damage, expected: "\(Rules.punchDamage.lowerBound) to \(Rules.punchDamage.upperBound)",
                        got: "\(damage)"))
            }
            thrown = rules.meter.damage(of: kind, measured: damage)
        case .meter(let milliseconds):
            thrown = rules.meter.damage(of: kind, stoppedAfter: milliseconds)
        }
        let target = corner.other
        let bluntedBy = fight.guards[target].flatMap { $0.blunts(kind) ? $0 : nil }
        let damage = bluntedBy?.damage(of: kind, thrown) ?? thrown

        // A fighter already knocked out throws this: their answer, the fight's last punch.
        let answering = fight.stamina[corner] == 0
        // How far past 0 this punch goes, if it knocks out: what a double knockout is judged by.
        let margin = damage - fight.stamina[target]
        fight.stamina[target] = max(0, fight.stamina[target] - damage)
        fight.punches[corner] += 1
        fight.missedTurns[corner] = 0
        let knockedOut = fight.stamina[target] == 0
        // Whoever throws first would win every even fight by being first to land the last blow:
        // so a knockout by the fighter who has thrown more punches is answered, the one knocked
        // out throwing once more (the same number of punches each) before the fight is decided.
        let answerDue = knockedOut && !answering && fight.punches[target] < fight.punches[corner]
        let roundsOver =
            fight.punches[corner] >= rules.punchesPerFighter && fight.punches[target] >= rules.punchesPerFighter
        if answering || (knockedOut && !answerDue) || roundsOver {
            emit(
                &fight,
                .punched(
                    by: fighter, kind: kind, damage: damage, bluntedBy: bluntedBy, staminaLeft: fight.stamina[target],
                    turn: nil, clipped: clipped))
            let result: FightResult
            if answering {
                // The knockout stands unless the answer floors the knocker too; then the blow that
                // went further past 0 wins, and equal margins draw.
                let knockoutMargin = fight.knockoutMargin ?? 0
                let winner: Corner? =
                    !knockedOut || margin < knockoutMargin ? target : margin > knockoutMargin ? corner : nil
                result = fight.result(winner: winner.map(fight.fighter(in:)), by: .knockout)
                fight.knockoutMargin = nil
            } else {
                result = knockedOut ? fight.result(winner: fighter, by: .knockout) : fight.resultOnPoints
            }
            end(&fight, result, at: now)
        } else {
            if answerDue { fight.knockoutMargin = margin }
            // A fighter with no punches left is skipped; the other keeps throwing.
            let next = answerDue || fight.punches[target] < rules.punchesPerFighter ? target : corner
            let turn = beginTurn(of: next, in: &fight, at: now)
            emit(
                &fight,
                .punched(
                    by: fighter, kind: kind, damage: damage, bluntedBy: bluntedBy, staminaLeft: fight.stamina[target],
                    turn: turn, clipped: clipped))
        }
    }

    /// Takes up `stance` for `fighter` in fight `id`. Allowed at any moment of a fight under way,
    /// either fighter's turn: nothing of a punch shows before it lands (its wind-up is the
    /// server's alone), so there is nothing to react to, and the guard up when a punch lands is
    /// the one that counts. No event: the guard stays hidden until it blunts a punch.
    mutating func raiseGuard(_ stance: Guard, in id: FightID, by fighter: FighterID) throws(Refusal) {
        settle(id)
        var fight = try fight(id)
        guard let corner = fight.corner(of: fighter) else { throw .notInFight(fighter, id) }
        guard case .active = fight.phase else { throw .fightNotActive(id) }
        fight.guards[corner] = stance
        state.fights[id] = fight
    }

    mutating func forfeit(_ id: FightID, by fighter: FighterID) throws(Refusal) {
        settle(id)
        var fight = try fight(id)
        guard let corner = fight.corner(of: fighter) else { throw .notInFight(fighter, id) }
        guard case .active = fight.phase else { throw .fightNotActive(id) }
        end(&fight, fight.result(winner: fight.fighter(in: corner.other), by: .forfeit), at: now)
    }

    /// Finishes `fight` and changes both records. Only called on an active fight, and the fight
    /// leaves the active phase here, so a record changes exactly once per fight.
    mutating func end(_ fight: inout Fight, _ result: FightResult, at moment: Timestamp) {
        fight.phase = .finished(.decided(result), at: moment)
        for id in [fight.challenger, fight.opponent] {
            guard var fighter = state.fighters[id] else { continue }
            fighter.record.count(result, for: id)
            state.fighters[id] = fighter
        }
        emit(&fight, at: moment, .ended(result))
    }
}

extension Fight {
    func result(winner: FighterID?, by decision: FightResult.Decision) -> FightResult {
        FightResult(challenger: challenger, opponent: opponent, winner: winner, decision: decision)
    }

    /// Higher stamina wins; equal stamina is a draw.
    var resultOnPoints: FightResult {
        let winner: FighterID? =
            stamina.challenger > stamina.opponent ? challenger : stamina.opponent > stamina.challenger ? opponent : nil
        return result(winner: winner, by: .points)
    }
}

// MARK: - Deadlines

extension Draft {
    /// Starts the turn of fight `id`, if one is under way, afresh from now: the same fighter's,
    /// with a whole turn's time and no turn counted as missed. A `turnPassed` event with
    /// `missedTurns` 0 says so, so that the log replays it and clients learn the new deadline as
    /// they learn any.
    mutating func resumeTurn(_ id: FightID) {
        guard var fight = state.fights[id], case .active(let turn, _) = fight.phase else { return }
        let resumed = beginTurn(of: turn, in: &fight, at: now)
        emit(&fight, .turnPassed(missedTurns: 0, turn: resumed))
    }

    /// Starts `fighter`'s turn in fight `id` afresh, if the turn under way is theirs once the
    /// fight is brought up to now and the fight is still at sequence `after`; nothing otherwise.
    mutating func resumeTurn(_ id: FightID, of fighter: FighterID, after: Int) throws(Refusal) {
        // Settled first, as for any command on a fight: a turn that lapsed is passed, and the
        // turn after it is not the one owed.
        settle(id)
        let fight = try fight(id)
        guard fight.corner(of: fighter) != nil else { throw .notInFight(fighter, id) }
        guard fight.lastSequence == after, case .active(let turn, _) = fight.phase, fight.fighter(in: turn) == fighter
        else { return }
        resumeTurn(id)
    }

    /// Brings fight `id` up to `now`: expires an unanswered challenge, passes a lapsed turn, and
    /// ends by forfeit a fight in which a fighter has let `Rules.missedTurnsToForfeit` turns in a
    /// row lapse.
    ///
    /// A turn that lapsed several times in a row (nobody punched for minutes) is one event with
    /// the count, not one per minute, so a long-idle fight does not flood the log. When both are
    /// away, the turn goes back and forth and the first to reach the limit loses (with none missed
    /// before, the one who had the turn when they both stopped, since their lapses come first).
    mutating func settle(_ id: FightID) {
        guard var fight = state.fights[id] else { return }
        switch fight.phase {
        case .challenged(let expiresAt) where now >= expiresAt:
            fight.phase = .finished(.expired, at: expiresAt)
            emit(&fight, at: expiresAt, .expired)
        case .active(let turn, let deadline) where now >= deadline && fight.stamina[turn] == 0:
            // The knocked-out fighter let their answer lapse: the knockout stands.
            fight.knockoutMargin = nil
            end(&fight, fight.result(winner: fight.fighter(in: turn.other), by: .knockout), at: deadline)
        case .active(let turn, let deadline) where now >= deadline:
            let waiting = turn.other
            guard fight.punches[waiting] < rules.punchesPerFighter else {
                // The other fighter has thrown all their punches and this one let the turn lapse:
                // the round is over.
                end(&fight, fight.resultOnPoints, at: deadline)
                return
            }
            // When the `n`th lapse in a row happened.
            func lapse(_ n: Int64) -> Timestamp { deadline + (n - 1) * rules.turnTimeout }
            let lapsed = 1 + (now - deadline) / rules.turnTimeout
            let untilForfeit = Int64(fight.missedTurns.lapsesUntil(rules.missedTurnsToForfeit, startingWith: turn))
            let passed = min(lapsed, untilForfeit - 1)
            if passed > 0 {
                let newTurn = beginTurn(of: passed % 2 == 1 ? waiting : turn, in: &fight, at: lapse(passed))
                fight.missedTurns = fight.missedTurns.afterLapses(Int(passed), startingWith: turn)
                emit(&fight, at: lapse(passed), .turnPassed(missedTurns: Int(passed), turn: newTurn))
            }
            if lapsed >= untilForfeit {
                let absent = untilForfeit % 2 == 1 ? turn : waiting
                fight.missedTurns[absent] += 1
                let result = fight.result(winner: fight.fighter(in: absent.other), by: .forfeit)
                end(&fight, result, at: lapse(untilForfeit))
            }
        default:
            return
        }
    }
}

// MARK: - Quick match

extension Draft {
    /// Joins the oldest room whose owner is free to fight `id`; opens a room when there is none.
    /// The room's owner becomes the challenger and throws first: they were ready first.
    mutating func quickMatch(_ id: FighterID) throws(Refusal) {
        _ = try fighter(id)
        guard !state.rooms.contains(where: { $0.fighter == id }) else { throw .alreadyWaiting(id) }
        let oldestFirst = state.rooms.sorted { ($0.openedAt, $0.fighter) < ($1.openedAt, $1.fighter) }
        for room in oldestFirst {
            guard (try? ensureNoOpenFight(room.fighter, id)) != nil else { continue }
            state.rooms.removeAll { $0.fighter == room.fighter }
            let turn = Turn(fighter: room.fighter, deadline: now + rules.turnTimeout)
            var fight = startFight(
                challenger: room.fighter, opponent: id, phase: .active(turn: .challenger, deadline: turn.deadline))
            emit(&fight, .matched(challenger: room.fighter, opponent: id, turn: turn))
            return
        }
        state.rooms.append(Room(fighter: id, openedAt: now))
        emit(id, .openedRoom)
    }

    mutating func leaveQuickMatch(_ id: FighterID) throws(Refusal) {
        _ = try fighter(id)
        guard state.rooms.contains(where: { $0.fighter == id }) else { throw .notWaiting(id) }
        state.rooms.removeAll { $0.fighter == id }
        emit(id, .leftRoom)
    }
}
