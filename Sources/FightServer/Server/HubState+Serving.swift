import FightEngine
import FightStore

// MARK: - Serving

/// What the hub keeps of its serving beside the fighters: the lease's renewals, the turns owed
/// after a start that was alone, and the other servers' changes heard and not yet acted on.
extension HubState {
    /// This server started serving at `now` (its lease taken) and, being alone, began afresh the
    /// turns of `resumed` (none when it joined others): each is owed once more to the fighter who
    /// has it, when they first connect (`takeOwedTurns`).
    mutating func startedServing(at now: Timestamp, resumed: [Event]) {
        leaseRenewedAt = now
        for case .fight(let event) in resumed {
            guard case .turnPassed(_, let turn) = event.change else { continue }
            owedTurns[turn.fighter, default: [:]][event.fight] = event.sequence
        }
    }

    /// The turns owed to `fighter` (each fight with the sequence the start left it at), in order
    /// of fight, taken: once per fighter per start.
    mutating func takeOwedTurns(of fighter: FighterID) -> [(fight: FightID, after: Int)] {
        (owedTurns.removeValue(forKey: fighter) ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Whether this server's lease is to be renewed at `now`, renewed `every` seconds and lasting
    /// `lasting` unrenewed.
    enum LeaseRenewal: Equatable {
        case notDue
        /// Due; `lapsed` when the last renewal is older than the lease (the database was out of
        /// reach): another server may have forgotten this one's fighters, to be noted again.
        case due(lapsed: Bool)
    }

    /// Whether the lease is to be renewed at `now` (see `LeaseRenewal`).
    func leaseRenewal(at now: Timestamp, every: Int64, lasting: Int64) -> LeaseRenewal {
        guard let last = leaseRenewedAt else { return .due(lapsed: false) }
        guard now - last >= every else { return .notDue }
        return .due(lapsed: now - last >= lasting)
    }

    /// The lease was renewed at `now` (or its renewal tried, when another run holds the name: tried
    /// again a renewal later).
    mutating func leaseRenewed(at now: Timestamp) {
        leaseRenewedAt = now
    }

    /// Another server's `change` was heard: kept for the next batch (`takeHeard`).
    mutating func hear(_ change: StoreChange) {
        heard.append(change)
    }

    /// The changes heard since the last batch, taken, in the order they came.
    mutating func takeHeard() -> [StoreChange] {
        defer { heard = [] }
        return heard
    }
}

// MARK: - Other servers' changes

extension HubState {
    /// What to do about other servers' changes (`act(on:)`), in order.
    enum HeardAction: Equatable {
        /// Send a fighter's event to their connections here.
        case deliver(Delivery)
        /// Close `fighter`'s connections here that began with session `key`, each told `loggedOut`.
        case endSession(key: String, of: FighterID)
        /// Tell the other fighter of each of `fighter`'s fights under way whether they are there.
        case tellPresence(FighterID)
        /// The listener was down: read the open fights of every fighter here and follow those
        /// not followed from their start (`followOpenFights`), then read the news of every fight
        /// followed, and of `reading`.
        case followOpenFights(reading: [FightID: Int])
        /// Read each fight's events after its sequence in `reading`, and push them (`publish`).
        case readNews([FightID: Int])
    }

    /// Other servers committed `changes`: a fighter event goes to that fighter's connections, a
    /// logout closes the session's connections, a presence is told unless the fighter is here; a
    /// fight followed here is read after its last event pushed, one not followed (maybe new, a
    /// challenge made on another server) from the first event announced, its corners to say
    /// whether anyone here is in it; after a gap in listening, every fight followed is.
    mutating func act(on changes: [StoreChange]) -> [HeardAction] {
        var actions: [HeardAction] = []
        var reading: [FightID: Int] = [:]
        var resynchronize = false
        for change in changes {
            switch change {
            case .fight(let id, let first, let last):
                guard let after = readAfter(id, first: first, last: last) else { continue }
                reading[id] = min(reading[id] ?? .max, after)
            case .fighter(let event):
                actions.append(.deliver(Delivery(event: .fighter(event), recipients: [event.fighter])))
            case .sessionEnded(let key, let fighter):
                actions.append(.endSession(key: key, of: fighter))
            case .presence(let fighter, _, let since):
                // Connected here, the fighter is here whatever another server saw.
                if heardPresence(of: fighter, since: since) { actions.append(.tellPresence(fighter)) }
            case .resynchronize:
                resynchronize = true
            }
        }
        if resynchronize {
            actions.append(.followOpenFights(reading: reading))
        } else if !reading.isEmpty {
            actions.append(.readNews(reading))
        }
        return actions
    }

    /// The open fights (`fights`, with their corners) of the fighters here were read after a gap
    /// in listening: those begun meanwhile are followed from their start. The fights to read
    /// the news of: every one followed from where it was pushed, and `reading`.
    mutating func followOpenFights(_ fights: [(FightID, Both<FighterID>)], reading: [FightID: Int]) -> [FightID: Int] {
        for (fight, corners) in fights { follow(fight, corners: corners, from: 0) }
        return reading.merging(followedSequences) { _, followed in followed }
    }
}
