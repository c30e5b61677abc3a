import FightEngine
import FightStoreTestSupport
import Foundation
import Testing

@testable import FightStore

/// What several servers' stores on one database share besides the log (issue 30): the changes
/// each commits, told to the others; leases, which decide whose start resumes turns; fighters'
/// allowances.
@Suite struct SharedDatabaseStoreTests {
    static let postgres = Testing.ConditionTrait.enabled(
        if: Backend.available.contains(.postgres), "HITTHAT_POSTGRES_URL is not set: no PostgreSQL to share")

    @Test func aFileNobodySharesTellsNothingAndAlwaysResumes() throws {
        let database = try TestDatabase(.sqlite)
        let store = try database.open()
        #expect(store.changes() == nil)
        let a = try store.register("alice"), b = try store.register("bob")
        try store.run(.challenge(a, opponent: b))
        try store.run(.accept(FightID(1), by: b))
        // A lease a crashed run left does not stop a file's one server from resuming: it keeps none.
        guard case .alone(let resumed) = try store.startServing(as: "one", at: start + 5, leaseUntil: start + 20) else {
            throw StoreBackendError("a file's server joined others")
        }
        #expect(resumed.count == 1)
        guard case .alone = try store.startServing(as: "two", at: start + 6, leaseUntil: start + 21) else {
            throw StoreBackendError("a file's second start joined others")
        }
        #expect(try store.liveServers(at: start + 6) == [])
    }

    @Test(postgres) func anotherStoreHearsWhatOneCommitsAndNotItsOwn() async throws {
        let database = try TestDatabase(.postgres)
        let a = try database.open(), b = try database.open()
        let heardByB = try Heard(b), heardByA = try Heard(a)
        try await heardByB.wait("B listening") { $0 == [.resynchronize] }
        try await heardByA.wait("A listening") { $0 == [.resynchronize] }

        let alice = try a.register("alice"), bob = try a.register("bob")
        try a.run(.challenge(alice, opponent: bob))
        try a.run(.accept(FightID(1), by: bob))
        let moved = try a.run(.move(alice, to: Coordinate(latitude: 48.85, longitude: 2.35)))
        try a.run(.punch(FightID(1), by: alice, after: try a.seen(FightID(1)), kind: .jab, damage: 10))
        // Turns lapse while nobody punches: the deadlines of a long absence settled in one command.
        let settled = try a.run(.settleDeadlines, at: start + 10_000)
        try a.closeSession(key: "nobody's", of: alice)  // no such session: nothing to tell
        try a.openSession(SavedSession(key: "k", fighter: alice, createdAt: start))
        try a.closeSession(key: "k", of: alice)
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
        let a = try database.open(), b = try database.open()
        let heard = try Heard(b)
        try await heard.wait("listening") { $0 == [.resynchronize] }
        // The listener's backend ended, as when the server restarts or the network drops it.
        #expect(try a.cutOffListeners() == 1)
        try await heard.wait("listening again") { $0 == [.resynchronize, .resynchronize] }
        let alice = try a.register("alice")
        try a.run(.move(alice, to: Coordinate(latitude: 1, longitude: 2)))
        try await heard.wait("a change after") { $0.count == 3 }
    }

    /// The listener's connection stops answering without closing (its backend frozen, as a
    /// network that drops every packet leaves it): the store notices within two checks, listens
    /// on another, and says so.
    @Test(postgres) func aListenerThatHangsIsReplaced() async throws {
        let database = try TestDatabase(.postgres)
        let a = try database.open()
        let heard = try Heard(a)
        try await heard.wait("listening") { $0 == [.resynchronize] }
        let frozen = try a.listenerProcesses()
        try #require(frozen.count == 1)
        kill(frozen[0], SIGSTOP)
        defer { kill(frozen[0], SIGCONT) }
        try await heard.wait("listening again") { $0 == [.resynchronize, .resynchronize] }
        #expect(try a.listenerProcesses().contains { !frozen.contains($0) })
    }

    /// A PostgreSQL database of its own with one fight under way (alice's turn, sequence 2), its
    /// store, and alice.
    static func fightUnderWay() throws -> (TestDatabase, FightStore, FighterID) {
        let database = try TestDatabase(.postgres)
        let store = try database.open()
        let alice = try store.register("alice"), bob = try store.register("bob")
        try store.run(.challenge(alice, opponent: bob))
        try store.run(.accept(FightID(1), by: bob))
        return (database, store, alice)
    }

    @Test(postgres) func aStartResumesTurnsOnlyWhenNoOtherServerIsServing() throws {
        let (_, store, _) = try Self.fightUnderWay()
        let lease: Int64 = 15

        // The first server: nobody else serves, every turn under way starts afresh.
        guard case .alone(let resumed) = try store.startServing(as: "a", at: start + 10, leaseUntil: start + 10 + lease)
        else { throw StoreBackendError("the first server joined nobody") }
        #expect(resumed.count == 1 && store.isShared)
        // A second while the first's lease is live joins, leaving the turn as it was.
        #expect(try store.startServing(as: "b", at: start + 11, leaseUntil: start + 11 + lease) == .joined(liveServers: 1))
        #expect(try store.fight(FightID(1))?.lastSequence == 3)
        #expect(try store.liveServers(at: start + 11) == ["a", "b"])
        // "a" stops renewing (killed); "b" renews: "a" is gone once its lease has run out.
        try store.renewLease(of: "b", until: start + 30 + lease)
        #expect(try store.startServing(as: "c", at: start + 30, leaseUntil: start + 30 + lease) == .joined(liveServers: 1))
        #expect(try store.liveServers(at: start + 30) == ["b", "c"])
        // Both stop; a server started then finds the cluster was down, and resumes.
        try store.endLease(of: "b")
        try store.endLease(of: "c")
        guard case .alone(let again) = try store.startServing(as: "d", at: start + 31, leaseUntil: start + 31 + lease)
        else { throw StoreBackendError("joined servers that stopped") }
        #expect(again.count == 1)
        #expect(try store.fight(FightID(1))?.lastSequence == 4)
        // Leases that ran out are as good as ended: every server crashed, and one starts later.
        guard case .alone = try store.startServing(as: "e", at: start + 31 + lease, leaseUntil: start + 31 + 2 * lease)
        else { throw StoreBackendError("joined a server whose lease ran out") }
    }

    /// A lone server killed (its lease not given up) and started again within that lease, under
    /// its own name: the lease is its last run's, not another server's, so once that run would
    /// have renewed it and did not, the start is alone and resumes the turns (a `turnPassed` of
    /// no missed turn), where a new run alone found a live lease and joined it.
    @Test(postgres) func aLoneServerRestartedWithinItsLeaseResumesTheTurns() throws {
        let (database, store, alice) = try Self.fightUnderWay()
        let lease: Int64 = 15
        guard case .alone = try store.startServing(as: "run 1", named: "solo", at: start + 10, leaseUntil: start + 25)
        else { throw StoreBackendError("the first run joined nobody") }
        // Killed 2 s later; the new run's store is another connection to the same database.
        let restarted = try database.open()
        let held = ServerLease(server: "run 1", expiresAt: start + 25)
        #expect(
            try restarted.startServing(as: "run 2", named: "solo", at: start + 12, leaseUntil: start + 12 + lease)
                == .nameHeld(held))
        #expect(try restarted.fight(FightID(1))?.lastSequence == 3, "nothing changed while the name is held")
        // Past when "run 1" would have renewed it, the lease is still as it was: replaced.
        guard
            case .alone(let resumed) = try restarted.startServing(
                as: "run 2", named: "solo", at: start + 17, leaseUntil: start + 17 + lease, replacing: held)
        else { throw StoreBackendError("a lone server restarted within its lease joined its own dead run") }
        let passed = resumed.compactMap { event -> Int? in
            guard case .fight(let event) = event, case .turnPassed(let missed, let turn) = event.change else { return nil }
            #expect(turn.fighter == alice)
            return missed
        }
        #expect(passed == [0], "the turn under way starts afresh, nobody charged a missed turn")
        #expect(try restarted.liveServers(at: start + 17) == ["run 2"])
        // The dead run, were it to come back, finds its name taken and keeps no lease.
        #expect(try store.renewLease(of: "run 1", named: "solo", until: start + 18 + lease) == false)
        #expect(try restarted.renewLease(of: "run 2", named: "solo", until: start + 18 + lease))
        #expect(try restarted.liveServers(at: start + 18) == ["run 2"])
    }

    /// Two servers given the same name: the second sees the first's lease renewed while it waits,
    /// and is told the name is held again; it takes nothing. A server of another name still joins.
    @Test(postgres) func aNameAnotherLiveServerRenewsIsNotTakenOver() throws {
        let database = try TestDatabase(.postgres)
        let first = try database.open(), second = try database.open()
        let lease: Int64 = 15
        _ = try first.startServing(as: "run 1", named: "solo", at: start, leaseUntil: start + lease)
        guard
            case .nameHeld(let held) = try second.startServing(
                as: "run 2", named: "solo", at: start + 1, leaseUntil: start + 1 + lease)
        else { throw StoreBackendError("a name held by a live server was taken") }
        #expect(held == ServerLease(server: "run 1", expiresAt: start + lease))
        #expect(try first.renewLease(of: "run 1", named: "solo", until: start + 5 + lease))
        #expect(
            try second.startServing(
                as: "run 2", named: "solo", at: start + 8, leaseUntil: start + 8 + lease, replacing: held)
                == .nameHeld(ServerLease(server: "run 1", expiresAt: start + 5 + lease)))
        #expect(try first.liveServers(at: start + 8) == ["run 1"])
        // Another name, while "solo" is live: joined, the turns left to it.
        #expect(
            try second.startServing(as: "run 3", named: "other", at: start + 9, leaseUntil: start + 9 + lease)
                == .joined(liveServers: 1))
    }

    /// A fighter is connected while some server with a live lease has a connection of theirs:
    /// coming to a second server or leaving one of two tells nobody; leaving the last, or the
    /// lapse of the last one's lease (killed), tells the others once, with when.
    @Test(postgres) func aFighterIsConnectedWhileAnyLiveServerHasThem() async throws {
        let database = try TestDatabase(.postgres)
        let a = try database.open(), b = try database.open()
        let heard = try Heard(b)
        try await heard.wait("listening") { $0 == [.resynchronize] }
        let alice = try a.register("alice")
        let lease: Int64 = 15
        _ = try a.startServing(as: "a", at: start, leaseUntil: start + lease)
        _ = try b.startServing(as: "b", at: start, leaseUntil: start + lease)

        #expect(try a.arrive(alice, on: "a", at: start + 1) == nil, "on no other server")
        #expect(try b.presence(of: alice, besides: "b", at: start + 1) == start + 1)
        #expect(try b.arrive(alice, on: "b", at: start + 2) == start + 1, "on a since she came")
        #expect(try a.leave(alice, from: "a", at: start + 3) == start + 2, "still on b")
        #expect(try b.leave(alice, from: "b", at: start + 4) == nil, "gone")
        #expect(try a.presence(of: alice, besides: "a", at: start + 4) == nil)

        // Back on a, which is then killed: its lease lapses, and b forgets a's connections.
        _ = try a.arrive(alice, on: "a", at: start + 5)
        try b.renewLease(of: "b", until: start + 20 + lease)
        #expect(try b.sweepLapsedServers(at: start + 14) == [], "a's lease is live")
        #expect(try b.presence(of: alice, besides: "b", at: start + 16) == nil, "a's lease lapsed at 15")
        #expect(try b.sweepLapsedServers(at: start + 16) == [alice])
        #expect(try b.sweepLapsedServers(at: start + 17) == [], "told once")
        #expect(try b.liveServers(at: start + 17) == ["b"])

        // b hears a's announcements, not its own (the last gone was b's sweep).
        let expected: [StoreChange] = [
            .resynchronize, .presence(alice, connected: true, since: start + 1),
            .presence(alice, connected: true, since: start + 5),
        ]
        try await heard.wait("a's announcements") { $0.count >= expected.count }
        #expect(heard.changes == expected)
        let heardByA = try Heard(a)
        try await heardByA.wait("a listening") { $0 == [.resynchronize] }
        _ = try b.arrive(alice, on: "b", at: start + 18)
        _ = try b.leave(alice, from: "b", at: start + 19)
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
        let a = try database.open(), b = try database.open()
        let lease: Int64 = 15
        _ = try a.startServing(as: "a", at: start, leaseUntil: start + lease)
        _ = try b.startServing(as: "b", at: start, leaseUntil: start + lease)
        let alice = FighterID(1), bob = FighterID(2), carol = FighterID(3)
        _ = try b.arrive(alice, on: "b", at: start + 1)
        _ = try a.arrive(carol, on: "a", at: start + 1)
        let heard = try Heard(b)
        try await heard.wait("listening") { $0 == [.resynchronize] }

        let elsewhere = try a.notePresence(
            [
                PresenceChange(alice, connected: true, at: start + 2),
                PresenceChange(bob, connected: true, at: start + 3),
                PresenceChange(carol, connected: false, at: start + 4),
            ], on: "a")
        #expect(elsewhere == [alice: start + 1], "alice is on b; bob and carol on no other server")
        #expect(try b.presence(of: bob, besides: "b", at: start + 5) == start + 3)
        #expect(try b.presence(of: carol, besides: "b", at: start + 5) == nil)
        try await heard.wait("a's announcements") { $0.count >= 3 }
        #expect(
            heard.changes == [
                .resynchronize, .presence(bob, connected: true, since: start + 3),
                .presence(carol, connected: false, since: start + 4),
            ])

        // More than one statement's worth, in and then out; a's lease lapses and b forgets them all.
        let many = (100..<(100 + Int64(FightStore.largestBatch) + 10)).map { FighterID($0) }
        #expect(try a.notePresence(many.map { PresenceChange($0, connected: true, at: start + 6) }, on: "a") == [:])
        #expect(try b.presence(of: many.last!, besides: "b", at: start + 7) == start + 6)
        try b.renewLease(of: "b", until: start + 20 + lease)
        #expect(try b.sweepLapsedServers(at: start + 16).count == many.count + 1, "and bob")
    }

    /// Two servers' writers: a fight of other fighters, and a quick match, are written while one
    /// fight's transaction is open; a fight of one of its fighters waits for it, as does a
    /// command that may change anyone. Two fights that end at once both count on the overall line: the second to add to
    /// it waits for the first to commit, and adds to what that saved.
    @Test(postgres) func fightsOfOtherFightersAreWrittenSideBySide() throws {
        let database = try TestDatabase(.postgres)
        let one = try database.open(), other = try database.open()
        let a = try one.register("alice"), b = try one.register("bob"), c = try one.register("carol")
        let d = try one.register("dave"), e = try one.register("erin")
        let ab = FightID(1), cd = FightID(2), ae = FightID(3)
        for (challenger, opponent, fight) in [(a, b, ab), (c, d, cd), (a, e, ae)] {
            try one.run(.challenge(challenger, opponent: opponent))
            try one.run(.accept(fight, by: opponent))
        }
        /// Runs `command` on `one` in a transaction kept open until `release` is signalled.
        func holding(_ command: Command, release: DispatchSemaphore) -> InThread<Result<[Event], Refusal>> {
            let applied = DispatchSemaphore(value: 0)
            let held = InThread {
                try one.database.write(FightStore.scope(of: command)) { db in
                    let outcome = try one.apply(command, at: start + 1, in: db)
                    applied.signal()
                    release.wait()
                    return outcome
                }
            }
            applied.wait()
            return held
        }
        func expectDone(_ threads: [(InThread<Result<[Event], Refusal>>, String)]) throws {
            for (thread, what) in threads {
                #expect(thread.finished(within: .seconds(10)), "\(what)")
                #expect(try !#require(thread.result).get().get().isEmpty, "\(what)")
            }
        }

        let release = DispatchSemaphore(value: 0)
        let punch = holding(.punch(ab, by: a, after: 2, kind: .jab, damage: 7), release: release)
        let beside = InThread { try other.execute(.punch(cd, by: c, after: try other.seen(cd), kind: .jab, damage: 7), at: start + 1) }
        #expect(beside.finished(within: .seconds(10)), "another pair's fight waited")
        let room = InThread { try other.execute(.quickMatch(e), at: start + 1) }
        #expect(room.finished(within: .seconds(10)), "a quick match waited")
        let sameFighter = InThread { try other.execute(.forfeit(ae, by: a), at: start + 1) }
        let anyone = InThread { try other.execute(.move(e, to: Coordinate(latitude: 1, longitude: 2)), at: start + 1) }
        #expect(!sameFighter.finished(within: .milliseconds(300)), "alice's other fight did not wait")
        #expect(!anyone.finished(within: .milliseconds(1)), "a command that may change anyone did not wait")
        release.signal()
        try expectDone([
            (punch, "punch"), (beside, "beside"), (room, "room"), (sameFighter, "same fighter"), (anyone, "anyone"),
        ])

        let secondRelease = DispatchSemaphore(value: 0)
        let ending = holding(.forfeit(ab, by: b), release: secondRelease)
        let endingBeside = InThread { try other.execute(.forfeit(cd, by: d), at: start + 2) }
        #expect(!endingBeside.finished(within: .milliseconds(300)), "the overall line was added to twice at once")
        secondRelease.signal()
        try expectDone([(ending, "ending"), (endingBeside, "ending beside")])
        let saved = try other.statistics()
        #expect(saved[.overall].qtyBattles == 3)
        #expect(saved[.fighter(a)].qtyBattles == 2)
        #expect(try other.rebuildStatistics() == saved)
    }

    /// What a server following fights reads after hearing of many at once: each fight's events
    /// after its own sequence, in order, with its corners; fights with nothing new are missing,
    /// and more fights than one statement names are read in several.
    @Test(arguments: Backend.available)
    func theNewEventsOfManyFightsAreReadAfterEachOnesSequence(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let store = try database.open()
        let a = try store.register("alice"), b = try store.register("bob"), c = try store.register("carol")
        let ab = FightID(1), cb = FightID(2)
        try store.run(.challenge(a, opponent: b))
        try store.run(.challenge(c, opponent: b))
        try store.run(.accept(ab, by: b))
        try store.run(.punch(ab, by: a, after: try store.seen(ab), kind: .jab, damage: 7), at: start + 1)
        try store.run(.accept(cb, by: b))
        // Unknown fights between the two, so that fight 2 is read in a second statement.
        let unknown = (3..<Int64(3 + FightStore.largestBatch / 2)).map { (FightID($0), 0) }
        let news = try store.events(after: Dictionary(uniqueKeysWithValues: [(ab, 1), (cb, 0)] + unknown))
        #expect(news.keys.sorted() == [ab, cb])
        #expect(news[ab]?.corners == Both(a, b))
        #expect(news[ab]?.events.map(\.sequence) == [2, 3])
        #expect(news[ab]?.events == (try store.events(ofFight: ab, after: 1)))
        #expect(news[cb]?.corners == Both(c, b))
        #expect(news[cb]?.events.map(\.sequence) == [1, 2])
        #expect(try store.events(after: [ab: 3, cb: 2]).isEmpty)
    }

    @Test(arguments: Backend.available)
    func anAllowanceIsOneBucketPerFighterAndKind(backend: Backend) throws {
        let database = try TestDatabase(backend)
        let one = try database.open(), other = try database.open()
        let alice = FighterID(1), bob = FighterID(2)
        func take(_ store: FightStore, _ fighter: FighterID, _ kind: String = "messages", cost: Int = 1, at ms: Int64)
            throws -> Bool
        {
            try store.takeAllowance(
                kind, of: fighter, wanting: cost, atLeast: cost, perSecond: 2, burst: 10, at: .milliseconds(ms)) == cost
        }
        let t: Int64 = 1_800_000_000_000
        // Ten at once through two stores, alternately: one bucket, so the eleventh is refused.
        let taken = try (0..<14).filter { try take($0.isMultiple(of: 2) ? one : other, alice, at: t) }
        #expect(taken.count == 10)
        #expect(try take(one, bob, at: t), "bob's bucket is his own")
        #expect(try take(one, alice, "motion", cost: 10, at: t), "another kind is another bucket")
        #expect(try !take(one, alice, "motion", at: t))
        // Two a second come back: after 1.5 s, three (and no more).
        #expect(try (0..<5).filter { _ in try take(other, alice, at: t + 1_500) }.count == 3)
        // A clock that reads earlier refills nothing; later ones go on from the latest reading.
        #expect(try !take(one, alice, at: t))
        #expect(try take(one, alice, at: t + 2_000))
        // More than the burst at once is never allowed.
        #expect(try !take(one, bob, "motion", cost: 11, at: t + 60_000))
        // Taking ahead: all that is wanted when the bucket holds it, else the whole tokens it
        // holds when they are at least enough, else nothing.
        func takeAhead(wanting want: Int, atLeast: Int, at ms: Int64) throws -> Int {
            try other.takeAllowance(
                "ahead", of: alice, wanting: want, atLeast: atLeast, perSecond: 2, burst: 10, at: .milliseconds(ms))
        }
        #expect(try takeAhead(wanting: 4, atLeast: 1, at: t) == 4)
        #expect(try takeAhead(wanting: 4, atLeast: 1, at: t) == 4)
        #expect(try takeAhead(wanting: 4, atLeast: 3, at: t) == 0, "two left, three needed")
        #expect(try takeAhead(wanting: 4, atLeast: 1, at: t + 250) == 2, "2.5 held: the two whole ones")
        #expect(try takeAhead(wanting: 1, atLeast: 1, at: t + 500) == 1, "the half left and half a token more")
    }
}

/// Work on a thread of its own, waited for with a timeout: a store's calls block their thread,
/// and a test that waits for one that is stuck must fail, not hang.
final class InThread<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Set once before `done` is signalled; read only after.
    private(set) var result: Result<T, any Error>?

    init(_ work: @escaping @Sendable () throws -> T) {
        Thread {
            self.result = Result { try work() }
            self.done.signal()
        }.start()
    }

    /// Whether the work finished within `timeout` (or had already).
    func finished(within timeout: Duration) -> Bool {
        if result != nil { return true }
        let nanoseconds = Int(timeout.components.seconds) * 1_000_000_000 + Int(timeout.components.attoseconds / 1_000_000_000)
        guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { return false }
        done.signal()  // for the next call
        return true
    }
}

/// Every change a store hears, kept as it comes.
final class Heard: @unchecked Sendable {
    /// Guards `heard` (a pthread mutex, which ThreadSanitizer sees).
    private let lock = NSLock()
    private var heard: [StoreChange] = []
    private var listening: Task<Void, Never>?

    init(_ store: FightStore) throws {
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
    fileprivate func arrive(_ fighter: FighterID, on server: String, at time: Timestamp) throws -> Timestamp? {
        try notePresence([PresenceChange(fighter, connected: true, at: time)], on: server)[fighter]
    }

    /// One fighter's leaving `server`, noted as a batch of one.
    fileprivate func leave(_ fighter: FighterID, from server: String, at time: Timestamp) throws -> Timestamp? {
        try notePresence([PresenceChange(fighter, connected: false, at: time)], on: server)[fighter]
    }
}
