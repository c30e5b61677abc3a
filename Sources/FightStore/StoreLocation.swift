import FightEngine
import Foundation

// MARK: - Where a store keeps its data

/// Where a store keeps everything: an SQLite file (the default, nothing to install), or a
/// PostgreSQL server that several servers share.
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// An SQLite file at this path, created if missing.
    case sqlite(path: String)
    /// A PostgreSQL server's database.
    case postgres(PostgresLocation)

    /// What `--database` takes: a `postgres://` or `postgresql://` URL (see `PostgresLocation`),
    /// or else the path of an SQLite file.
    public init(parsing text: String) throws(StoreLocationError) {
        if let location = try PostgresLocation(url: text) {
            self = .postgres(location)
        } else {
            self = .sqlite(path: text)
        }
    }

    /// The path, or the URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location): location.description
        }
    }
}

/// A PostgreSQL database to keep the store in, as a URL names it:
///
///     postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE
///     postgres://USER@/DATABASE?host=/run/postgresql        (a Unix socket in that folder)
///     postgres://USER@HOST/DATABASE?schema=NAME             (the tables in schema NAME, made if missing)
///
/// `postgresql://` is taken too. The connection is not encrypted: the server is expected on this
/// machine or a private network.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The role to connect as.
    public var username: String
    /// Its password, if the server asks for one.
    public var password: String?
    /// The server's host name or address, for TCP.
    public var host: String?
    /// The server's port (5432 unless the URL says).
    public var port: Int
    /// The folder of the server's Unix socket, for a local server without TCP.
    public var socketFolder: String?
    /// The database's name (the role's name unless the URL says).
    public var database: String
    /// The schema the tables are in; `nil` for the role's default (`public`).
    public var schema: String?

    /// Creates a location from its parts.
    public init(
        username: String, password: String? = nil, host: String? = nil, port: Int = 5432,
        socketFolder: String? = nil, database: String? = nil, schema: String? = nil
    ) {
        self.username = username
        self.password = password
        self.host = host
        self.port = port
        self.socketFolder = socketFolder
        self.database = database ?? username
        self.schema = schema
    }

    /// The location `url` names; `nil` when it is not a `postgres://` or `postgresql://` URL.
    /// - Throws: `StoreLocationError` when it is one but cannot be used: no user, neither a host
    ///   nor a socket folder, a parameter not known, a schema name that is not a plain identifier.
    public init?(url text: String) throws(StoreLocationError) {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else { return nil }
        guard let url = URLComponents(string: text) else { throw StoreLocationError(text, "not a URL") }
        guard let user = url.user, !user.isEmpty else {
            throw StoreLocationError(text, "no user (postgres://USER@HOST/DATABASE)")
        }
        var socketFolder: String?, schema: String?
        for item in url.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("host", let folder?) where folder.hasPrefix("/"): socketFolder = folder
            case ("schema", let name?): schema = name
            default:
                throw StoreLocationError(text, "\(item.name): expected host=/SOCKET/FOLDER or schema=NAME")
            }
        }
        let host = url.host.flatMap { $0.isEmpty ? nil : $0 }
        guard host != nil || socketFolder != nil else {
            throw StoreLocationError(text, "no host, and no socket folder (?host=/run/postgresql)")
        }
        if let schema, !Self.isPlainIdentifier(schema) {
            throw StoreLocationError(text, "schema: expected lowercase letters, digits and _, got '\(schema)'")
        }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        self.init(
            username: user, password: url.password, host: host, port: url.port ?? 5432, socketFolder: socketFolder,
            database: database.isEmpty ? nil : database, schema: schema)
    }

    /// A schema name the store puts in SQL as it is: PostgreSQL takes it unquoted, as written.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) else { return false }
        return name.count <= 63
            && name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }

    /// The URL without its password.
    public var description: String {
        var text = "postgres://\(username)@\(host ?? "")"
        if host != nil, port != 5432 { text += ":\(port)" }
        text += "/\(database)"
        let parameters = [socketFolder.map { "host=\($0)" }, schema.map { "schema=\($0)" }].compactMap { $0 }
        if !parameters.isEmpty { text += "?" + parameters.joined(separator: "&") }
        return text
    }
}

/// A `--database` URL that names PostgreSQL but cannot be used, and why.
public struct StoreLocationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URL as given.
    public var url: String
    /// What is wrong with it.
    public var problem: String

    init(_ url: String, _ problem: String) {
        // A password in the URL is not repeated in a message that may be logged.
        var components = URLComponents(string: url)
        if components?.password != nil { components?.password = "***" }
        self.url = components?.string ?? "a postgres:// URL"
        self.problem = problem
    }

    /// For example "postgres://x@/db: no host, and no socket folder (?host=/run/postgresql)".
    public var description: String { "\(url): \(problem)" }
}

/// This build of the store cannot reach PostgreSQL: it was built without the package's
/// `PostgreSQL` trait (`swift build --traits PostgreSQL`).
public struct PostgresNotBuiltIn: Error, Hashable, Sendable, CustomStringConvertible {
    /// Says how to build it in.
    public var description: String {
        "this hitthat was built without PostgreSQL; build it with `swift build -c release --traits PostgreSQL`"
    }
}

extension FightStore {
    /// Whether this build can keep a store on PostgreSQL (the package's `PostgreSQL` trait).
    public static var postgresBuiltIn: Bool {
        #if PostgreSQL
            true
        #else
            false
        #endif
    }

    /// Opens (creating and migrating if needed) the store at `location`. `durability` is what
    /// an SQLite file's commits survive; PostgreSQL's are its server's to decide (by default
    /// each commit is flushed to its disk before it returns, as with `powerLoss`).
    /// - Throws: `PostgresNotBuiltIn` for a PostgreSQL location in a build without it; the
    ///   database's failures otherwise.
    public convenience init(
        location: StoreLocation, rules: Rules = Rules(), durability: Durability = .powerLoss
    ) async throws {
        switch location {
        case .sqlite(let path):
            try self.init(path: path, rules: rules, durability: durability)
        case .postgres(let server):
            #if PostgreSQL
                let (database, running) = try await PostgresDatabase.open(server)
                self.init(database: database, rules: rules, running: running)
            #else
                _ = server
                throw PostgresNotBuiltIn()
            #endif
        }
    }
}
