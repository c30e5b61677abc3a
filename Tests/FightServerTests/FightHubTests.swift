import FightEngine
import FightProtocol
import FightStore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import Testing

@testable import FightServer

/// The hub itself, in this process: an actor over an SQLite file in a temporary folder, on a
/// clock the test moves, its connections outboxes the test reads. No socket, no server.
@Suite struct FightHubTests {
    /// A hub and what it runs on, stopped by `stop()`.
    final class Harness: Sendable {
        let hub: FightHub
        let clock = TestClock()
        let gate = Gate()
        private let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        private let folder: URL
        private let inboxes = NIOLockedValueBox<[Inbox]>([])

        init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("FightHubTests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let store = try await FightStore(
                location: try StoreLocation(parsing: folder.appendingPathComponent("fights.sqlite").path),
                durability: .processCrash)
            var logger = Logger(label: "test.hub")
            logger.logLevel = .warning
            hub = FightHub(
                store: store, clock: clock.serverClock, logger: logger, eventLoop: loop.next(),
                motionSamples: FighterAllowance(
                    "motion", perSecond: 250, burst: 500, store: store, clock: clock.serverClock),
                serverName: "test", rules: StatedRules(store.referee.rules), afterSaving: { [gate] in await gate.pass() })
        }

        /// A fighter registered and connected once: their id, what their connection receives, and
        /// the connection's number.
        func fighter(_ name: String) async throws -> (FighterID, Inbox, Int) {
            let fighter = try await hub.register(Registration(username: name, displayName: name)).get()
            let inbox = Inbox()
            inboxes.withLockedValue { $0.append(inbox) }
            return (fighter.id, inbox, await hub.connect(fighter.id, session: name, outbox: inbox.outbox))
        }

        func stop() async throws {
            for inbox in inboxes.withLockedValue({ $0 }) { inbox.outbox.finish() }
            try await loop.shutdownGracefully()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// What one connection received, in order (read by a task that ends when its outbox is
    /// finished, at the harness's `stop()`).
    final class Inbox: Sendable {
        let outbox: HubState.Outbox
        private let received = NIOLockedValueBox<[ServerMessage]>([])

        init() {
            let (stream, outbox) = AsyncStream<String>.makeStream()
            self.outbox = outbox
            Task { [received] in
                for await text in stream {
                    if let message = try? MessageCodec.decodeReply(text) { received.withLockedValue { $0.append(message) } }
                }
            }
        }

        /// The kinds of the events received so far.
        var kinds: [WireEvent.Kind] {
            received.withLockedValue { messages in
                messages.compactMap { if case .event(let event) = $0.body { event.kind } else { nil } }
            }
        }

        /// Waits until `done` holds of the events received (a condition, not a time: the loop
        /// gives up after a minute only so that a broken hub fails instead of hanging).
        func wait(_ what: String, until done: ([WireEvent.Kind]) -> Bool) async throws {
            for _ in 0..<6_000 {
                if done(kinds) { return }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw TestFailure("never received \(what): \(kinds)")
        }
    }

    /// Holds the command armed for after it is saved (its events and what pushing them needs
    /// read) and before the hub pushes and answers it (`FightHub.afterSaving`), until released.
    final class Gate: Sendable {
        private enum State { case open, armed, holding(CheckedContinuation<Void, Never>?), released }
        private let state = NIOLockedValueBox(State.open)

        func arm() { state.withLockedValue { $0 = .armed } }

        /// Whether a command is held now.
        var isHolding: Bool { state.withLockedValue { if case .holding = $0 { true } else { false } } }

        func release() {
            let held = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                defer { state = .released }
                if case .holding(let continuation) = state { return continuation }
                return nil
            }
            held?.resume()
        }

        /// Awaited after every command is saved: holds the first after `arm()`.
        func pass() async {
            await withCheckedContinuation { continuation in
                let hold = state.withLockedValue { state -> Bool in
                    guard case .armed = state else { return false }
                    state = .holding(continuation)
                    return true
                }
                if !hold { continuation.resume() }
            }
        }
    }

    /// Alice opens a quick-match room, and bob's quick match joins it while her command, saved,
    /// has not been answered yet (held once saved): she must still hear of her room
    /// before the match into it. Pushed the other way round, a load run found owners sure they
    /// were still waiting in rooms they had been matched out of (the rooms' requests take turns).
    @Test func theRoomIsPushedBeforeTheMatchIntoIt() async throws {
        let harness = try await Harness()
        let (alice, aliceInbox, aliceConnection) = try await harness.fighter("alice")
        let (bob, bobInbox, bobConnection) = try await harness.fighter("bob")
        let hub = harness.hub

        harness.gate.arm()
        async let opening = hub.handle(.quickMatch, by: alice, ref: 1, connection: aliceConnection)
        for _ in 0..<6_000 where !harness.gate.isHolding { try await Task.sleep(for: .milliseconds(10)) }
        try #require(harness.gate.isHolding, "alice's quick match never reached the database")
        async let joining = hub.handle(.quickMatch, by: bob, ref: 2, connection: bobConnection)
        // Bob's request waits its turn behind alice's; had it not, its match would be pushed now.
        for _ in 0..<6_000 {
            if hub.turns.withLockedValue({ $0.waitingCount(over: .rooms) }) == 1 || aliceInbox.kinds.contains(.matched) {
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        harness.gate.release()
        _ = await (opening, joining)
        try await aliceInbox.wait("her room and the match") { $0.contains(.openedRoom) && $0.contains(.matched) }
        #expect(aliceInbox.kinds.filter { [.openedRoom, .matched].contains($0) } == [.openedRoom, .matched])
        try await bobInbox.wait("the match") { $0.contains(.matched) }
        try await harness.stop()
    }

    /// Alice's punch sent twice at once on one wind-up (a client resending it): it lands once, and
    /// bob hears of it once; the other is refused.
    @Test func aPunchSentTwiceLandsOnce() async throws {
        let harness = try await Harness()
        let (alice, aliceInbox, aliceConnection) = try await harness.fighter("alice")
        let (bob, bobInbox, _) = try await harness.fighter("bob")
        let hub = harness.hub
        #expect(await hub.handle(.challenge(OpponentRef(opponent: bob)), by: alice, ref: 1, connection: nil) == nil)
        let fight = FightID(1)
        #expect(await hub.handle(.accept(FightRef(fight: fight)), by: bob, ref: 2, connection: nil) == nil)
        try await aliceInbox.wait("the acceptance") { $0.contains(.accepted) }

        let wound = await hub.handle(
            .windUp(WindUpRequest(fight: fight, after: 2)), by: alice, ref: 3, connection: aliceConnection)
        guard case .meter = wound?.body else { throw TestFailure("wind-up refused: \(String(describing: wound))") }
        harness.clock.advance(milliseconds: 500)
        let punch = ClientRequest.punch(PunchRequest(fight: fight, kind: .jab, after: 2))
        async let first = hub.handle(punch, by: alice, ref: 4, connection: aliceConnection)
        async let second = hub.handle(punch, by: alice, ref: 5, connection: aliceConnection)
        let answers = await [first, second]
        // One answered by its event pushed (nil), the other by a refusal.
        #expect(answers.filter { $0 == nil }.count == 1, "\(answers)")
        #expect(answers.compactMap { $0?.body }.allSatisfy { if case .error = $0 { true } else { false } })
        try await bobInbox.wait("the punch") { $0.contains(.punched) }
        // Anything else pushed would come after the turn's next event; the turn is bob's now.
        #expect(await hub.handle(.forfeit(FightRef(fight: fight)), by: bob, ref: 6, connection: nil) == nil)
        try await bobInbox.wait("the end") { $0.contains(.ended) }
        #expect(bobInbox.kinds.filter { $0 == .punched }.count == 1)
        #expect(aliceInbox.kinds.filter { $0 == .punched }.count == 1)
        try await harness.stop()
    }

    /// A request waiting its turn behind another of the same fight, whose task is cancelled (its
    /// connection's task ended), throws `CancellationError` and leaves its place: the next one
    /// runs when the first is done.
    @Test func aRequestCancelledWhileWaitingItsTurnLeavesItsPlace() async throws {
        let harness = try await Harness()
        let hub = harness.hub
        let (released, release) = AsyncStream<Void>.makeStream()
        let (started, start) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await hub.takingTurns(over: .rooms) {
                start.yield()
                for await _ in released { break }
            }
        }
        for await _ in started { break }
        let waiting = Task { try await hub.takingTurns(over: .rooms) { "ran" } }
        for _ in 0..<6_000 where hub.turns.withLockedValue({ $0.waitingCount(over: .rooms) }) == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(hub.turns.withLockedValue { $0.waitingCount(over: .rooms) } == 0)
        let third = Task { try await hub.takingTurns(over: .rooms) { "third" } }
        for _ in 0..<6_000 where hub.turns.withLockedValue({ $0.waitingCount(over: .rooms) }) == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        release.yield()
        try await first.value
        #expect(try await third.value == "third")
        #expect(!hub.turns.withLockedValue { $0.isBusy(.rooms) })
        try await harness.stop()
    }
}
