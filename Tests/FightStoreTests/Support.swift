import FightEngine
import FightStore
import Foundation
import Testing

// MARK: - Temporary files

/// A fresh directory under the system's temporary directory, removed when the test is done.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("FightStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

// MARK: - Seeded randomness

/// SplitMix64: the same numbers on every run, so a failing random case can be replayed.
struct SeededRandom: RandomNumberGenerator {
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

// MARK: - Running commands

let start = Timestamp(secondsSince1970: 1_800_000_000)

extension FightStore {
    /// Applies a command the test expects to be accepted.
    @discardableResult
    func run(_ command: Command, at now: Timestamp = start) throws -> [Event] {
        try execute(command, at: now).get()
    }

    /// Registers a fighter the test expects to be accepted and returns their identifier.
    func register(_ username: String, at location: Coordinate? = nil, now: Timestamp = start) throws -> FighterID {
        try run(.register(Registration(username: username, displayName: username, location: location)), at: now)
        return try #require(try fighter(named: username)).id
    }
}
