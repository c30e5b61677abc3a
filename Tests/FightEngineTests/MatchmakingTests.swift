import FightEngine
import Testing

/// The obvious answer, for checking the real one: everyone sorted by distance, then identifier.
func bruteForceOrder(
    from viewer: Fighter, among fighters: [Fighter], excluding: Set<FighterID>, maxKm: Double
) -> [FighterID] {
    guard let origin = viewer.location else { return [] }
    return
        fighters
        .filter { $0.id != viewer.id && !excluding.contains($0.id) && $0.location != nil }
        .map { ($0.id, origin.distanceKm(to: $0.location!)) }
        .filter { $0.1 <= maxKm }
        .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        .map(\.0)
}

/// Fighters scattered around a few centres (one on the antimeridian, one near a pole), so
/// distances cross ±180° and cluster; every seventh stands on the previous one's spot (a tie) and
/// every tenth has no location.
func randomFighters(count: Int, seed: UInt64) throws -> [Fighter] {
    var random = SeededRandom(seed: seed)
    let centres = [(48.85, 2.35), (0.0, 179.9), (-89.5, 0.0), (40.71, -74.0)]
    var spot = Coordinate(latitude: 0, longitude: 0)
    return try (1...count).map { n in
        if n % 7 != 0 {
            let (lat, lon) = centres[Int.random(in: 0..<centres.count, using: &random)]
            var longitude = lon + Double.random(in: -0.6...0.6, using: &random)
            if longitude > 180 { longitude -= 360 }
            spot = Coordinate(
                latitude: min(90, lat + Double.random(in: -0.4...0.4, using: &random)), longitude: longitude)
        }
        return Fighter(
            id: FighterID(Int64(n)), username: try Username(validating: "fighter\(n)"), displayName: "F\(n)",
            location: n % 10 == 0 ? nil : spot,
            record: Record(wins: Int.random(in: 0...5, using: &random), losses: Int.random(in: 0...5, using: &random)),
            joinedAt: Timestamp(secondsSince1970: 0))
    }
}

@Suite struct MatchmakingTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func versusScreenFollowsTheBruteForceOrderAndNeverRepeats(seed: UInt64) throws {
        let fighters = try randomFighters(count: 400, seed: seed)
        let state = FightState(fighters: Dictionary(uniqueKeysWithValues: fighters.map { ($0.id, $0) }))
        for viewer in fighters.prefix(12) where viewer.location != nil {
            var screen = VersusScreen(viewer: viewer.id)
            var shown: [FighterID] = []
            while let matchup = try screen.next(in: state, maxDistanceKm: 50) {
                shown.append(matchup.opponent.id)
                #expect(abs(matchup.distanceKm - viewer.location!.distanceKm(to: matchup.opponent.location!)) < 1e-9)
            }
            #expect(shown == bruteForceOrder(from: viewer, among: fighters, excluding: [], maxKm: 50))
            #expect(Set(shown).count == shown.count)
        }
    }

    @Test func excludesCurrentOpponentsAndFarFighters() throws {
        var ring = Ring()
        let here = Coordinate(latitude: 48.85, longitude: 2.35)
        let me = try ring.register("myself", at: here)
        let near = try ring.register("near", at: Coordinate(latitude: 48.86, longitude: 2.35))
        let next = try ring.register("next", at: Coordinate(latitude: 48.95, longitude: 2.35))
        _ = try ring.register("far", at: Coordinate(latitude: 51.5, longitude: -0.12))
        _ = try ring.register("nowhere")
        try ring.run(.challenge(near, opponent: me))
        var screen = VersusScreen(viewer: me)
        #expect(try screen.next(in: ring.state, maxDistanceKm: 50)?.opponent.id == next)
        #expect(try screen.next(in: ring.state, maxDistanceKm: 50) == nil)
        // With a wider radius the far fighter appears; the one shown before does not come back.
        #expect(try screen.next(in: ring.state, maxDistanceKm: 500)?.opponent.name == "far")
    }

    @Test func viewerWithoutLocationIsRefused() throws {
        var ring = Ring()
        let me = try ring.register("myself")
        var screen = VersusScreen(viewer: me)
        #expect(throws: Refusal.noLocation(me)) { try screen.next(in: ring.state, maxDistanceKm: 50) }
        var stranger = VersusScreen(viewer: FighterID(9))
        #expect(throws: Refusal.unknownFighter(FighterID(9))) { try stranger.next(in: ring.state, maxDistanceKm: 50) }
    }
}

extension Fighter {
    var name: String { username.rawValue }
}
