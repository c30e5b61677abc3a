// MARK: - Command

/// Something a fighter (or the clock) asks of the engine.
///
/// A command that must not act on a fight that moved on since its sender looked (a punch, a turn
/// resumed) carries `after`, the fight's last sequence as its sender saw it. The referee checks it
/// on the fight as saved, inside the store's write transaction, so no interleaving of servers,
/// deadlines or retries lands a punch twice. The other commands on a fight need none: a forfeit
/// and an answer to a challenge end what they need (sent twice, the second is refused), and a
/// guard means the same whenever it is raised.
public enum Command: Hashable, Sendable, Codable {
    /// Create a fighter.
    case register(Registration)
    /// Replace a fighter's display name, bio and profile stats.
    case updateProfile(FighterID, displayName: String, bio: String, profile: ProfileStats)
    /// Set a fighter's location.
    case move(FighterID, to: Coordinate)
    /// Challenge `opponent` to a fight.
    case challenge(FighterID, opponent: FighterID)
    /// The challenged fighter accepts.
    case accept(FightID, by: FighterID)
    /// The challenged fighter declines.
    case decline(FightID, by: FighterID)
    /// Throw a punch measured by a sensor, at sequence `after` (the fight's last sequence as the
    /// thrower saw it: a punch thrown at any other is refused as `stale`, so that a punch sent
    /// twice, or to two servers, lands once). `damage` is the detector's, 4 per g of the stop; the
    /// kind's ceiling (`PowerMeter`) and the defender's guard bound what lands. `clipped`: a
    /// sensor axis was at its full scale at the stop, so the swing was harder than measured.
    case punch(FightID, by: FighterID, after: Int, kind: PunchType, damage: Int, clipped: Bool = false)
    /// Throw a punch from the power meter at sequence `after` (as for `punch`), stopped
    /// `stoppedAfterMilliseconds` after the wind-up by the server's clock; `Rules.meter` turns that
    /// into damage, and the defender's guard bounds it.
    case timedPunch(FightID, by: FighterID, after: Int, kind: PunchType, stoppedAfterMilliseconds: Int64)
    /// Take up `guard` in a fight under way, against the other's punches from now on.
    case raiseGuard(FightID, by: FighterID, Guard)
    /// Give up a fight under way.
    case forfeit(FightID, by: FighterID)
    /// Join the oldest waiting fighter's room, or open one.
    case quickMatch(FighterID)
    /// Close one's own quick-match room.
    case leaveQuickMatch(FighterID)
    /// Expire every challenge and pass every turn whose deadline has come. Other commands settle
    /// the fights they touch themselves; this one is for a scheduler, so deadlines reach the log
    /// even when nobody acts.
    case settleDeadlines
    /// The server is back after being down: every turn under way starts afresh from now, a full
    /// turn for whoever has it, so that nobody loses a turn, or a fight, to the server's absence.
    /// Sent once as the server starts, before any deadline is settled.
    case resumeTurns
    /// `fighter`'s turn in fight `id`, if it is still theirs once the fight is brought up to now
    /// and the fight is still at sequence `after` (the turn `resumeTurns` began, nothing since),
    /// starts afresh from now: a full turn again, none counted as missed. For a fighter back after
    /// the server's outage (their client reconnecting), whose turn `resumeTurns` began while they
    /// could not see it. Which turns are owed is the server's business (see `FightHub`); the rule
    /// here is only that nobody is given a turn that is not theirs, nor one given again after the
    /// fight moved on (a punch, a lapse, on any server). Otherwise nothing: not a refusal.
    case resumeTurn(FightID, of: FighterID, after: Int)

    /// The fight this command is about, if any.
    public var fight: FightID? {
        switch self {
        case .accept(let id, _), .decline(let id, _), .punch(let id, _, _, _, _, _), .timedPunch(let id, _, _, _, _),
            .raiseGuard(let id, _, _), .forfeit(let id, _), .resumeTurn(let id, _, _):
            id
        default: nil
        }
    }

    /// The fighters this command names.
    public var fighters: [FighterID] {
        switch self {
        case .register, .settleDeadlines, .resumeTurns: []
        case .updateProfile(let id, _, _, _), .move(let id, _), .quickMatch(let id), .leaveQuickMatch(let id): [id]
        case .challenge(let id, let opponent): [id, opponent]
        case .accept(_, let id), .decline(_, let id), .punch(_, let id, _, _, _, _), .timedPunch(_, let id, _, _, _),
            .raiseGuard(_, let id, _), .forfeit(_, let id), .resumeTurn(_, let id, _):
            [id]
        }
    }
}

/// What a new fighter gives when registering. Validated by the engine.
public struct Registration: Hashable, Sendable, Codable {
    /// The wanted username.
    public var username: String
    /// The name to show.
    public var displayName: String
    /// A short introduction.
    public var bio: String
    /// Where the fighter is, if they share it.
    public var location: Coordinate?
    /// Height, weight and reach.
    public var profile: ProfileStats

    /// Creates a registration.
    public init(
        username: String, displayName: String, bio: String = "", location: Coordinate? = nil,
        profile: ProfileStats = ProfileStats()
    ) {
        self.username = username
        self.displayName = displayName
        self.bio = bio
        self.location = location
        self.profile = profile
    }
}
