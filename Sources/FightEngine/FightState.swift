// MARK: - FightState

/// Everything the engine decides on: fighters, fights and quick-match rooms.
///
/// A store may hand the engine only the part a command touches (the command's fighters and fights,
/// the open fight of a pair, the rooms) together with the next identifiers; the rules only ever
/// look at those.
public struct FightState: Hashable, Sendable {
    /// Fighters by identifier.
    public var fighters: [FighterID: Fighter]
    /// Fights by identifier.
    public var fights: [FightID: Fight]
    /// Quick-match rooms, oldest first.
    public var rooms: [Room]
    /// The identifier the next registered fighter gets.
    public var nextFighterID: FighterID
    /// The identifier the next fight gets.
    public var nextFightID: FightID

    /// Creates a state; the defaults are an empty world.
    public init(
        fighters: [FighterID: Fighter] = [:], fights: [FightID: Fight] = [:], rooms: [Room] = [],
        nextFighterID: FighterID = FighterID(1), nextFightID: FightID = FightID(1)
    ) {
        self.fighters = fighters
        self.fights = fights
        self.rooms = rooms
        self.nextFighterID = nextFighterID
        self.nextFightID = nextFightID
    }

    /// The open fight between `a` and `b`, if there is one.
    public func openFight(between a: FighterID, _ b: FighterID) -> Fight? {
        fights.values.first { $0.isOpen && $0.isBetween(a, b) }
    }

    /// The fighters `fighter` has an open fight with.
    public func opponents(of fighter: FighterID) -> Set<FighterID> {
        var result: Set<FighterID> = []
        for fight in fights.values where fight.isOpen {
            if let corner = fight.corner(of: fighter) { result.insert(fight.fighter(in: corner.other)) }
        }
        return result
    }
}

/// A command's outcome when the engine accepts it: the new state and what happened, in order.
public struct Transition: Hashable, Sendable {
    /// The state after the command.
    public var state: FightState
    /// The events the command caused, in the order they happened.
    public var events: [Event]
}
