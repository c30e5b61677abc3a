import FightEngine
import FightStoreTestSupport
import Foundation
import Testing

@testable import FightStore

/// What several servers' stores on one database share besides the log (issue 30): the changes
/// each commits, told to the others; presence; fighters' allowances. Leases, which decide whose
/// start resumes turns, are `ServerLeaseStoreTests`'.
@Suite struct SharedDatabaseStoreTests {
    static let postgres = Testing.ConditionTrait.enabled(
        if: Backend.available.contains(.postgres), "HITTHAT_POSTGRES_URL is not set: no PostgreSQL to share")

    @Test func aFileNobodySharesTellsNothingAndAlwaysResumes() async throws {
        let database = try TestDatabase(.sqlite)
        let store = try await database.open()
        #expect(store.changes() == nil)
        let a = try await store.register("alice"), b = try await store.register("bob")
        try await store.run(.challenge(a, opponent: b))
        try await store.run(.accept(FightID(1), by: b))
        // A lease a crashed run left does not stop a file's one server from resuming: it keeps none.
        guard case .alone(let resumed) = try await store.startServing(as: "one", at: start + 5, leaseUntil: start + 20) else {
            throw StoreBackendError("a file's server joined others")
        }
        #expect(resumed.count == 1)
        guard case .alone = try await store.startServing(as: "two", at: start + 6, leaseUntil: start + 21) else {
            throw StoreBackendError("a file's second start joined others")
        }
        #expect(try await store.liveServers(at: start + 6) == [])
    }

    @Test(postgres) func anotherStoreHearsWhatOneCommitsAndNotItsOwn() async throws {
        let database = try TestDatabase(.postgres)
        let a = try await database.open(), b = try await database.open()
        let heardByB = try await Heard(b), heardByA = try await Heard(a)
        try await heardByB.wait("B listening") { $0 == [.resynchronize] }
        try await heardByA.wait("A listening") { $0 == [.resynchronize] }

        let alice = try await a.register("alice"), bob = try await a.register("bob")
        try await a.run(.challenge(alice, opponent: bob))
        try await a.run(.accept(FightID(1), by: bob))
        let moved = try await a.run(.move(alice, to: Coordinate(latitude: 48.85, longitude: 2.35)))
        try await a.run(.punch(FightID(1), by: alice, after: try await a.seen(FightID(1)), kind: .jab, damage: 10))
        // Turns lapse while nobody punches: the deadlines of a long absence settled in one command.
        let settled = try await a.run(.settleDeadlines, at: start + 10_000)
        try await a.closeSession(key: "nobody's", of: alice)  // no such session: nothing to tell
        try await a.openSession(SavedSession(key: "k", fighter: alice, createdAt: start))
        try await a.closeSession(key: "k", of: alice)
        guard case .fighter(let movedEvent) = try #require(moved.first) else { throw StoreBackendError("not moved") }
        let sequences = settled.compactMap { if case .fight(let event) = $0 { event.sequence } else { nil } }
        #expect(sequences.first == 4 && sequences.count == settled.count)

        let expected: [StoreChange] = [
            .resynchronize, .fight(FightID(1), first: 1, last: 1), .fight(FightID(1), first: 2, last: 2),
            .fighter(movedEvent), .fight(FightID(1), first: 3, last: 3),
            .fight(FightID(1), first: 4, last: try #require(sequences.last)),
            .sessionEnded(key: "k", fighter: alice),
        ]
        try await heardByB.wait("A's changes") { $0.count >= expected.count }
        #expect(heardByB.changes == expected)
        #expect(heardByA.changes == [.resynchronize], "a store does not hear itself")
    }

    @Test(postgres) func aListenerCutOffListensAgainAndSaysSo() async throws {
        let database = try TestDatabase(.postgres)
        let a = try await database.open(), b = try await database.open()
        let heard = try await Heard(b)
        try await heard.wait("listening") { $0 == [.resynchronize] }
        // The listener's backend ended, as when the server restarts or the network drops it.
        #expect(try await a.cutOffListeners() == 1)
        try await heard.wait("listening again") { $0 == [.resynchronize, .resynchronize] }
        let alice = try await a.register("alice")
        try await a.run(.move(alice, to: Coordinate(latitude: 1, longitude: 2)))
        try await heard.wait("a change after") { $0.count == 3 }
    }

    /// The listener's connection stops answering without closing (its backend frozen, as a
    /// network that drops every packet leaves it): the store notices within two checks, listens
    /// on another, and says so.
    @Test(postgres) func aListenerThatHangsIsReplaced() async throws {
        let database = try TestDatabase(.postgres)
        let a = try await database.open()
        let heard = try await Heard(a)
        try await heard.wait("listening") { $0 == [.resynchronize] }
        let frozen = try await a.listenerProcesses()
        try #require(frozen.count == 1)
        kill(frozen[0], SIGSTOP)
        defer { kill(frozen[0], SIGCONT) }
        try await heard.wait("listening again") { $0 == [.resynchronize, .resynchronize] }
        #expect(try await a.listenerProcesses().contains { !frozen.contains($0) })
    }

    /// A fighter is connected while some server with a live lease has a connection of theirs:
    /// coming to a second server or leaving one of two tells nobody; leaving the last, or the
    /// lapse of the last one's lease (killed), tells the others once, with when.
    @Test(postgres) func aFighterIsConnectedWhileAnyLiveServerHasThem() async throws {
        let database = try TestDatabase(.postgres)
        let a = try await database.open(), b = try await database.open()
        let heard = try await Heard(b)
        try await heard.wait("listening") { $0 == [.resynchronize] }
        let alice = try await a.register("alice")
        let lease: Int64 = 15
        _ = try await a.startServing(as: "a", at: start, leaseUntil: start + lease)
        _ = try await b.startServing(as: "b", at: start, leaseUntil: start + lease)

        #expect(try await a.arrive(alice, on: "a", at: start + 1) == nil, "on no other server")
        #expect(try await b.presence(of: alice, besides: "b", at: start + 1) == start + 1)
        #expect(try await b.arrive(alice, on: "b", at: start + 2) == start + 1, "on a since she came")
        #expect(try await a.leave(alice, from: "a", at: start + 3) == start + 2, "still on b")
        #expect(try await b.leave(alice, from: "b", at: start + 4) == nil, "gone")
        #expect(try await a.presence(of: alice, besides: "a", at: start + 4) == nil)

        // Back on a, which is then killed: its lease lapses, and b forgets a's connections.
        _ = try await a.arrive(alice, on: "a", at: start + 5)
        try await b.renewLease(of: "b", until: start + 20 + lease)
        #expect(try await b.sweepLapsedServers(at: start + 14) == [], "a's lease is live")
        #expect(try await b.presence(of: alice, besides: "b", at: start + 16) == nil, "a's lease lapsed at 15")
        #expect(try await b.sweepLapsedServers(at: start + 16) == [alice])
        #expect(try await b.sweepLapsedServers(at: start + 17) == [], "told once")
        #expect(try await b.liveServers(at: start + 17) == ["b"])

        // b hears a's announcements, not its own (the last gone was b's sweep).
        let expected: [StoreChange] = [
            .resynchronize, .presence(alice, connected: true, since: start + 1),
            .presence(alice, connected: true, since: start + 5),
        ]
        try await heard.wait("a's announcements") { $0.count >= expected.count }
        #expect(heard.changes == expected)
        let heardByA = try await Heard(a)
        try await heardByA.wait("a listening") { $0 == [.resynchronize] }
        _ = try await b.arrive(alice, on: "b", at: start + 18)
        _ = try await b.leave(alice, from: "b", at: start + 19)
        try await heardByA.wait("b's announcements") { $0.count >= 3 }
        #expect(
            heardByA.changes == [
                .resynchronize, .presence(alice, connected: true, since: start + 18),
                .presence(alice, connected: false, since: start + 19),
            ])
    }

    /// The comings and goings of many fighters are noted in one call, as a server notes a batch
    /// of them: each fighter's presence elsewhere is given, and only those on no other server
    /// are announced, each with their own time. More fighters than one statement names are
    /// noted all the same.
    @Test(postgres) func aBatchOfComingsAndGoingsIsNotedInOneCall() async throws {
        let database = try TestDatabase(.postgres)
        let a = try await database.open(), b = try await database.open()
        let lease: Int64 = 15
        _ = try await a.startServing(as: "a", at: start, leaseUntil: start + lease)
        _ = try await b.startServing(as: "b", at: start, leaseUntil: start + lease)
        let alice = FighterID(1), bob = FighterID(2), carol = FighterID(3)
        _ = try await b.arrive(alice, on: "b", at: start + 1)
        _ = try await a.arrive(carol, on: "a", at: start + 1)
        let heard = try await Heard(b)
        try await heard.wait("listening") { $0 == [.resynchronize] }

        let elsewhere = try await a.notePresence(
            [
                PresenceChange(alice, connected: true, at: start + 2),
                PresenceChange(bob, connected: true, at: start + 3),
                PresenceChange(carol, connected: false, at: start + 4),
            ], on: "a")
        #expect(elsewhere == [alice: start + 1], "alice is on b; bob and carol on no other server")
        #expect(try await b.presence(of: bob, besides: "b", at: start + 5) == start + 3)
        #expect(try await b.presence(of: carol, besides: "b", at: start + 5) == nil)
        try await heard.wait("a's announcements") { $0.count >= 3 }
        #expect(
            heard.changes == [
                .resynchronize, .presence(bob, connected: true, since: start + 3),
                .presence(carol, connected: false, since: start + 4),
            ])

        // More than one statement's worth, in and then out; a's lease lapses and b forgets them all.
        let many = (100..<(100 + Int64(FightStore.largestBatch) + 10)).map { FighterID($0) }
        #expect(try await a.notePresence(many.map { PresenceChange($0, connected: true, at: start + 6) }, on: "a") == [:])
        #expect(try await b.presence(of: many.last!, besides: "b", at: start + 7) == start + 6)
        try await b.renewLease(of: "b", until: start + 20 + lease)
        #expect(try await b.sweepLapsedServers(at: start + 16).count == many.count + 1, "and bob")
    }

    /// Two servers' writers: a fight of other fighters, and a quick match, are written while one
    /// fight's transaction is open; a fight of one of its fighters waits for it, as does a
    /// command that may change anyone. Two fights that end at once both count on the overall line: the second to add to
    /// it waits for the first to commit, and adds to what that saved.
    @Test(postgres) func fightsOfOtherFightersAreWrittenSideBySide() async throws {
        let database = try TestDatabase(.postgres)
        let one = try await database.open(), other = try await database.open()
        let a = try await one.register("alice"), b = try await one.register("bob"), c = try await one.register("carol")
        let d = try await one.register("dave"), e = try await one.register("erin")
        let ab = FightID(1), cd = FightID(2), ae = FightID(3)
        for (challenger, opponent, fight) in [(a, b, ab), (c, d, cd), (a, e, ae)] {
            try await one.run(.challenge(challenger, opponent: opponent))
            try await one.run(.accept(fight, by: opponent))
        }
        /// Runs `command` on `one` in a transaction kept open until `release` opens.
        func holding(_ command: Command, release: Gate) async throws -> InTask<Result<[Event], Refusal>> {
            #if PostgreSQL
                let postgres = try #require(one.database as? PostgresDatabase)
                let applied = Gate()
                let held = InTask {
                    try await postgres.execute(
                        [command], scope: FightStore.scope(of: command), at: start + 1, referee: one.referee,
                        beforeCommit: {
                            await applied.open()
                            await release.wait()
                        })[0]
                }
                await applied.wait()
                return held
            #else
                throw StoreBackendError("built without PostgreSQL")
            #endif
        }
        func expectDone(_ tasks: [(InTask<Result<[Event], Refusal>>, String)]) async throws {
            for (task, what) in tasks {
                #expect(await task.finished(within: .seconds(10)), "\(what)")
                #expect(try !#require(task.result).get().get().isEmpty, "\(what)")
            }
        }

        let release = Gate()
        let punch = try await holding(.punch(ab, by: a, after: 2, kind: .jab, damage: 7), release: release)
        let beside = InTask { try await other.execute(.punch(cd, by: c, after: try await other.seen(cd), kind: .jab, damage: 7), at: start + 1) }
        #expect(await beside.finished(within: .seconds(10)), "another pair's fight waited")
        let room = InTask { try await other.execute(.quickMatch(e), at: start + 1) }
        #expect(await room.finished(within: .seconds(10)), "a quick match waited")
        let sameFighter = InTask { try await other.execute(.forfeit(ae, by: a), at: start + 1) }
        let anyone = InTask { try await other.execute(.move(e, to: Coordinate(latitude: 1, longitude: 2)), at: start + 1) }
        #expect(await !sameFighter.finished(within: .milliseconds(300)), "alice's other fight did not wait")
        #expect(await !anyone.finished(within: .milliseconds(1)), "a command that may change anyone did not wait")
        await release.open()
        try await expectDone([
            (punch, "punch"), (beside, "beside"), (room, "room"), (sameFighter, "same fighter"), (anyone, "anyone"),
        ])

        let secondRelease = Gate()
        let ending = try await holding(.forfeit(ab, by: b), release: secondRelease)
        let endingBeside = InTask { try await other.execute(.forfeit(cd, by: d), at: start + 2) }
        #expect(await !endingBeside.finished(within: .milliseconds(300)), "the overall line was added to twice at once")
        await secondRelease.open()
        try await expectDone([(ending, "ending"), (endingBeside, "ending beside")])
        let saved = try await other.statistics()
        #expect(saved[.overall].qtyBattles == 3)
        #expect(saved[.fighter(a)].qtyBattles == 2)
        #expect(try await other.rebuildStatistics() == saved)
    }

    /// What a server following fights reads after hearing of many at once: each fight's events
    /// after its own sequence, in order, with its corners; fights with nothing new are missing,
    /// and more fights than one statement names are read in several.
    @Test(arguments: Backend.available)
    func theNewEventsOfManyFightsAreReadAfterEachOnesSequence(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let a = try await store.register("alice"), b = try await store.register("bob"), c = try await store.register("carol")
        let ab = FightID(1), cb = FightID(2)
        try await store.run(.challenge(a, opponent: b))
        try await store.run(.challenge(c, opponent: b))
        try await store.run(.accept(ab, by: b))
        try await store.run(.punch(ab, by: a, after: try await store.seen(ab), kind: .jab, damage: 7), at: start + 1)
        try await store.run(.accept(cb, by: b))
        // Unknown fights between the two, so that fight 2 is read in a second statement.
        let unknown = (3..<Int64(3 + FightStore.largestBatch / 2)).map { (FightID($0), 0) }
        let news = try await store.events(after: Dictionary(uniqueKeysWithValues: [(ab, 1), (cb, 0)] + unknown))
        #expect(news.keys.sorted() == [ab, cb])
        #expect(news[ab]?.corners == Both(a, b))
        #expect(news[ab]?.events.map(\.sequence) == [2, 3])
        #expect(news[ab]?.events == (try await store.events(ofFight: ab, after: 1)))
        #expect(news[cb]?.corners == Both(c, b))
        #expect(news[cb]?.events.map(\.sequence) == [1, 2])
        #expect(try await store.events(after: [ab: 3, cb: 2]).isEmpty)
    }

    @Test(arguments: Backend.available)
    func anAllowanceIsOneBucketPerFighterAndKind(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let one = try await database.open(), other = try await database.open()
        let alice = FighterID(1), bob = FighterID(2)
        func take(_ store: FightStore, _ fighter: FighterID, _ kind: String = "messages", cost: Int = 1, at ms: Int64)
            async throws -> Bool
        {
            try await store.takeAllowance(
                kind, of: fighter, wanting: cost, atLeast: cost, perSecond: 2, burst: 10, at: .milliseconds(ms)) == cost
        }
        let t: Int64 = 1_800_000_000_000
        // Ten at once through two stores, alternately: one bucket, so the eleventh is refused.
        var taken = 0
        for n in 0..<14 where try await take(n.isMultiple(of: 2) ? one : other, alice, at: t) { taken += 1 }
        #expect(taken == 10)
        #expect(try await take(one, bob, at: t), "bob's bucket is his own")
        #expect(try await take(one, alice, "motion", cost: 10, at: t), "another kind is another bucket")
        #expect(try await !take(one, alice, "motion", at: t))
        // Two a second come back: after 1.5 s, three (and no more).
        var refilled = 0
        for _ in 0..<5 where try await take(other, alice, at: t + 1_500) { refilled += 1 }
        #expect(refilled == 3)
        // A clock that reads earlier refills nothing; later ones go on from the latest reading.
        #expect(try await !take(one, alice, at: t))
        #expect(try await take(one, alice, at: t + 2_000))
        // More than the burst at once is never allowed.
        #expect(try await !take(one, bob, "motion", cost: 11, at: t + 60_000))
        // Taking ahead: all that is wanted when the bucket holds it, else the whole tokens it
        // holds when they are at least enough, else nothing.
        func takeAhead(wanting want: Int, atLeast: Int, at ms: Int64) async throws -> Int {
            try await other.takeAllowance(
                "ahead", of: alice, wanting: want, atLeast: atLeast, perSecond: 2, burst: 10, at: .milliseconds(ms))
        }
        #expect(try await takeAhead(wanting: 4, atLeast: 1, at: t) == 4)
        #expect(try await takeAhead(wanting: 4, atLeast: 1, at: t) == 4)
        #expect(try await takeAhead(wanting: 4, atLeast: 3, at: t) == 0, "two left, three needed")
        #expect(try await takeAhead(wanting: 4, atLeast: 1, at: t + 250) == 2, "2.5 held: the two whole ones")
        #expect(try await takeAhead(wanting: 1, atLeast: 1, at: t + 500) == 1, "the half left and half a token more")
    }
}

/// Work run in a task of its own, whose end a test can wait for a while.
final class InTask<T: Sendable>: @unchecked Sendable {
    /// Guards `outcome` (a pthread mutex, which ThreadSanitizer sees).
    private let lock = NSLock()
    private var outcome: Result<T, any Error>?

    init(_ work: @escaping @Sendable () async throws -> T) {
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            self.lock.withLock { self.outcome = outcome }
        }
    }

    /// How the work ended, if it has.
    var result: Result<T, any Error>? { lock.withLock { outcome } }

    /// Whether the work finished within `timeout` (or had already), looked at every few
    /// milliseconds.
    func finished(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while result == nil {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

/// Closed until opened; those waiting for it go on once it is.
actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }

    func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// Every change a store hears, kept as it comes.
final class Heard: @unchecked Sendable {
    /// Guards `heard` (a pthread mutex, which ThreadSanitizer sees).
    private let lock = NSLock()
    private var heard: [StoreChange] = []
    private var listening: Task<Void, Never>?

    init(_ store: FightStore) async throws {
        let changes = try #require(store.changes())
        listening = Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                self.lock.withLock { self.heard.append(change) }
            }
        }
    }

    deinit { listening?.cancel() }

    var changes: [StoreChange] { lock.withLock { heard } }

    /// Waits (up to a minute: a guard against hanging) until `done` says the changes so far are
    /// enough. Long, because the task that takes the changes runs on Swift's shared threads, which
    /// this target's synchronous tests hold for many seconds at a time on two cores (a test of a
    /// few milliseconds was seen to finish after 17 s).
    func wait(_ what: String, until done: ([StoreChange]) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !done(changes) {
            guard ContinuousClock.now < deadline else { throw StoreBackendError("timed out waiting for \(what): \(changes)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

extension FightStore {
    /// One fighter's coming to `server`, noted as a batch of one.
    fileprivate func arrive(_ fighter: FighterID, on server: String, at time: Timestamp) async throws -> Timestamp? {
        try await notePresence([PresenceChange(fighter, connected: true, at: time)], on: server)[fighter]
    }

    /// One fighter's leaving `server`, noted as a batch of one.
    fileprivate func leave(_ fighter: FighterID, from server: String, at time: Timestamp) async throws -> Timestamp? {
        try await notePresence([PresenceChange(fighter, connected: false, at: time)], on: server)[fighter]
    }
}
