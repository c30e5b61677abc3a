import Benchmark
import FightEngine
import FightStore
import Foundation

// MARK: - Matchmaking benchmarks

/// The versus screen's query (nearest fighter not yet shown, within the rules' 50 km) on stores of
/// 10k, 100k and 1M fighters spread evenly over a France-sized area (about 900 km × 900 km: from
/// one fighter per 80 km² to about one per km²). It uses `peekNextOpponent`, the same search as
/// `nextOpponent` without the write that remembers the fighter shown, so the numbers are the
/// index's and not the disk's `fsync`.
///
/// Beside each, the reference: what an app holding every fighter in memory would do without an
/// index, `Matchmaking.nearest` over all of them (one Haversine distance a fighter). Before either
/// is measured, setup checks that the store names the same opponent as the scan for a hundred
/// viewers. Names have no spaces: package-benchmark 1.38.1 writes a threshold file with `_` for a
/// space but looks it up with the space.
///
/// Built with the PostgreSQL trait and given a server in `HITTHAT_POSTGRES_URL`, the 1M store is
/// measured on PostgreSQL too (`Matchmaking-nearest-unseen-postgres-1M`, the same query through
/// the GiST index), in the same run as SQLite's and the scan, so the three compare:
///
///     HITTHAT_POSTGRES_URL=$(tools/postgres-test-server.sh start) \
///         swift package --traits PostgreSQL benchmark --target Matchmaking --filter '.*-1M' --no-progress
/// The versus screen's search, in the store `fixture` builds, for random viewers.
func nearestUnseen(_ name: String, in fixture: Fixture) {
    Benchmark(
        name,
        configuration: configuration(maxIterations: 10_000, allocations: .init(relative: [.p90: 20])),
        closure: { benchmark in
            guard let store = fixture.store else { fatalError("setup built no store") }
            var random = SplitMix(seed: 42)
            for _ in benchmark.scaledIterations {
                let viewer = fixture.randomViewer(using: &random)
                blackHole(await orStop { try await store.peekNextOpponent(for: viewer).get() })
            }
        },
        setup: {
            await orStop {
                try fixture.placeFighters()
                try await fixture.buildStore()
            }
        },
        teardown: { fixture.remove() }
    )
}

let benchmarks: @Sendable () -> Void = {
    #if PostgreSQL
        if let url = ProcessInfo.processInfo.environment["HITTHAT_POSTGRES_URL"], !url.isEmpty {
            nearestUnseen("Matchmaking-nearest-unseen-postgres-1M", in: Fixture(fighters: 1_000_000, postgres: url))
        }
    #endif
    for (count, label) in [(10_000, "10k"), (100_000, "100k"), (1_000_000, "1M")] {
        let fixture = Fixture(fighters: count)
        nearestUnseen("Matchmaking-nearest-unseen-\(label)", in: fixture)
        Benchmark(
            "Matchmaking-linear-scan-reference-\(label)",
            configuration: configuration(maxIterations: 1_000, allocations: .init(absolute: [.p90: 0])),
            closure: { benchmark in
                var random = SplitMix(seed: 42)
                for _ in benchmark.scaledIterations {
                    let viewer = fixture.randomViewer(using: &random)
                    blackHole(orStop { try fixture.scan(for: viewer) })
                }
            },
            setup: { orStop { try fixture.placeFighters() } }
        )
    }
}

/// The value of `body`, or the run stops. package-benchmark prints an error thrown by a benchmark
/// or its setup, skips the benchmark and still passes the thresholds check (tried), and a query
/// that failed must not be timed as a fast one.
func orStop<Value>(_ body: () throws -> Value) -> Value {
    do {
        return try body()
    } catch {
        fatalError("\(error)")
    }
}

func orStop<Value>(_ body: () async throws -> Value) async -> Value {
    do {
        return try await body()
    } catch {
        fatalError("\(error)")
    }
}

/// Times and rates wide, since the machine's two cores are shared; allocations as given: the
/// store's (rows read and decoded) within a fifth, as the viewers drawn are the same; the scan's
/// none exactly (a relative threshold on 0 lets anything through).
func configuration(maxIterations: Int, allocations: BenchmarkThresholds) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: maxIterations,
        thresholds: [
            .wallClock: BenchmarkThresholds(relative: [.p90: 35]),
            .throughput: BenchmarkThresholds(relative: [.p90: 35]),
            .mallocCountTotal: allocations,
        ])
}

// MARK: - Fixture

/// The fighters, in memory (for the scan) and in a store in a temporary directory (deleted in
/// teardown), at the same places. Built in setup: every benchmark runs in a process of its own.
final class Fixture: @unchecked Sendable {  // touched only by the benchmark runner, one step at a time
    let count: Int
    /// Fighter `n` (identifier `n`, registered n-th) is at `fighters[n - 1]`.
    private(set) var fighters: [Fighter] = []
    private(set) var store: FightStore?
    private var directory: URL?
    private let rules = Rules()
    /// The PostgreSQL server to keep the store on instead of an SQLite file, if any.
    private let postgres: String?

    init(fighters count: Int, postgres: String? = nil) {
        self.count = count
        self.postgres = postgres
    }

    func placeFighters() throws {
        var random = SplitMix(seed: UInt64(count))
        let joined = Timestamp(secondsSince1970: 1_800_000_000)
        fighters = try (1...count).map { n in
            Fighter(
                id: FighterID(Int64(n)), username: try Username(validating: "fighter\(n)"),
                displayName: "Fighter \(n)",
                location: Coordinate(
                    latitude: Double.random(in: 43...51, using: &random),
                    longitude: Double.random(in: -4...8, using: &random)),
                joinedAt: joined)
        }
    }

    func randomViewer(using random: inout SplitMix) -> FighterID {
        FighterID(Int64.random(in: 1...Int64(count), using: &random))
    }

    /// The reference: every fighter's distance to the viewer.
    func scan(for viewer: FighterID) throws -> Matchup? {
        try Matchmaking.nearest(
            to: fighters[Int(viewer.rawValue) - 1], among: fighters, excluding: [],
            maxDistanceKm: rules.matchRadiusKm)
    }

    /// Fills a store with the fighters placed, and checks it against the scan.
    func buildStore() async throws {
        if let postgres { return try await buildPostgresStore(at: postgres) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "MatchmakingBenchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        let store = try FightStore(path: directory.appendingPathComponent("fights.sqlite").path, rules: rules)
        // Registered in batches: one transaction (one fsync) per 10,000 fighters.
        for batch in stride(from: 0, to: count, by: 10_000) {
            let commands = fighters[batch..<min(batch + 10_000, count)].map { fighter in
                Command.register(
                    Registration(
                        username: fighter.username.rawValue, displayName: fighter.displayName,
                        location: fighter.location))
            }
            for outcome in try await store.execute(commands, at: fighters[0].joinedAt) { _ = try outcome.get() }
        }
        self.store = store
        try await check(store)
    }

    /// Fills a store on PostgreSQL, in a schema of its own kept between runs (filling it is the
    /// slow part), with the fighters placed: copied in with psql's `\copy`, as an import would,
    /// rather than registered one by one (about a million round trips of several statements
    /// each). Only the two tables the search reads are filled; the check against the scan then
    /// reads them through the store, so a row the store could not read stops the run. Then asks
    /// PostgreSQL for its plan, and stops unless it goes through the GiST index, without
    /// parallel workers (whose start cost the query 50 ms where it takes 0.3 ms).
    func buildPostgresStore(at url: String) async throws {
        guard case .postgres(var location) = try StoreLocation(parsing: url) else {
            fatalError("HITTHAT_POSTGRES_URL is not a postgres:// URL: \(url)")
        }
        let schema = "bench_nearest_\(count)"
        location.schema = schema
        let store = try await FightStore(location: .postgres(location), rules: rules)
        let last = fighters[count - 1]
        if try await store.fighter(last.id)?.location != last.location {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "MatchmakingBenchmark-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let fightersFile = directory.appendingPathComponent("fighters.csv")
            let locationsFile = directory.appendingPathComponent("locations.csv")
            var fighterRows = "", locationRows = ""
            for fighter in fighters {
                guard let place = fighter.location else { continue }
                let (id, lat, lon) = (fighter.id.rawValue, place.latitude, place.longitude)
                fighterRows += "\(id),\(fighter.username),\(fighter.username.key),\(fighter.displayName),\"\",\(lat),\(lon),0,0,0,\(fighter.joinedAt.secondsSince1970)\n"
                locationRows += "\(id),\(lat),\(lat),\(lon),\(lon)\n"
            }
            try fighterRows.write(to: fightersFile, atomically: false, encoding: .utf8)
            try locationRows.write(to: locationsFile, atomically: false, encoding: .utf8)
            try psql(
                url,
                "TRUNCATE \(schema).fighters CASCADE",
                "\\copy \(schema).fighters (id, username, username_key, display_name, bio, latitude, longitude, wins, losses, draws, joined_at) FROM '\(fightersFile.path)' WITH (FORMAT csv)",
                "\\copy \(schema).fighter_locations (id, min_lat, max_lat, min_lon, max_lon) FROM '\(locationsFile.path)' WITH (FORMAT csv)",
                "ANALYZE \(schema).fighters",
                "ANALYZE \(schema).fighter_locations")
        }
        self.store = store
        try await check(store)
        let plan = try await store.nearestUnseenPlan(for: fighters[0].id)
        FileHandle.standardError.write(Data(("PostgreSQL's plan:\n" + plan.joined(separator: "\n") + "\n").utf8))
        guard plan.contains(where: { $0.contains("fighter_locations_by_box") }),
            !plan.contains(where: { $0.contains("Gather") })
        else {
            fatalError(
                "PostgreSQL does not go through the GiST index of locations alone:\n\(plan.joined(separator: "\n"))")
        }
    }

    /// Runs each command with psql on the server of `url` (without the store's `schema=`, which
    /// libpq does not know), stopping at the first that fails.
    private func psql(_ url: String, _ commands: String...) throws {
        var components = URLComponents(string: url)
        let libpqItems = components?.queryItems?.filter { $0.name != "schema" }
        components?.queryItems = libpqItems
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["psql", components?.string ?? url, "--quiet", "-v", "ON_ERROR_STOP=1"] + commands.flatMap { ["-c", $0] }
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { fatalError("psql exited \(process.terminationStatus)") }
    }

    /// Stops the run unless the store names the same opponent as the scan for a hundred viewers
    /// (a trap, as in `orStop`).
    private func check(_ store: FightStore) async throws {
        func name(_ fighter: FighterID?) -> String { fighter.map { "fighter \($0.rawValue)" } ?? "nobody" }
        var random = SplitMix(seed: 7)
        for _ in 0..<100 {
            let viewer = randomViewer(using: &random)
            let fromStore = try await store.peekNextOpponent(for: viewer).get()?.opponent.id
            let fromScan = try scan(for: viewer)?.opponent.id
            guard fromStore == fromScan else {
                fatalError("\(name(viewer)): the store proposes \(name(fromStore)), the scan \(name(fromScan))")
            }
        }
    }

    func remove() {
        store = nil
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}

/// SplitMix64, so every run places and queries the same fighters.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
