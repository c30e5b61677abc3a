import FightEngine
import FightStore

// MARK: - Following fights

/// Which fights this server pushes, and how far: so that each connection gets each event of a
/// fight once and in order, whichever server committed it (another server's reach here by its
/// announcement, read from the log).
extension HubState {
    /// Follows `fight` (between `corners`) from `sequence` on, unless it is followed already or
    /// (the store was read while the hub did other work) neither fighter is connected here now.
    mutating func follow(_ fight: FightID, corners: Both<FighterID>, from sequence: Int) {
        guard followed[fight] == nil, isConnected(corners) else { return }
        followed[fight] = Followed(corners: corners, sequence: sequence)
    }

    /// What pushing `event`, just saved by a command here, takes.
    enum Push: Equatable {
        /// Pushed here already (another server's commit, caught up from the log first).
        case already
        /// To push now; first, if this server's pushes of the fight are behind (another server's
        /// events came first, their announcement on its way), those after `catchingUpAfter` and
        /// before the event, read from the log.
        case now(catchingUpAfter: Int?)
    }

    /// What pushing `event` takes: in sequence order, each once.
    func pushing(_ event: FightEvent) -> Push {
        guard let last = followed[event.fight]?.sequence else { return .now(catchingUpAfter: nil) }
        guard event.sequence > last else { return .already }
        return .now(catchingUpAfter: event.sequence > last + 1 ? last : nil)
    }

    /// `event` of a fight between `corners` was pushed to its fighters here: followed from it on
    /// while one of them is connected, a hold being read in the fight is over, and a fight that
    /// begins is one whose fighters to tell whether the other is there.
    mutating func pushed(_ event: FightEvent, to corners: Both<FighterID>) {
        fightMoved(event.fight, corners: corners)
        if isConnected(corners) { followed[event.fight] = Followed(corners: corners, sequence: event.sequence) }
        if event.change.beginsFight { fightsBegun.append(Begun(fight: event.fight, corners: corners)) }
    }

    /// The fights begun since the last call, whose fighters to tell whether the other is there,
    /// taken: told once the events are pushed, since on a database shared the store is asked.
    mutating func takeFightsBegun() -> [Begun] {
        defer { fightsBegun = [] }
        return fightsBegun
    }

    /// Another server committed events `first` to `last` of `fight`: the sequence to read its
    /// events after, or `nil` when they were all pushed here already. A fight not followed is read
    /// from `first` (maybe new: a challenge made on the other server), its corners to say whether
    /// anyone here is in it.
    func readAfter(_ fight: FightID, first: Int, last: Int) -> Int? {
        guard let known = followed[fight] else { return first - 1 }
        return last > known.sequence ? known.sequence : nil
    }

    /// The sequence pushed of each fight followed: what to read after once listening again after a
    /// gap (what came meanwhile was not heard).
    var followedSequences: [FightID: Int] { followed.mapValues(\.sequence) }

    /// The sequence to push `fight`'s events read from the log after (each once): its last pushed,
    /// or all of it when one of its fighters (`corners`) is here and it was not followed; `nil`
    /// when nobody here is in it.
    func pushFromLog(_ fight: FightID, corners: Both<FighterID>) -> Int? {
        if let known = followed[fight] { return known.sequence }
        return isConnected(corners) ? 0 : nil
    }
}

// MARK: - Pushing

/// What to push, decided with no I/O: the hub awaits what a push needs with the command that
/// saved the events (`Saved`), and sends each `Delivery` the state answers, in order.
extension HubState {
    /// An event to send to every connection here of `recipients`, in this order (a request's
    /// sender gets its copy with the request's `ref`).
    struct Delivery: Equatable {
        let event: Event
        let recipients: [FighterID]
    }

    /// Events a command saved, with what pushing them needs of the store, read with them
    /// (`pushNeeds(for:)` says what): so that deciding the pushes never waits for the store.
    struct Saved: Sendable {
        /// The command's events, in order.
        var events: [Event]
        /// The corners of each fight of `events` that nobody here followed as the command was
        /// sent and that no event of it names (one of its fighters may have connected since).
        var corners: [FightID: Both<FighterID>] = [:]
        /// Events of the command's fights that other servers saved before it, after the last one
        /// pushed here as the command was sent (their announcements on their way): pushed first.
        var before: [FightID: [FightEvent]] = [:]
    }

    /// What the store is to be asked with a command, for its events to be pushed (`Saved`): the
    /// fights followed here that it may change, with the last sequence of each pushed here.
    struct PushNeeds: Sendable {
        let pushedUpTo: [FightID: Int]

        /// Reads, after the command saved `events`, what pushing them needs (`Saved`): the
        /// corners of each fight not followed that no event names, and each followed fight's
        /// events between the last pushed and the command's first.
        func read(
            _ events: [Event], corners: (FightID) async throws -> Both<FighterID>?,
            log: (FightID, Int) async throws -> [FightEvent]
        ) async throws -> Saved {
            var saved = Saved(events: events)
            var first: [FightID: Int] = [:]
            for case .fight(let event) in events {
                first[event.fight] = min(first[event.fight] ?? .max, event.sequence)
                if event.change.corners == nil, pushedUpTo[event.fight] == nil, saved.corners[event.fight] == nil {
                    saved.corners[event.fight] = try await corners(event.fight)
                }
            }
            for (fight, first) in first.sorted(by: { $0.key < $1.key }) {
                guard let pushed = pushedUpTo[fight], first > pushed + 1 else { continue }
                saved.before[fight] = try await log(fight, pushed).filter { $0.sequence < first }
            }
            return saved
        }
    }

    /// What to read with a command on `fight` (`nil`: a command of no one fight, such as the
    /// deadlines, which may change any) for its events to be pushed.
    func pushNeeds(for fight: FightID?) -> PushNeeds {
        guard let fight else { return PushNeeds(pushedUpTo: followed.mapValues(\.sequence)) }
        return PushNeeds(pushedUpTo: followed[fight].map { [fight: $0.sequence] } ?? [:])
    }

    /// `saved`, a command's events, to push: each fight event to its corners here, in sequence
    /// order and once (other servers' events of the fight read before it go first); each fighter
    /// event to its fighter. A fight nobody here is in is pushed to nobody.
    mutating func publish(_ saved: Saved) -> [Delivery] {
        var deliveries: [Delivery] = []
        for event in saved.events {
            switch event {
            case .fight(let event):
                guard
                    let corners = followed[event.fight]?.corners ?? event.change.corners ?? saved.corners[event.fight],
                    case .now(let behind) = pushing(event)
                else { continue }
                if let behind {
                    for earlier in saved.before[event.fight] ?? []
                    where earlier.sequence > behind && earlier.sequence < event.sequence {
                        deliveries.append(push(earlier, to: corners))
                    }
                }
                deliveries.append(push(event, to: corners))
            case .fighter(let event):
                deliveries.append(Delivery(event: .fighter(event), recipients: [event.fighter]))
            }
        }
        return deliveries
    }

    /// Each fight's events in `news` (other servers' commits, read from the log) not pushed here
    /// yet, in order, to its fighters here.
    mutating func publish(_ news: [FightID: FightNews]) -> [Delivery] {
        var deliveries: [Delivery] = []
        for (id, fight) in news.sorted(by: { $0.key < $1.key }) {
            guard let pushedUpTo = pushFromLog(id, corners: fight.corners) else { continue }
            for event in fight.events where event.sequence > pushedUpTo {
                deliveries.append(push(event, to: fight.corners))
            }
        }
        return deliveries
    }

    /// `event` pushed to `corners`: noted (`pushed`), and the delivery.
    private mutating func push(_ event: FightEvent, to corners: Both<FighterID>) -> Delivery {
        pushed(event, to: corners)
        return Delivery(event: .fight(event), recipients: [corners.challenger, corners.opponent])
    }
}
