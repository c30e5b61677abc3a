import FightEngine
import FightStoreTestSupport
import Foundation
import Testing

@testable import FightStore

// MARK: - Temporary files

/// A fresh directory under the system's temporary directory, removed when the test is done.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("FightStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

// MARK: - The databases tested

/// SQLite always, PostgreSQL where its test server is given (see `StoreBackend`).
typealias Backend = StoreBackend

/// A fresh, empty database for one test: a file in a temporary folder, or a schema of its own on
/// the PostgreSQL test server.
final class TestDatabase: Sendable {
    let backend: Backend
    let location: StoreLocation
    private let directory: TemporaryDirectory?

    init(_ backend: Backend) throws {
        self.backend = backend
        let directory = backend == .sqlite ? try TemporaryDirectory() : nil
        self.directory = directory
        location = try backend.freshLocation(sqlitePath: directory?.path("fights.sqlite") ?? "")
    }

    /// Opens the store (the first time creating it).
    func open(rules: Rules = Rules()) async throws -> FightStore {
        try await FightStore(location: location, rules: rules, durability: .processCrash)
    }

    /// Runs `sql` on `store`'s database outside any command: a change behind the engine's back.
    func tamper(_ store: FightStore, _ sql: String) async throws {
        _ = try await store.sql(sql)
    }
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
    /// The rows of the last of `sql`'s statements (each ending a line with a semicolon), run in
    /// one write transaction behind the engine's back.
    func sql(_ sql: String) async throws -> [SQLRow] {
        try await database.runScript(sql, beforeCommit: {})
    }

    /// The first column of the first row of `sql`, read as `T`.
    func value<T: SQLReadable>(_ sql: String, as type: T.Type = T.self) async throws -> T? {
        guard let row = try await self.sql(sql).first, let name = row.names.first else { return nil }
        return try row.get(name, as: T.self)
    }

    /// Applies a command the test expects to be accepted.
    @discardableResult
    func run(_ command: Command, at now: Timestamp = start) async throws -> [Event] {
        try await execute(command, at: now).get()
    }

    /// Fight `id`'s last sequence as saved: what a punch thrown now is thrown at (unless a
    /// deadline passed since, unsettled).
    func seen(_ id: FightID) async throws -> Int { try await fight(id)?.lastSequence ?? 0 }

    /// Registers a fighter the test expects to be accepted and returns their identifier.
    func register(_ username: String, at location: Coordinate? = nil, now: Timestamp = start) async throws -> FighterID {
        try await run(.register(Registration(username: username, displayName: username, location: location)), at: now)
        return try #require(try await fighter(named: username)).id
    }
}
