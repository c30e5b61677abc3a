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
let benchmarks: @Sendable () -> Void = {
    for (count, label) in [(10_000, "10k"), (100_000, "100k"), (1_000_000, "1M")] {
        let fixture = Fixture(fighters: count)
        Benchmark(
            "Matchmaking-nearest-unseen-\(label)",
            configuration: configuration(maxIterations: 10_000, allocations: .init(relative: [.p90: 20])),
            closure: { benchmark in
                guard let store = fixture.store else { fatalError("setup built no store") }
                var random = SplitMix(seed: 42)
                for _ in benchmark.scaledIterations {
                    let viewer = fixture.randomViewer(using: &random)
                    blackHole(orStop { try store.peekNextOpponent(for: viewer).get() })
                }
            },
            setup: {
                orStop {
                    try fixture.placeFighters()
                    try fixture.buildStore()
                }
            },
            teardown: { fixture.remove() }
        )
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

    init(fighters count: Int) { self.count = count }

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
    func buildStore() throws {
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
            for outcome in try store.execute(commands, at: fighters[0].joinedAt) { _ = try outcome.get() }
        }
        self.store = store
        try check(store)
    }

    /// Stops the run unless the store names the same opponent as the scan for a hundred viewers
    /// (a trap, as in `orStop`).
    private func check(_ store: FightStore) throws {
        func name(_ fighter: FighterID?) -> String { fighter.map { "fighter \($0.rawValue)" } ?? "nobody" }
        var random = SplitMix(seed: 7)
        for _ in 0..<100 {
            let viewer = randomViewer(using: &random)
            let fromStore = try store.peekNextOpponent(for: viewer).get()?.opponent.id
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
