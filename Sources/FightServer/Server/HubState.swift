import FightEngine
import FightProtocol
import FightStore
import MotionInput

// MARK: - HubState

/// What the hub keeps of the fighters connected here, as one value that does no I/O: each
/// fighter's connections, power meter and hold of the punch button, in one `Here` a fighter, so
/// that what ends with a fighter's connection ends with it, in one place. The hub (`FightHub`)
/// feeds it what happens (a connection opened or closed, a store's answer come back after an
/// `await`, an event pushed) and does what it answers.
///
/// Inputs that come back from an `await` (a wind-up's fight read, a hold's detector made) are
/// taken only while their fighter, or their connection, is still here: one that closed meanwhile
/// does not get a wind-up or a hold back.
///
/// By concern: the connections, wind-ups and holds, and presence here; `+Pushing` (the fights
/// followed and what to deliver), `+Serving` (the lease, the turns owed, other servers' changes).
/// What the other files' methods set is theirs to set, though Swift lets any file of the module.
struct HubState {
    /// A connection's way out: messages as JSON text, written by the connection's own task.
    /// Finishing it closes the connection.
    typealias Outbox = AsyncStream<String>.Continuation

    /// An open connection: where its messages go, and the session (its key) it began with.
    struct Connection {
        let outbox: Outbox
        let session: String
    }

    /// A fighter connected here: their open connections (at least one), and what their turn
    /// holds on this server.
    struct Here {
        /// Their open connections, by number.
        var connections: [Int: Connection]
        /// Their power meter under way: the fight and sequence it was wound up at, and when the
        /// `windUp` arrived by the monotonic clock. Kept here, not in the store: a wind-up is a
        /// moment's state of the turn, and one lost to a restart is simply wound up again. Over
        /// with the punch that stops it or the fighter's last connection.
        var windUp: WindUp?
        /// Their hold of the punch button: the one being read, or the last one, over. One a
        /// fighter, dropped with the connection it came on.
        var hold: Hold?
    }

    /// A power meter under way.
    struct WindUp: Equatable {
        let fight: FightID
        let after: Int
        let at: Duration
    }

    /// A hold as the client names it: its fight and its number.
    struct HoldKey: Hashable {
        let fight: FightID
        let hold: Int
    }

    /// A fighter's hold of the punch button.
    enum Hold {
        /// Being read: its detector, the connection its batches come on, and its fight as the
        /// first batch found it. Any event of the fight pushed here ends the hold (`fightMoved`),
        /// so while it is read the fight is still that one, and its later batches are checked
        /// against it without asking the store: a round trip fewer a batch on PostgreSQL. (The
        /// punch found is judged by the engine on the fight as saved, whatever this one says.)
        case reading(HoldKey, connection: Int?, MotionHold, fight: Fight)
        /// Over (a punch found, its last batch come, or refused): what comes of it later is
        /// dropped.
        case over(HoldKey, connection: Int?)

        var key: HoldKey {
            switch self {
            case .reading(let key, _, _, _), .over(let key, _): key
            }
        }

        var connection: Int? {
            switch self {
            case .reading(_, let connection, _, _), .over(_, let connection): connection
            }
        }
    }

    /// The fighters connected here. A fighter not in here has no connection, wind-up or hold.
    private(set) var fighters: [FighterID: Here] = [:]
    /// The number of the last connection opened.
    private var lastConnection = 0
    /// When each fighter's presence last changed while this server ran: their first connection
    /// opened, or their last one closed (here, or on a database shared, on any server, as the
    /// store or another server's announcement says). Someone not in here has not been seen since
    /// it started. (See "Presence" below.)
    private(set) var presenceSince: [FighterID: Timestamp] = [:]
    /// The comings and goings of fighters here not yet noted in the store: by fighter, when their
    /// first connection opened or their last one closed.
    private(set) var presenceToNote: [FighterID: Timestamp] = [:]
    /// The fighters noted in the store as connected here.
    private(set) var notedHere: Set<FighterID> = []
    /// The batch of comings and goings being noted in the store, if one is (taken, the store's
    /// answer awaited): how many times this server's lease had lapsed when it was taken. One batch
    /// at a time, so that the store notes each fighter's comings and goings in order.
    private(set) var notingBatch: Int?
    /// How many times this server's lease lapsed (`leaseLapsed`).
    private var leaseLapses = 0
    /// The fights this server pushes the events of (those with a fighter connected here), and the
    /// last sequence of each pushed here. (See "Following fights" below.)
    var followed: [FightID: Followed] = [:]

    /// A fight followed here: its corners, and the last sequence pushed.
    struct Followed: Equatable {
        let corners: Both<FighterID>
        var sequence: Int
    }
    /// The fights whose beginning was pushed and whose fighters are not yet told whether the
    /// other is there (`takeFightsBegun`).
    var fightsBegun: [Begun] = []

    /// A fight that began: the hub tells each fighter whether the other is there.
    struct Begun: Equatable {
        let fight: FightID
        let corners: Both<FighterID>
    }
    /// The turns this server's start began afresh (it was alone), not yet owed again to the
    /// fighter who has each: by fighter, each fight with the sequence the start left it at
    /// (`startedAlone`, `takeOwedTurns`).
    var owedTurns: [FighterID: [FightID: Int]] = [:]
    /// What the other servers committed, heard and not yet acted on (`hear`, `takeHeard`).
    var heard: [StoreChange] = []
    /// When this server last renewed its lease (or took it, starting), by its clock.
    var leaseRenewedAt: Timestamp?

    // MARK: - Connections

    /// `fighter` opened a connection that began with session `session` at `now`: its number, and
    /// whether it is their first here (they arrived: their presence changed, to be noted).
    mutating func connect(
        _ fighter: FighterID, session: String, outbox: Outbox, at now: Timestamp
    ) -> (connection: Int, arriving: Bool) {
        lastConnection += 1
        let connection = Connection(outbox: outbox, session: session)
        guard fighters[fighter] != nil else {
            fighters[fighter] = Here(connections: [lastConnection: connection])
            presenceChanged(fighter, at: now)
            return (lastConnection, true)
        }
        fighters[fighter]?.connections[lastConnection] = connection
        return (lastConnection, false)
    }

    /// What closing a connection came to.
    enum Closing: Equatable {
        /// It was closed already (a logout on another connection, then itself): nothing to do.
        case unknown
        /// The fighter has other connections here: only a hold on this one ended.
        case oneOfSeveral
        /// It was the fighter's last here: they left (their presence changed, to be noted), and
        /// their wind-up and hold with them.
        case last
    }

    /// `fighter`'s connection `id` closed at `now`.
    mutating func disconnect(_ fighter: FighterID, connection id: Int, at now: Timestamp) -> Closing {
        guard var here = fighters[fighter], here.connections.removeValue(forKey: id) != nil else { return .unknown }
        guard !here.connections.isEmpty else {
            fighters[fighter] = nil
            presenceChanged(fighter, at: now)
            // Nobody here follows the fights of theirs that no other fighter here is in.
            followed = followed.filter { isConnected($0.value.corners) }
            return .last
        }
        if here.hold?.connection == id { here.hold = nil }
        fighters[fighter] = here
        return .oneOfSeveral
    }

    /// Whether `fighter` has a connection here.
    func isConnected(_ fighter: FighterID) -> Bool { fighters[fighter] != nil }

    /// Whether either fighter of a fight has a connection here.
    func isConnected(_ corners: Both<FighterID>) -> Bool {
        isConnected(corners.challenger) || isConnected(corners.opponent)
    }

    /// `fighter`'s open connections, by number.
    func connections(of fighter: FighterID) -> [Int: Connection] { fighters[fighter]?.connections ?? [:] }

    /// Whether `connection` of `fighter` is open (`nil`, a request from no connection: whether
    /// the fighter is here at all).
    private func isOpen(_ connection: Int?, of fighter: FighterID) -> Bool {
        guard let here = fighters[fighter] else { return false }
        return connection.map { here.connections[$0] != nil } ?? true
    }

    // MARK: - Power meter

    /// `fighter` wound up: their fight was read and may take their punch. Kept only if they are
    /// still connected (the read was awaited); the answer says whether it was.
    mutating func woundUp(_ fighter: FighterID, _ windUp: WindUp) -> Bool {
        guard fighters[fighter] != nil else { return false }
        fighters[fighter]?.windUp = windUp
        return true
    }

    /// The wind-up a punch of `fighter`'s in `fight` thrown at `after` stops, taken (one punch a
    /// wind-up), or `nil` when there is none for it (left as it was).
    mutating func stopWindUp(of fighter: FighterID, in fight: FightID, after: Int) -> WindUp? {
        guard let windUp = fighters[fighter]?.windUp, windUp.fight == fight, windUp.after == after else { return nil }
        fighters[fighter]?.windUp = nil
        return windUp
    }

    // MARK: - Holds

    /// `fighter`'s hold, if any.
    func hold(of fighter: FighterID) -> Hold? { fighters[fighter]?.hold }

    /// `fighter`'s hold `key` is read from its first batch on (on `connection`): kept only if
    /// that connection is still open (the fight and the detector were awaited); the answer says
    /// whether it was.
    mutating func startReading(
        _ fighter: FighterID, _ key: HoldKey, connection: Int?, _ hold: MotionHold, fight: Fight
    ) -> Bool {
        guard isOpen(connection, of: fighter) else { return false }
        fighters[fighter]?.hold = .reading(key, connection: connection, hold, fight: fight)
        return true
    }

    /// `fighter`'s hold `key`, on `connection`, is over: a punch found, its last batch come, or a
    /// batch refused. Its later batches are dropped. Nothing if that connection closed meanwhile.
    mutating func endHold(_ fighter: FighterID, _ key: HoldKey, connection: Int?) {
        guard isOpen(connection, of: fighter) else { return }
        fighters[fighter]?.hold = .over(key, connection: connection)
    }

    /// A batch of `fighter`'s hold `key` on `connection` was refused before it reached the hub:
    /// the hold is over, unless the one being read is on another connection (left alone).
    mutating func endHoldRefusedEarly(_ fighter: FighterID, _ key: HoldKey, connection: Int) {
        if let current = fighters[fighter]?.hold, current.connection != connection { return }
        endHold(fighter, key, connection: connection)
    }

    /// An event of `fight` (between `corners`) was pushed: the fight moved on, so a hold being
    /// read in it is over, its detector let go.
    mutating func fightMoved(_ fight: FightID, corners: Both<FighterID>) {
        for fighter in [corners.challenger, corners.opponent] {
            if case .reading(let key, let connection, _, _)? = fighters[fighter]?.hold, key.fight == fight {
                fighters[fighter]?.hold = .over(key, connection: connection)
            }
        }
    }
}

// MARK: - Presence

/// Whether each fighter is there, as the hub keeps it: since when it last changed, the comings
/// and goings here the store has not noted yet, and who the store notes as connected here. Kept
/// beside the connections it follows (`connect` and `disconnect` record a change), so that the
/// four cannot disagree.
extension HubState {
    /// `fighter` came or went at `now`: since then, and to be noted with the next batch.
    private mutating func presenceChanged(_ fighter: FighterID, at now: Timestamp) {
        presenceSince[fighter] = now
        presenceToNote[fighter] = now
    }

    /// The comings and goings to note in the store, taken as the batch being noted: one a
    /// fighter, in order of fighter, as they stand now (a fighter who came and went again since
    /// the last batch, and is as noted, is left out). `nil` while another batch is being noted:
    /// what came meanwhile waits for the next.
    mutating func takePresenceToNote() -> [PresenceChange]? {
        guard notingBatch == nil else { return nil }
        let changes = presenceToNote.sorted { $0.key < $1.key }.compactMap { fighter, at -> PresenceChange? in
            let connected = isConnected(fighter)
            return connected == notedHere.contains(fighter) ? nil : PresenceChange(fighter, connected: connected, at: at)
        }
        presenceToNote = [:]
        if !changes.isEmpty { notingBatch = leaseLapses }
        return changes
    }

    /// The store noted `changes`, the batch taken; `elsewhere` are those of their fighters
    /// connected to another server as well, since when (their presence did not change for
    /// anyone). Returns the fighters whose change to tell the others.
    ///
    /// What changed while the store was asked stands: a fighter who came or went since keeps
    /// that moment, and after a lapse of the lease meanwhile every fighter here is noted again.
    mutating func presenceNoted(_ changes: [PresenceChange], elsewhere: [FighterID: Timestamp]) -> [FighterID] {
        let leaseHeld = notingBatch == leaseLapses
        notingBatch = nil
        for change in changes {
            if leaseHeld {
                if change.connected { notedHere.insert(change.fighter) } else { notedHere.remove(change.fighter) }
            }
            if presenceToNote[change.fighter] == nil {
                presenceSince[change.fighter] = elsewhere[change.fighter] ?? change.at
            }
        }
        return changes.map(\.fighter).filter { elsewhere[$0] == nil }
    }

    /// The store could not note `changes`, the batch taken: they go with the next batch, unless a
    /// newer change of the same fighter waits already.
    mutating func presenceNotNoted(_ changes: [PresenceChange]) {
        notingBatch = nil
        for change in changes where presenceToNote[change.fighter] == nil {
            presenceToNote[change.fighter] = change.at
        }
    }

    /// This server's lease lapsed at `now` (the database out of reach): another server may have
    /// forgotten every row of this one's, so every fighter here is noted again with the next
    /// batch, as if each had just come. Whether there is any to note.
    mutating func leaseLapsed(at now: Timestamp) -> Bool {
        leaseLapses += 1
        notedHere = []
        for fighter in fighters.keys where presenceToNote[fighter] == nil { presenceToNote[fighter] = now }
        return !presenceToNote.isEmpty
    }

    /// Another server sharing the database says `fighter` came or went at `since`: taken, and
    /// `true` (to tell), unless the fighter is connected here, and so here whatever it saw.
    mutating func heardPresence(of fighter: FighterID, since: Timestamp) -> Bool {
        guard !isConnected(fighter) else { return false }
        presenceSince[fighter] = since
        return true
    }

    /// `fighters` went at `now` with a server whose lease lapsed: those not connected here are
    /// gone since then (returned, to tell).
    mutating func goneWithServer(_ fighters: [FighterID], at now: Timestamp) -> [FighterID] {
        let gone = fighters.filter { !isConnected($0) }
        for fighter in gone { presenceSince[fighter] = now }
        return gone
    }
}
