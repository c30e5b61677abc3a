// MARK: - Matchup

/// What the versus screen shows: an opponent, how far away they are, and the odds.
public struct Matchup: Hashable, Sendable {
    /// The fighter proposed.
    public var opponent: Fighter
    /// Great-circle distance between the two, in kilometres.
    public var distanceKm: Double
    /// The chances of each side.
    public var odds: Odds

    /// Creates a matchup of `viewer` against `opponent` at `distanceKm`.
    public init(viewer: Fighter, opponent: Fighter, distanceKm: Double) {
        self.opponent = opponent
        self.distanceKm = distanceKm
        self.odds = Odds(viewer, against: opponent)
    }
}

// MARK: - Nearest unseen

/// Choosing the next opponent: the nearest fighter not yet shown, within a distance.
public enum Matchmaking {
    /// The nearest of `candidates` to `viewer` within `maxDistanceKm` whose identifier is not in
    /// `excluded`, skipping the viewer and anyone without a location. Equally near fighters are
    /// taken in identifier order, so the choice never depends on the order of `candidates`.
    ///
    /// Inlinable, so that it is specialised for the caller's sequence: unspecialised, every
    /// candidate was copied into memory allocated for it (one allocation a fighter, measured by
    /// the `Matchmaking` benchmarks).
    @inlinable
    public static func nearest(
        to viewer: Fighter, among candidates: some Sequence<Fighter>, excluding excluded: Set<FighterID>,
        maxDistanceKm: Double
    ) throws(Refusal) -> Matchup? {
        guard let origin = viewer.location else { throw .noLocation(viewer.id) }
        var best: (fighter: Fighter, distance: Double)?
        for candidate in candidates where candidate.id != viewer.id && !excluded.contains(candidate.id) {
            guard let location = candidate.location else { continue }
            let distance = origin.distanceKm(to: location)
            guard distance <= maxDistanceKm else { continue }
            if let current = best, (current.distance, current.fighter.id) <= (distance, candidate.id) { continue }
            best = (candidate, distance)
        }
        return best.map { Matchup(viewer: viewer, opponent: $0.fighter, distanceKm: $0.distance) }
    }
}

/// The versus screen for one fighter, in memory: remembers who was shown so nobody comes twice.
public struct VersusScreen: Hashable, Sendable {
    /// The fighter looking for opponents.
    public let viewer: FighterID
    /// Everyone shown so far.
    public private(set) var shown: Set<FighterID> = []

    /// A screen for `viewer` that has shown nobody yet.
    public init(viewer: FighterID) {
        self.viewer = viewer
    }

    /// Shows the next opponent (and remembers them): the nearest fighter in `state` within
    /// `maxDistanceKm` not shown before, not the viewer, and not someone the viewer is already
    /// fighting. "Back down" is calling this again. `nil` when nobody is left.
    public mutating func next(in state: FightState, maxDistanceKm: Double) throws(Refusal) -> Matchup? {
        guard let me = state.fighters[viewer] else { throw .unknownFighter(viewer) }
        let excluded = shown.union(state.opponents(of: viewer))
        let matchup = try Matchmaking.nearest(
            to: me, among: state.fighters.values, excluding: excluded, maxDistanceKm: maxDistanceKm)
        if let matchup { shown.insert(matchup.opponent.id) }
        return matchup
    }
}
