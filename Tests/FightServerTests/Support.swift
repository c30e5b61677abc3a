import FightClient
import FightEngine
import FightProtocol
import FightServer
import FightStoreTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

// MARK: - Clock

/// A clock that starts at a fixed moment and moves only when a test moves it.
final class TestClock: Sendable {
    private let seconds = NIOLockedValueBox<Int64>(1_795_000_000)
    /// Time that only the monotonic clock sees: what a power meter is timed by.
    private let milliseconds = NIOLockedValueBox<Int64>(0)

    var now: Timestamp { Timestamp(secondsSince1970: seconds.withLockedValue { $0 }) }

    func advance(by delta: Int64) { seconds.withLockedValue { $0 += delta } }

    /// Moves the monotonic clock alone by `delta` milliseconds (a wall clock in whole seconds
    /// would not see a meter's sweep).
    func advance(milliseconds delta: Int64) { milliseconds.withLockedValue { $0 += delta } }

    /// The server's view of it, looking for deadlines every 20 ms. Message rates are measured by
    /// it too: between two moves of the clock, no time passes for them either.
    /// Both the monotonic clock and the one since 1970 (what servers sharing rates read) are this
    /// clock's, to the millisecond: servers sharing one test clock agree on them.
    var serverClock: ServerClock {
        let fine: @Sendable () -> Duration = { [self] in
            .seconds(seconds.withLockedValue { $0 }) + .milliseconds(milliseconds.withLockedValue { $0 })
        }
        return ServerClock(tick: .milliseconds(20), elapsed: fine, sinceEpoch: fine) { [self] in now }
    }
}

// MARK: - Server

/// A fight server on a free loopback port over an SQLite file of its own.
struct TestServer {
    let server: FightServer
    let running: Task<Void, any Error>
    let address: ServerAddress
    let databasePath: String

    /// A new database for `--database`: a file in this test process's folder of databases, or a
    /// new schema on the PostgreSQL test server (its URL).
    static func temporaryDatabase(_ backend: StoreBackend = .sqlite) throws -> String {
        try backend.freshLocation(
            sqlitePath: try databaseFolder.get().appendingPathComponent("\(UUID().uuidString).sqlite").path
        ).description
    }

    /// `hitthat-tests-PID` in the temporary directory. The databases outlive the tests that make
    /// them (servers and clients in other processes may still hold them), so rather than each test
    /// removing its own, the first test of a run removes the folders of test processes that have
    /// ended: what a run leaves behind lasts until the next.
    private static let databaseFolder = Result<URL, any Error> {
        let files = FileManager.default
        let prefix = "hitthat-tests-"
        for name in (try? files.contentsOfDirectory(atPath: files.temporaryDirectory.path)) ?? []
        where name.hasPrefix(prefix) {
            guard let process = pid_t(name.dropFirst(prefix.count)), kill(process, 0) != 0, errno == ESRCH else {
                continue
            }
            try? files.removeItem(at: files.temporaryDirectory.appendingPathComponent(name))
        }
        let folder = files.temporaryDirectory.appendingPathComponent("\(prefix)\(getpid())")
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func start(
        databasePath: String? = nil, clock: TestClock, messagesPerSecond: Int = 1000, messageBurst: Int = 1000,
        accountRequestsPerSecond: Int = 1000, accountRequestBurst: Int = 1000, motionSamplesPerSecond: Int = 100_000,
        motionSampleBurst: Int = 100_000, rules: Rules = Rules(), reconnect: ReconnectBackoff = .standard
    ) async throws -> TestServer {
        let path = try databasePath ?? temporaryDatabase()
        var logger = Logger(label: "test.server")
        logger.logLevel = .warning
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, databasePath: path, passwordRounds: 1_000, messagesPerSecond: messagesPerSecond,
            messageBurst: messageBurst, motionSamplesPerSecond: motionSamplesPerSecond,
            motionSampleBurst: motionSampleBurst, accountRequestsPerSecond: accountRequestsPerSecond,
            accountRequestBurst: accountRequestBurst, clock: clock.serverClock, reconnect: reconnect)
        configuration.rules = rules
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = try await FightServer(configuration: configuration, logger: logger) { port in
            portContinuation.yield(port)
        }
        let running = Task { try await server.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("the server never said it was running") }
        return TestServer(
            server: server, running: running, address: ServerAddress(host: "127.0.0.1", port: port), databasePath: path)
    }

    func stop() async throws {
        await server.shutdown()
        try await running.value
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Players

/// A player connected to a test server, with every message it received kept until a test takes it.
final class Player: Sendable {
    let client: FightClient
    private let mailbox = Mailbox()
    private let reader: Task<Void, Never>

    /// What the reader task hands over: messages, and why the connection ended.
    private final class Mailbox: Sendable {
        let messages = NIOLockedValueBox<[ServerMessage]>([])
        let ended = NIOLockedValueBox<String?>(nil)
    }

    var id: FighterID { client.session.fighter.id }
    var token: String { client.session.token }

    private init(client: FightClient) {
        self.client = client
        let mailbox = mailbox
        reader = Task {
            do {
                for try await message in client.messages { mailbox.messages.withLockedValue { $0.append(message) } }
                mailbox.ended.withLockedValue { $0 = "the connection closed" }
            } catch {
                mailbox.ended.withLockedValue { $0 = "\(error)" }
            }
        }
    }

    deinit { reader.cancel() }

    /// Registers (or logs in) `username` and connects, saying `hello`.
    static func join(
        _ username: String, password: String = "correct horse", at server: TestServer
    ) async throws -> Player {
        try await join(username, password: password, at: server.address)
    }

    /// Registers (or logs in) `username` at the server at `address` (one in another process) and
    /// connects, saying `hello`.
    static func join(
        _ username: String, password: String = "correct horse", at address: ServerAddress
    ) async throws -> Player {
        let session = try await FightClient.signIn(Credentials(username: username, password: password), at: address)
        return try await connect(session, to: address)
    }

    /// Connects with an existing session and says `hello`.
    static func connect(_ session: Session, to address: ServerAddress) async throws -> Player {
        let player = Player(client: try await FightClient.connect(session, to: address))
        let ref = try await player.client.send(.hello)
        _ = try await player.reply(to: ref)
        return player
    }

    /// Sends `request` and waits for its reply (or error).
    @discardableResult
    func request(_ request: ClientRequest) async throws -> ServerMessage {
        try await reply(to: try await client.send(request))
    }

    /// The reply to the message with `ref`: its error, or a message other than an event.
    func reply(to ref: Int) async throws -> ServerMessage {
        try await next("reply to ref \(ref)") { message in
            guard message.ref == ref else { return false }
            if case .event = message.body { return false }
            return true
        }
    }

    /// Throws a punch of `kind` from the power meter that does `damage` (before any guard): winds
    /// up at `after`, moves the server's monotonic `clock` to where the meter gives that damage,
    /// and stops it. Returns the punch's outcome, as `command` does. A damage the meter cannot
    /// give (below its floor, above the kind's ceiling) is the test's mistake.
    func punch(
        _ kind: PunchType, doing damage: Int, in fight: FightID, after: Int, clock: TestClock
    ) async throws -> ServerMessage {
        let meter = Rules().meter
        guard let stop = (0...meter.sweepMilliseconds / 2).first(where: { meter.damage(of: kind, stoppedAfter: $0) == damage })
        else { throw TestFailure("the meter gives no \(kind) of \(damage)") }
        let wound = try await request(.windUp(WindUpRequest(fight: fight, after: after)))
        if let error = wound.error { return ServerMessage(ref: wound.ref, .error(error)) }
        clock.advance(milliseconds: stop)
        return try await command(.punch(PunchRequest(fight: fight, kind: kind, after: after)))
    }

    /// Sends a command and waits for its first event (or its error).
    func command(_ request: ClientRequest) async throws -> ServerMessage {
        let ref = try await client.send(request)
        return try await next("outcome of ref \(ref)") { $0.ref == ref }
    }

    /// The next event of `kind` for fight `fight` (any fight when `nil`).
    func event(_ kind: WireEvent.Kind, fight: FightID? = nil) async throws -> WireEvent {
        let message = try await next("event \(kind)") { message in
            guard case .event(let event) = message.body else { return false }
            return event.kind == kind && (fight == nil || event.fight == fight)
        }
        guard case .event(let event) = message.body else { throw TestFailure("not an event") }
        return event
    }

    /// Waits (up to ten seconds: a guard against hanging, not a speed check) for the first
    /// message that satisfies `matches`, and takes it out of the inbox.
    func next(_ what: String, where matches: (ServerMessage) -> Bool) async throws -> ServerMessage {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let found = mailbox.messages.withLockedValue { messages -> ServerMessage? in
                guard let index = messages.firstIndex(where: matches) else { return nil }
                return messages.remove(at: index)
            }
            if let found { return found }
            if let error = mailbox.ended.withLockedValue({ $0 }) { throw TestFailure("waiting for \(what): \(error)") }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("timed out waiting for \(what); inbox: \(mailbox.messages.withLockedValue { $0 })")
    }

    /// Drops every message received so far.
    func clearInbox() { mailbox.messages.withLockedValue { $0.removeAll() } }

    /// Takes out of the inbox, without waiting, every message received so far that `matches`.
    func taken(where matches: (ServerMessage) -> Bool) -> [ServerMessage] {
        mailbox.messages.withLockedValue { messages in
            let found = messages.filter(matches)
            messages.removeAll(where: matches)
            return found
        }
    }

    /// Waits (up to ten seconds) for the connection to end; why it did.
    func closed() async throws -> String {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let why = mailbox.ended.withLockedValue({ $0 }) { return why }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("the connection is still open")
    }

    func close() async { await client.close() }
}

// MARK: - Reading replies

extension ServerMessage {
    var error: ProtocolError? { if case .error(let error) = body { error } else { nil } }
    var fightView: FightView? { if case .fight(let reply) = body { reply.fight } else { nil } }
    var profileCard: FighterCard? { if case .profile(let reply) = body { reply.fighter } else { nil } }
    var event: WireEvent? { if case .event(let event) = body { event } else { nil } }
    var events: [WireEvent]? { if case .events(let reply) = body { reply.events } else { nil } }
}
