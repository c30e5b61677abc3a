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
