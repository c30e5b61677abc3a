import FightEngine
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

/// The databases the store's tests run against: SQLite always; PostgreSQL where a test server's
/// URL is given in `HITTHAT_POSTGRES_URL` (`.ci/run` starts one with tools/postgres-test-server.sh
/// and sets `HITTHAT_REQUIRE_POSTGRES=1`, so that there a missing server fails rather than skips).
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// The test server's URL, if one was given.
    static let postgresURL = ProcessInfo.processInfo.environment["HITTHAT_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Whether the PostgreSQL cases must run (and fail if they cannot).
    static let postgresRequired = ProcessInfo.processInfo.environment["HITTHAT_REQUIRE_POSTGRES"] == "1"

    /// The backends to test: PostgreSQL when its server is given, or required.
    static let available: [Backend] = postgresURL != nil || postgresRequired ? [.sqlite, .postgres] : [.sqlite]

    var testDescription: String { rawValue }
}

/// A fresh, empty database for one test: a file in a temporary folder, or a schema of its own on
/// the PostgreSQL test server (schemas are left behind: the server is thrown away after the run).
final class TestDatabase: Sendable {
    let backend: Backend
    let location: StoreLocation
    private let directory: TemporaryDirectory?

    init(_ backend: Backend) throws {
        self.backend = backend
        switch backend {
        case .sqlite:
            let directory = try TemporaryDirectory()
            self.directory = directory
            location = .sqlite(path: directory.path("fights.sqlite"))
        case .postgres:
            directory = nil
            guard let url = Backend.postgresURL else {
                throw TestSetupError("HITTHAT_REQUIRE_POSTGRES=1 but HITTHAT_POSTGRES_URL is not set")
            }
            guard case .postgres(var server) = try StoreLocation(parsing: url) else {
                throw TestSetupError("HITTHAT_POSTGRES_URL is not a postgres:// URL: \(url)")
            }
            server.schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            location = .postgres(server)
        }
    }

    /// Opens the store (the first time creating it).
    func open(rules: Rules = Rules()) throws -> FightStore {
        try FightStore(location: location, rules: rules, durability: .processCrash)
    }

    /// Runs `sql` on `store`'s database outside any command: a change behind the engine's back.
    func tamper(_ store: FightStore, _ sql: String) throws {
        try store.database.write { db in try db.executeScript(sql) }
    }
}

/// The test's setup cannot be made.
struct TestSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
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
