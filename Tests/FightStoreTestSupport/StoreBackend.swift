import FightStore
import Foundation

// MARK: - The databases tested

/// The databases the store's and the server's tests run against: SQLite always; PostgreSQL where
/// a test server's URL is given in `HITTHAT_POSTGRES_URL` (`.ci/run` starts one with
/// tools/postgres-test-server.sh and sets `HITTHAT_REQUIRE_POSTGRES=1`, so that there a missing
/// server fails the PostgreSQL cases rather than leaving them out).
public enum StoreBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    /// The test server's URL, if one was given.
    public static let postgresURL = ProcessInfo.processInfo.environment["HITTHAT_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Whether the PostgreSQL cases must run (and fail when they cannot).
    public static let postgresRequired = ProcessInfo.processInfo.environment["HITTHAT_REQUIRE_POSTGRES"] == "1"

    /// The backends to test: PostgreSQL when its server is given, or required.
    public static let available: [StoreBackend] =
        postgresURL != nil || postgresRequired ? [.sqlite, .postgres] : [.sqlite]

    public var description: String { rawValue }

    /// A new, empty database of this kind: the SQLite file at `sqlitePath`, or a schema of its own
    /// on the PostgreSQL test server (schemas are left behind: the server is thrown away after the run).
    public func freshLocation(sqlitePath: @autoclosure () throws -> String) throws -> StoreLocation {
        switch self {
        case .sqlite:
            return .sqlite(path: try sqlitePath())
        case .postgres:
            guard let url = Self.postgresURL else {
                throw StoreBackendError("HITTHAT_REQUIRE_POSTGRES=1 but HITTHAT_POSTGRES_URL is not set")
            }
            guard case .postgres(var server) = try StoreLocation(parsing: url) else {
                throw StoreBackendError("HITTHAT_POSTGRES_URL is not a postgres:// URL: \(url)")
            }
            server.schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            return .postgres(server)
        }
    }
}

/// The database a test asked for cannot be had.
public struct StoreBackendError: Error, CustomStringConvertible {
    /// Why.
    public var description: String
    /// Says why.
    public init(_ description: String) { self.description = description }
}
