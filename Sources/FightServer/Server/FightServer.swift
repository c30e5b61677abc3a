import FightEngine
import FightProtocol
import FightStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

// MARK: - Configuration

/// Where the server listens, where it keeps its data, and the numbers it plays by.
public struct ServerConfiguration: Sendable {
    /// The address to listen on.
    public var host: String
    /// The port; 0 picks a free one (`onRunning` says which).
    public var port: Int
    /// Where fighters, fights, events, statistics, accounts and sessions are kept: an SQLite
    /// file's path, or a `postgres://` URL (see `StoreLocation(parsing:)`).
    public var databasePath: String
    /// What an acknowledged command survives: by default the server being killed, not power loss.
    public var durability: Durability
    /// The fight rules (turn timeout, challenge lifetime, …).
    public var rules: Rules
    /// PBKDF2 rounds for new passwords.
    public var passwordRounds: Int
    /// Messages a fighter (over all their connections, on every server sharing the database), and
    /// any one connection, may send each second on average.
    public var messagesPerSecond: Int
    /// Messages a fighter, and any one connection, may send at once before the average applies.
    public var messageBurst: Int
    /// Motion samples a fighter may send each second on average, by the server's clock: a sensor
    /// streamed at its own pace (at most `MotionLimits.maximumRate`) stays within it, and a
    /// recording can be streamed a little faster than it was made, not much.
    public var motionSamplesPerSecond: Int
    /// Motion samples a fighter may send at once before the average applies: at least a hold's
    /// lead-in at the fastest rate (`MotionLimits.leadSeconds` × `MotionLimits.maximumRate`, 400),
    /// which a client sends as the button is pressed.
    public var motionSampleBurst: Int
    /// Account requests (`/register` and `/login` together) one address may make each second on
    /// average: each costs a password hash, and a login is a password guess.
    public var accountRequestsPerSecond: Int
    /// Account requests one address may make at once before the average applies.
    public var accountRequestBurst: Int
    /// Seconds a session lasts unused; each use starts it again (noted to the hour).
    public var sessionLifetime: Int64
    /// The time, read by the server for every command and deadline.
    public var clock: ServerClock
    /// A certificate and its key to serve HTTPS and WSS with; without them, HTTP and WS.
    public var tls: TLSFiles?
    /// How long clients are told (in `welcome`'s rules) to wait before connecting again.
    public var reconnect: ReconnectBackoff
    /// The server's name among those sharing a PostgreSQL database, the same over its restarts:
    /// a lease its previous run left (killed) is then known for its own, so that a lone server
    /// restarted within it still resumes the turns. Unique among the servers: one started under a
    /// name another is serving under refuses to start (`ServerNameInUse`). `nil`: the machine's
    /// name and the port (`HOST:PORT`, which only one server of a machine can listen on), or
    /// none with port 0 (each run a server of its own). An SQLite file keeps no lease.
    public var name: String?

    /// Creates a configuration; the defaults are `hitthat serve`'s.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, databasePath: String = "./hitthat.sqlite",
        durability: Durability = .processCrash, rules: Rules = Rules(),
        passwordRounds: Int = PasswordHash.defaultRounds, messagesPerSecond: Int = 20, messageBurst: Int = 40,
        motionSamplesPerSecond: Int = 250, motionSampleBurst: Int = 500,
        accountRequestsPerSecond: Int = 1, accountRequestBurst: Int = 30,
        sessionLifetime: Int64 = ServerConfiguration.defaultSessionLifetime, clock: ServerClock = .system,
        reconnect: ReconnectBackoff = .standard
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.durability = durability
        self.rules = rules
        self.passwordRounds = passwordRounds
        self.messagesPerSecond = messagesPerSecond
        self.messageBurst = messageBurst
        self.motionSamplesPerSecond = motionSamplesPerSecond
        self.motionSampleBurst = motionSampleBurst
        self.accountRequestsPerSecond = accountRequestsPerSecond
        self.accountRequestBurst = accountRequestBurst
        self.sessionLifetime = sessionLifetime
        self.clock = clock
        self.reconnect = reconnect
    }

    /// 30 days: a fighter who plays once a month never logs in again; a token left on a device
    /// nobody uses stops working.
    public static let defaultSessionLifetime: Int64 = 30 * 24 * 60 * 60
}

/// The PEM files the server serves HTTPS and WSS with: browsers give a page motion and
/// geolocation only over a secure connection (but on localhost).
public struct TLSFiles: Sendable {
    /// The certificate chain, the server's own certificate first.
    public var certificateChain: String
    /// The certificate's private key.
    public var privateKey: String

    /// Names the two files; they are read when the server is made.
    public init(certificateChain: String, privateKey: String) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// Reads both files into a server's TLS configuration.
    func configuration() throws(TLSFilesError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateChain)
        } catch {
            throw TLSFilesError(path: certificateChain, problem: "cannot read a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw TLSFilesError(path: certificateChain, problem: "no certificate in it") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: privateKey, format: .pem)
        } catch {
            throw TLSFilesError(path: privateKey, problem: "cannot read a PEM private key (\(error))")
        }
        return .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}

/// A certificate or key file that could not be used, and why.
public struct TLSFilesError: Error, CustomStringConvertible {
    /// The file at fault.
    public var path: String
    /// What is wrong with it.
    public var problem: String
    /// `PATH: PROBLEM`, as the command line reports a file.
    public var description: String { "\(path): \(problem)" }
}

// MARK: - FightServer

/// The fight server: HTTP routes for health, registration and login, and one WebSocket endpoint
/// (`/ws`) for everything else (see docs/PROTOCOL.md).
///
/// It runs the HTTP server, the deadline clock and, on a database other servers share, the
/// listener of their changes in a `ServiceGroup`, which shuts them down gracefully on SIGINT or
/// SIGTERM (or `shutdown()`): open connections are closed, every acknowledged command is already
/// in the database, the server's lease is given up, and the next start resumes every fight (when
/// no other server is serving them).
public final class FightServer: Sendable {
    private let group: ServiceGroup
    private let hub: FightHub
    private let hubLoop: MultiThreadedEventLoopGroup
    private let passwordHashing: PasswordHashing

    /// Reads the TLS files and the page, opens the database and prepares the server; `run()`
    /// starts it.
    /// - Parameter onRunning: called with the port once the server listens.
    /// - Throws: `TLSFilesError` for a certificate or key that cannot be used (before the
    ///   database is opened), or the store's error.
    public init(
        configuration: ServerConfiguration, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let tlsConfiguration = try configuration.tls?.configuration()
        let page = try PageFiles.bundled()
        let store = try await FightStore(
            location: try StoreLocation(parsing: configuration.databasePath), rules: configuration.rules,
            durability: configuration.durability)
        let accounts = Accounts(store: store, sessionLifetime: configuration.sessionLifetime)
        let hubLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let hub = FightHub(
            store: store, clock: configuration.clock, logger: logger, eventLoop: hubLoop.next(),
            motionSamples: FighterAllowance(
                "motion", perSecond: configuration.motionSamplesPerSecond, burst: configuration.motionSampleBurst,
                store: store, clock: configuration.clock),
            serverName: Self.serverName(), serverIdentity: Self.identity(of: configuration),
            // What the referee enforces, stated to every client as it says hello.
            rules: StatedRules(store.referee.rules, reconnect: configuration.reconnect))
        self.hub = hub
        self.hubLoop = hubLoop
        passwordHashing = PasswordHashing()
        let gatekeeper = Gatekeeper(
            hub: hub, store: store, accounts: accounts, clock: configuration.clock,
            passwordRounds: configuration.passwordRounds, hashing: passwordHashing)

        let router = Router(context: AddressedRequestContext.self)
        page.route(on: router)
        router.get("health") { _, _ in
            let reachable = (try? await store.checkReachable()) != nil
            return Self.response(
                reachable ? .ok : .serviceUnavailable,
                ServerMessage(
                    .health(Health(status: reachable ? "ok" : "database unreachable", database: store.databaseKind))))
        }
        let accountLimits = AccountLimits(configuration)
        router.post("register") { request, context in
            await Self.account(
                request, from: context.remoteAddress, limits: accountLimits, logger: logger, success: .created
            ) {
                try await gatekeeper.register($0)
            }
        }
        router.post("login") { request, context in
            await Self.account(
                request, from: context.remoteAddress, limits: accountLimits, logger: logger, success: .ok
            ) {
                try await gatekeeper.login($0)
            }
        }

        let (perSecond, burst, clock) = (
            configuration.messagesPerSecond, configuration.messageBurst, configuration.clock
        )
        let fighterLimits = FighterAllowance(
            "messages", perSecond: perSecond, burst: burst, store: store, clock: configuration.clock)
        let http: HTTPServerBuilder = .http1WebSocketUpgrade(
            configuration: .init(ws: .init(maxFrameSize: ProtocolLimits.maxFrameBytes)),
            shouldUpgrade: { request, _, _ in
                guard request.path?.split(separator: "?").first == "/ws" else { return .dontUpgrade }
                return .upgrade([:]) { inbound, outbound, context in
                    let (stream, outbox) = AsyncStream.makeStream(of: String.self)
                    var session = ClientSession(
                        hub: hub, accounts: accounts, outbox: outbox, clock: clock,
                        limiter: RateLimiter(perSecond: perSecond, burst: burst), fighterLimits: fighterLimits,
                        logger: context.logger)
                    async let written: Void = {
                        for await text in stream { try await outbound.write(.text(text)) }
                        // The outbox is finished when the connection is done, or when its session
                        // was logged out (here or on another connection): then the server closes
                        // it. Closing one already closed does nothing.
                        try await outbound.close(.normalClosure, reason: nil)
                    }()
                    do {
                        reading: for try await message in inbound.messages(maxSize: ProtocolLimits.maxFrameBytes) {
                            switch message {
                            case .text(let text):
                                if await session.receive(text) == .close { break reading }
                            case .binary: session.refuseBinary()
                            }
                        }
                    } catch {
                        context.logger.info("connection ended", metadata: ["error": "\(error)"])
                    }
                    await session.close()
                    outbox.finish()
                    try? await written
                }
            })
        let app = Application(
            router: router,
            server: try tlsConfiguration.map { try .tls(http, tlsConfiguration: $0) } ?? http,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "hitthat"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
        // Another server's commits reach the connections here through the database, where one
        // can share it; a file alone has no other server.
        let listener = store.changes().map { StoreChangesService(changes: $0, hub: hub, accounts: accounts) }
        group = ServiceGroup(
            configuration: .init(
                services: [app, DeadlineService(hub: hub, tick: configuration.clock.tick), PresenceService(hub: hub)]
                    + (listener.map { [$0] } ?? []),
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
    }

    /// Serves until SIGINT, SIGTERM or `shutdown()`.
    public func run() async throws {
        // Before the first deadline is settled, the turns the time the servers were down would
        // lapse start afresh; and before it listens, so that every fighter owed a turn for it
        // (`FightHub.resumeOwedTurns(of:)`) connects after.
        do {
            try await hub.startServing()
        } catch {
            try? await stopThreads()
            throw error
        }
        do {
            try await group.run()
        } catch {
            await hub.stopServing()
            try? await stopThreads()
            throw error
        }
        await hub.stopServing()
        try await stopThreads()
    }

    /// This run's name among the servers sharing a database: the machine, the process, and a
    /// random part for a process number used again.
    private static func serverName() -> String {
        "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// The server's name over its restarts: the one configured, else `HOST:PORT` of the machine
    /// and the port it listens on, when that is fixed.
    public static func identity(of configuration: ServerConfiguration) -> String? {
        configuration.name ?? (configuration.port == 0 ? nil : "\(ProcessInfo.processInfo.hostName):\(configuration.port)")
    }

    private func stopThreads() async throws {
        try await passwordHashing.shutdown()
        try await hubLoop.shutdownGracefully()
    }

    /// Stops serving gracefully, as SIGTERM does.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }

    // MARK: - HTTP

    private static func account(
        _ request: Request, from address: SocketAddress?, limits: AccountLimits, logger: Logger,
        success: HTTPResponse.Status, _ act: (Credentials) async throws -> Session
    ) async -> Response {
        var request = request
        do {
            try limits.admit(address)
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: ProtocolLimits.maxMessageBytes)
            } catch {
                throw ProtocolError(.tooLarge, "body: expected at most \(ProtocolLimits.maxMessageBytes) bytes")
            }
            let credentials = try MessageCodec.decode(Credentials.self, from: String(buffer: body))
            return response(success, ServerMessage(.session(try await act(credentials))))
        } catch let error as ProtocolError {
            return response(status(for: error.code), ServerMessage(.error(error)))
        } catch {
            logger.error("account request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return response(
                .internalServerError,
                ServerMessage(.error(ProtocolError(.internalError, "the server failed; try again"))))
        }
    }

    private static func status(for code: ProtocolError.Code) -> HTTPResponse.Status {
        switch code {
        case .unauthorized: .unauthorized
        case .conflict: .conflict
        case .tooLarge: .contentTooLarge
        case .rateLimited: .tooManyRequests
        case .internalError: .internalServerError
        default: .badRequest
        }
    }

    private static func response(_ status: HTTPResponse.Status, _ message: ServerMessage) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: MessageCodec.encode(message))))
    }
}
