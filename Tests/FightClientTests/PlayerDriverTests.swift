import FightClient
import FightEngine
import FightProtocol
import Synchronization
import Testing

/// The driver that carries out a `PlayerSession`'s effects, against a fake server: connections
/// that record what is written to them and say what the test tells them to. Waits are a few
/// milliseconds, configured; nothing waits for a real server.
@Suite struct PlayerDriverTests {
    // MARK: - Fakes

    /// What was written on a connection.
    enum Written: Equatable {
        case request(ClientRequest, ref: Int)
        case raw(String)
    }

    /// One connection: records writes (the first few slow, so that writes made at once would
    /// overtake each other), and hands the driver what the test says the server sends.
    actor FakeConnection: PlayerConnection {
        private(set) var written: [Written] = []
        private(set) var isClosed = false
        /// Writes begun, finished or not.
        private var begun = 0
        let incoming: AsyncStream<String>
        private let server: AsyncStream<String>.Continuation

        init() {
            (incoming, server) = AsyncStream.makeStream(of: String.self)
        }

        func send(_ request: ClientRequest, ref: Int) async throws {
            try await slowly()
            written.append(.request(request, ref: ref))
        }

        func sendRaw(_ text: String) async throws {
            try await slowly()
            written.append(.raw(text))
        }

        func close() {
            isClosed = true
            server.finish()
        }

        /// The server sends `body`, answering `ref`.
        nonisolated func serverSends(_ body: ServerBody, ref: Int? = nil) {
            server.yield(MessageCodec.encode(ServerMessage(ref: ref, body)))
        }

        /// The first write takes 30 ms, the second 20, the third 10, the rest none.
        private func slowly() async throws {
            begun += 1
            try await Task.sleep(for: .milliseconds(max(0, 40 - 10 * begun)))
            if isClosed { throw CancellationError() }
        }
    }

    /// Connections made on demand: the attempts listed in `failures` fail first, in order. With
    /// `hangs`, an attempt never connects: it waits until its task is cancelled.
    actor FakeConnector: PlayerConnecting {
        let session: Session
        private var failures: [PlayerSession.ConnectionFailure]
        private let hangs: Bool
        private(set) var connections: [FakeConnection] = []
        private(set) var attempts = 0
        /// Attempts begun and not returned yet.
        private(set) var attemptsUnderWay = 0

        init(session: Session, failures: [PlayerSession.ConnectionFailure] = [], hangs: Bool = false) {
            self.session = session
            self.failures = failures
            self.hangs = hangs
        }

        func connectAndRead(
            opened: @Sendable (any PlayerConnection, Session) async -> Bool,
            received: @Sendable (String) async -> Bool
        ) async -> Connector.Ending {
            attempts += 1
            attemptsUnderWay += 1
            defer { attemptsUnderWay -= 1 }
            if hangs {
                try? await Task.sleep(for: .seconds(3600))
                return .notConnected(.other("cancelled"))
            }
            if !failures.isEmpty { return .notConnected(failures.removeFirst()) }
            let connection = FakeConnection()
            connections.append(connection)
            guard await opened(connection, session) else { return .closed(reason: nil) }
            for await text in connection.incoming {
                if await !received(text) { break }
            }
            return .closed(reason: nil)
        }
    }

    /// Records what the driver shows and every event the session handled.
    final class RecordingDisplay: PlayerDisplay {
        let statuses = Mutex<[String]>([])
        let handledEvents = Mutex<[PlayerSession.Event]>([])

        func status(_ status: ConnectionStatus) { statuses.withLock { $0.append(status.description) } }
        func note(_ text: String) {}
        func show(
            _ message: ServerMessage, text: String, fights: [FightID: FightView], me: FighterID?, answersPlayer: Bool
        ) {
        }
        func handled(_ event: PlayerSession.Event, effects: [PlayerSession.Effect], session: PlayerSession) {
            handledEvents.withLock { $0.append(event) }
        }
    }

    /// A sensor that never punches and never stops: only cancellation ends a wait on it. It
    /// counts the waits under way.
    final class SilentSensor: MotionSource {
        let waits = Mutex(0)

        func nextRows(since start: ContinuousClock.Instant) async -> [MotionRow]? {
            await waitUntilCancelled()
            return nil
        }

        var failure: (any Error)? { nil }

        func stopped() async -> (any Error)? {
            await waitUntilCancelled()
            return nil
        }

        private func waitUntilCancelled() async {
            waits.withLock { $0 += 1 }
            try? await Task.sleep(for: .seconds(3600))
            waits.withLock { $0 -= 1 }
        }
    }

    /// A driver for a fake server, its connector, its display, and the task running it.
    struct Harness {
        let card: FighterCard
        let connector: FakeConnector
        let display = RecordingDisplay()
        let driver: PlayerDriver
        let running: Task<Void, Never>
        let finished = Flag()

        init(
            _ mode: PlayerSession.Mode, quitWait: Duration = .seconds(60),
            failures: [PlayerSession.ConnectionFailure] = [], connectorHangs: Bool = false,
            backoff: Backoff = Backoff(first: .milliseconds(1), longest: .milliseconds(4)),
            punches: (any MotionSource)? = nil, beforeRunning: [PlayerCommand] = []
        ) async throws {
            let bout = try FightFollowerTests.Bout()
            let fighter = try #require(bout.state.fighters.values.first)
            card = FighterCard(fighter, showingLocation: true)
            connector = FakeConnector(
                session: Session(token: "t", fighter: card), failures: failures, hangs: connectorHangs)
            var configuration = PlayerSession.Configuration(
                mode: mode, username: card.username, server: "ws://fake:1", hasSensor: punches != nil,
                showsCards: false)
            configuration.backoff = backoff
            configuration.quitWait = quitWait
            let driver = PlayerDriver(
                connector: connector, configuration: configuration, display: display, motion: punches)
            for command in beforeRunning { _ = await driver.perform(command) }
            self.driver = driver
            let finished = self.finished
            running = Task {
                await driver.run()
                finished.raise()
            }
        }

        /// Whether `run()` returned.
        var isFinished: Bool { finished.isRaised }

        /// The `index`th connection, once made.
        func connection(_ index: Int) async throws -> FakeConnection {
            try await eventually { await connector.connections.count > index }
            return await connector.connections[index]
        }

        /// Waits until `connection` has `count` writes, and returns them.
        func written(on connection: FakeConnection, count: Int) async throws -> [Written] {
            try await eventually { await connection.written.count >= count }
            return await connection.written
        }

        /// Answers the `hello` on `connection` with `welcome`.
        func welcome(on connection: FakeConnection) async throws {
            let hello = try #require(try await written(on: connection, count: 1).first)
            guard case .request(.hello, let ref) = hello else { throw Failure("expected hello first, got \(hello)") }
            connection.serverSends(.welcome(Welcome(fighter: card, openFights: [])), ref: ref)
        }
    }

    /// Set once, read from anywhere.
    final class Flag: Sendable {
        private let raised = Mutex(false)
        func raise() { raised.withLock { $0 = true } }
        var isRaised: Bool { raised.withLock { $0 } }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: - Writing

    @Test func writesGoOutOneAtATimeInTheOrderTheSessionGaveThem() async throws {
        let player = try await Harness(
            .screen,
            beforeRunning: [
                .request(.profile(ProfileRequest())), .request(.history), .request(.statistics(StatisticsRequest())),
            ])
        let connection = try await player.connection(0)
        try await player.welcome(on: connection)
        // The hello took 30 ms, the profile 20, the history 10: written at once, the later ones
        // would overtake.
        #expect(
            try await player.written(on: connection, count: 4) == [
                .request(.hello, ref: 1), .request(.profile(ProfileRequest()), ref: 2), .request(.history, ref: 3),
                .request(.statistics(StatisticsRequest()), ref: 4),
            ])
        await player.driver.interrupt()
        try await eventually { player.isFinished }
        #expect(await connection.isClosed, "finishing closes the connection")
    }

    @Test func aRequestSentAsItIsWaitsForTheWelcomeAndThenSaysItsRef() async throws {
        let player = try await Harness(.screen)
        let connection = try await player.connection(0)
        _ = try await player.written(on: connection, count: 1)
        #expect(await player.driver.send(.history) == nil, "not welcomed yet: it waits")
        try await player.welcome(on: connection)
        try await eventually { await connection.written.count == 2 }
        // Not a command: no turn is checked, so a punch the server must refuse goes out too.
        let punch = PunchRequest(fight: FightID(999), kind: .jab, after: 1)
        let ref = await player.driver.send(.punch(punch))
        #expect(ref == 3)
        #expect(
            try await player.written(on: connection, count: 3) == [
                .request(.hello, ref: 1), .request(.history, ref: 2), .request(.punch(punch), ref: 3),
            ])
        #expect(
            player.display.handledEvents.withLock {
                $0.contains { if case .command(.request, _) = $0 { true } else { false } }
            })
        await player.driver.interrupt()
    }

    // MARK: - Reconnecting

    @Test func aFailedAttemptAndADroppedConnectionAreMadeGoodAndHelloIsSaidAgain() async throws {
        let player = try await Harness(.screen, failures: [.other("reset while connecting")])
        let first = try await player.connection(0)
        #expect(await player.connector.attempts == 2, "the failed attempt was retried")
        try await player.welcome(on: first)
        try await eventually { player.display.statuses.withLock { $0.last?.hasPrefix("connected") == true } }
        #expect(await player.driver.dropConnection())
        // The failed attempt said it once; the drop says it again.
        try await eventually { player.display.statuses.withLock { $0.count { $0.hasPrefix("server gone") } == 2 } }
        _ = await player.driver.perform(.request(.history))  // while away: queued
        let second = try await player.connection(1)
        #expect(await first.isClosed)
        try await player.welcome(on: second)
        #expect(
            try await player.written(on: second, count: 2) == [
                .request(.hello, ref: 2), .request(.history, ref: 3),
            ])
        await player.driver.interrupt()
        try await eventually { player.isFinished }
        #expect(await player.driver.dropConnection() == false, "over: nothing left to drop")
    }

    // MARK: - Ending

    /// `run()` owns what the driver starts: once it returns, the sensor's wait and a connection
    /// attempt that would never end on its own have ended too, cancelled.
    @Test func nothingTheDriverStartedOutlivesIt() async throws {
        let sensor = SilentSensor()
        let player = try await Harness(.screen, connectorHangs: true, punches: sensor)
        try await eventually {
            let attempts = await player.connector.attemptsUnderWay
            return sensor.waits.withLock { $0 } == 1 && attempts == 1
        }
        await player.driver.interrupt()
        try await eventually { player.isFinished }
        #expect(sensor.waits.withLock { $0 } == 0, "the sensor's wait ended with run()")
        #expect(await player.connector.attemptsUnderWay == 0, "the connection attempt ended with run()")
    }

    /// A timer running when the session finishes (here the wait before connecting again, an
    /// hour long) is cancelled with the rest: `run()` does not wait it out.
    @Test func aRunningTimerDoesNotKeepTheDriverRunning() async throws {
        let player = try await Harness(
            .screen, failures: [.other("reset while connecting")],
            backoff: Backoff(first: .seconds(3600), longest: .seconds(3600)))
        try await eventually {
            player.display.statuses.withLock { $0.contains { $0.hasPrefix("server gone; retrying in") } }
        }
        await player.driver.interrupt()
        try await eventually { player.isFinished }
        #expect(await player.connector.attempts == 1, "the timer never fired")
    }

    // MARK: - Quitting

    @Test func aScriptsQuitWaitsForTheWelcomeAndTheReplyThenEnds() async throws {
        let player = try await Harness(.script, beforeRunning: [.request(.profile(ProfileRequest())), .quit])
        let connection = try await player.connection(0)
        _ = try await player.written(on: connection, count: 1)
        try await Task.sleep(for: .milliseconds(30))
        #expect(!player.isFinished, "no welcome yet: quit waits for it")
        try await player.welcome(on: connection)
        let written = try await player.written(on: connection, count: 2)
        #expect(!player.isFinished, "the profile is not answered yet")
        connection.serverSends(.profile(ProfileReply(fighter: player.card)), ref: 2)
        #expect(written.last == .request(.profile(ProfileRequest()), ref: 2))
        // Well before the 60 s limit: the reply ended the wait.
        try await eventually { player.isFinished }
    }

    @Test func aScriptsQuitWaitsNoLongerThanItsLimit() async throws {
        let player = try await Harness(.script, quitWait: .milliseconds(50))
        let connection = try await player.connection(0)
        try await player.welcome(on: connection)
        _ = await player.driver.perform(.request(.profile(ProfileRequest())))
        _ = try await player.written(on: connection, count: 2)
        let quitAt = ContinuousClock.now
        #expect(await player.driver.perform(.quit) == false, "quit: read no more")
        try await eventually { player.isFinished }
        let waited = quitAt.duration(to: .now)
        #expect(waited >= .milliseconds(50), "it waited for the reply: \(waited)")
        // Ended by the limit's timer, the reply never having come (and not for ever: `eventually`).
        #expect(
            player.display.handledEvents.withLock {
                $0.contains { if case .timerFired(.quitWait, _) = $0 { true } else { false } }
            })
    }
}

/// Polls `condition` every millisecond until it holds; throws after 5,000 tries. It holds within
/// milliseconds alone, but a full parallel `swift test` on two cores can keep every task from
/// running for many seconds (24 s seen), so the tries are counted rather than the time.
private func eventually(_ condition: () async -> Bool) async throws {
    for _ in 0..<5_000 {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    throw PlayerDriverTests.Failure("not after 5,000 tries")
}
