import FightEngine
import Testing

@testable import FightStore

@Suite struct MatchmakingStoreTests {
    /// Fighters scattered around a few centres (one on the antimeridian, one near the south pole),
    /// some on the same spot as another (ties), some without a location.
    func populate(_ store: FightStore, count: Int, seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let centres = [(48.85, 2.35), (0.0, 179.95), (-89.7, 0.0), (40.71, -74.0)]
        var spot = Coordinate(latitude: 0, longitude: 0)
        for n in 1...count {
            if n % 7 != 0 {
                let (lat, lon) = centres[Int.random(in: 0..<centres.count, using: &random)]
                var longitude = lon + Double.random(in: -0.6...0.6, using: &random)
                if longitude > 180 { longitude -= 360 }
                spot = Coordinate(
                    latitude: max(-90, lat + Double.random(in: -0.5...0.5, using: &random)), longitude: longitude)
            }
            _ = try await store.register("fighter\(n)", at: n % 10 == 0 ? nil : spot)
        }
    }

    /// The in-memory world the engine's own versus screen works on, read back from the store.
    func world(_ store: FightStore, count: Int) async throws -> FightState {
        var state = FightState()
        for n in 1...Int64(count) {
            let fighter = try #require(try await store.fighter(FighterID(n)))
            state.fighters[fighter.id] = fighter
        }
        return state
    }

    /// The store's indexed search shows the same fighters in the same order as the engine's
    /// scan over everyone (itself checked against a brute-force sort in the engine's tests), and
    /// never shows anyone twice.
    @Test(arguments: Backend.available, [UInt64(11), 12])
    func nearestUnseenMatchesTheScanAndNeverRepeats(backend: Backend, seed: UInt64) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        try await populate(store, count: 300, seed: seed)
        // Viewer 1 is already fighting two others: they must not be shown.
        let opponents = [FighterID(2), FighterID(3)]
        for opponent in opponents { try await store.run(.challenge(FighterID(1), opponent: opponent)) }
        var state = try await world(store, count: 300)
        for n in 1...2 {
            let fight = try #require(try await store.fight(FightID(Int64(n))))
            state.fights[fight.id] = fight
        }
        for viewer in (1...15).map({ FighterID(Int64($0)) }) where state.fighters[viewer]?.location != nil {
            var screen = VersusScreen(viewer: viewer)
            var expected: [Matchup] = []
            while let matchup = try screen.next(in: state, maxDistanceKm: 50) { expected.append(matchup) }
            var shown: [Matchup] = []
            while let matchup = try await store.nextOpponent(for: viewer, at: start).get() { shown.append(matchup) }
            #expect(shown.map(\.opponent.id) == expected.map(\.opponent.id))
            #expect(shown == expected)
            #expect(Set(shown.map(\.opponent.id)).count == shown.count)
            if viewer == FighterID(1) { #expect(shown.allSatisfy { !opponents.contains($0.opponent.id) }) }
        }
    }

    @Test(arguments: Backend.available) func shownFightersStayShownAfterReopening(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        do {
            let store = try await database.open()
            _ = try await store.register("viewer", at: paris)
            _ = try await store.register("close", at: Coordinate(latitude: 48.86, longitude: 2.36))
            _ = try await store.register("closer", at: Coordinate(latitude: 48.857, longitude: 2.353))
            #expect(try await store.nextOpponent(for: FighterID(1), at: start).get()?.opponent.username.rawValue == "closer")
        }
        let store = try await database.open()
        // Peeking shows who comes next without remembering them.
        #expect(try await store.peekNextOpponent(for: FighterID(1)).get()?.opponent.username.rawValue == "close")
        #expect(try await store.peekNextOpponent(for: FighterID(1)).get()?.opponent.username.rawValue == "close")
        // "Back down": the next call moves on.
        let next = try #require(try await store.nextOpponent(for: FighterID(1), at: start).get())
        #expect(next.opponent.username.rawValue == "close")
        #expect(abs(next.distanceKm - paris.distanceKm(to: Coordinate(latitude: 48.86, longitude: 2.36))) < 1e-9)
        #expect(try await store.nextOpponent(for: FighterID(1), at: start).get() == nil)
    }

    @Test(arguments: Backend.available) func refusesViewersWithoutLocationOrIdentity(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let nowhere = try await store.register("nowhere")
        #expect(try await store.nextOpponent(for: nowhere, at: start) == .failure(.noLocation(nowhere)))
        #expect(try await store.nextOpponent(for: FighterID(9), at: start) == .failure(.unknownFighter(FighterID(9))))
    }

    /// The candidate query goes through the index of locations and primary keys, never a full scan.
    @Test(arguments: Backend.available) func theLocationQueryUsesTheIndex(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let viewer = try await store.register("viewer", at: Coordinate(latitude: 0.5, longitude: 0.5))
        let plan = try await store.nearestUnseenPlan(for: viewer, radiusKm: 1, pricingScansOut: true)
        switch backend {
        case .sqlite:
            #expect(plan.contains { $0.contains("VIRTUAL TABLE INDEX") }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN f") || $0.hasPrefix("SCAN s") }, "\(plan)")
        case .postgres:
            #expect(plan.contains { $0.contains("fighter_locations_by_box") }, "\(plan)")
            #expect(!plan.contains { $0.contains("Seq Scan") }, "\(plan)")
            // The few rows here would never be given parallel workers; a million would (see
            // PostgresDatabase.startupParameters), and the store's connections start none.
            let workers = try await store.value("SHOW max_parallel_workers_per_gather", as: String.self)
            #expect(workers == "0")
        }
        #expect(try await store.nearestUnseenPlan(for: FighterID(99)) == [], "nobody to plan for")
    }
}
