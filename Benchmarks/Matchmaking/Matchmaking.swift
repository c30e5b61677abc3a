import Benchmark
import FightEngine
import FightStore
import Foundation

// MARK: - Matchmaking benchmark

/// The versus screen's query (nearest fighter not yet shown, within 50 km) on stores of 10k, 100k
/// and 1M fighters spread evenly over a France-sized area (about 900 km × 900 km: from one fighter
/// per 80 km² to about one per km²). It uses `peekNextOpponent`, the same search as
/// `nextOpponent` without the write that remembers the fighter shown, so the numbers are the
/// index's and not the disk's `fsync`.
let benchmarks: @Sendable () -> Void = {
    for count in [10_000, 100_000, 1_000_000] {
        let fixture = Fixture(fighters: count)
        Benchmark(
            "nearest unseen, \(count) fighters",
            configuration: .init(
                metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 10_000),
            closure: { benchmark in
                guard let store = fixture.store else { return }
                var random = SplitMix(seed: 42)
                for _ in benchmark.scaledIterations {
                    let viewer = FighterID(Int64.random(in: 1...Int64(count), using: &random))
                    blackHole(try? store.peekNextOpponent(for: viewer))
                }
            },
            setup: { try fixture.build() },
            teardown: { fixture.remove() }
        )
    }
}

// MARK: - Fixture

/// A store in a temporary directory, filled in setup and deleted in teardown.
final class Fixture: @unchecked Sendable {  // touched only by the benchmark runner, one step at a time
    let fighters: Int
    private(set) var store: FightStore?
    private var directory: URL?

    init(fighters: Int) { self.fighters = fighters }

    func build() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "MatchmakingBenchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        let store = try FightStore(path: directory.appendingPathComponent("fights.sqlite").path)
        var random = SplitMix(seed: UInt64(fighters))
        let now = Timestamp(secondsSince1970: 1_800_000_000)
        // Registered in batches: one transaction (one fsync) per 10,000 fighters.
        for first in stride(from: 1, through: fighters, by: 10_000) {
            let commands = (first..<min(first + 10_000, fighters + 1)).map { n in
                Command.register(
                    Registration(
                        username: "fighter\(n)", displayName: "Fighter \(n)",
                        location: Coordinate(
                            latitude: Double.random(in: 43...51, using: &random),
                            longitude: Double.random(in: -4...8, using: &random))))
            }
            for outcome in try store.execute(commands, at: now) { _ = try outcome.get() }
        }
        self.store = store
    }

    func remove() {
        store = nil
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}

/// SplitMix64, so every run queries the same fighters.
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
