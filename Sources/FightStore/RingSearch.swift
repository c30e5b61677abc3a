import FightEngine

// MARK: - The versus screen's search

/// The search for the nearest fighter a viewer has not been shown, as both databases run it: it
/// widens in rings. The index of locations gives the fighters in boxes covering a circle of
/// radius r (`boxes`); if the nearest of them is within r, nobody outside the boxes can be
/// nearer, so it is the answer. Otherwise r doubles, up to the limit. Dense places answer from a
/// small box. Values only: each database asks its index for the boxes.
struct RingSearch: Sendable {
    let me: Fighter
    let origin: Coordinate
    /// Those `me` is fighting, never proposed.
    let fighting: Set<FighterID>
    let limit: Double
    private(set) var radius: Double

    /// The search for `me` within `limit` km; `nil` when `me` has no location.
    init?(me: Fighter, fighting: Set<FighterID>, limit: Double) {
        guard let origin = me.location else { return nil }
        self.me = me
        self.origin = origin
        self.fighting = fighting
        self.limit = limit
        radius = min(limit, 1)
    }

    /// The boxes whose fighters (not `me`, not shown to `me`) to find next.
    var boxes: [GeoBox] { GeoBox.covering(radiusKm: radius, around: origin) }

    /// Judges the fighters found in `boxes`: the answer, or `nil` once the ring is wider, for
    /// `boxes` to be asked again.
    mutating func judge(_ candidates: [Fighter]) -> Result<Matchup?, Refusal>? {
        let found = Result { () throws(Refusal) in
            try Matchmaking.nearest(to: me, among: candidates, excluding: fighting, maxDistanceKm: radius)
        }
        guard case .success(nil) = found, radius < limit else { return found }
        radius = min(limit, radius * 2)
        return nil
    }
}
