import FightEngine
import FightStoreTestSupport
import Testing

@testable import FightStore

/// Servers' leases on one PostgreSQL database (issues 30 and 42): whose start resumes the turns,
/// and a name kept over a server's restarts, told from another live server's.
@Suite struct ServerLeaseStoreTests {
    /// A PostgreSQL database of its own with one fight under way (alice's turn, sequence 2), its
    /// store, and alice.
    static func fightUnderWay() async throws -> (TestDatabase, FightStore, FighterID) {
        let database = try TestDatabase(.postgres)
        let store = try await database.open()
        let alice = try await store.register("alice"), bob = try await store.register("bob")
        try await store.run(.challenge(alice, opponent: bob))
        try await store.run(.accept(FightID(1), by: bob))
        return (database, store, alice)
    }

    @Test(SharedDatabaseStoreTests.postgres) func aStartResumesTurnsOnlyWhenNoOtherServerIsServing() async throws {
        let (_, store, _) = try await Self.fightUnderWay()
        let lease: Int64 = 15

        // The first server: nobody else serves, every turn under way starts afresh.
        guard case .alone(let resumed) = try await store.startServing(as: "a", at: start + 10, leaseUntil: start + 10 + lease)
        else { throw StoreBackendError("the first server joined nobody") }
        #expect(resumed.count == 1 && store.isShared)
        // A second while the first's lease is live joins, leaving the turn as it was.
        #expect(try await store.startServing(as: "b", at: start + 11, leaseUntil: start + 11 + lease) == .joined(liveServers: 1))
        #expect(try await store.fight(FightID(1))?.lastSequence == 3)
        #expect(try await store.liveServers(at: start + 11) == ["a", "b"])
        // "a" stops renewing (killed); "b" renews: "a" is gone once its lease has run out.
        try await store.renewLease(of: "b", until: start + 30 + lease)
        #expect(try await store.startServing(as: "c", at: start + 30, leaseUntil: start + 30 + lease) == .joined(liveServers: 1))
        #expect(try await store.liveServers(at: start + 30) == ["b", "c"])
        // Both stop; a server started then finds the cluster was down, and resumes.
        try await store.endLease(of: "b")
        try await store.endLease(of: "c")
        guard case .alone(let again) = try await store.startServing(as: "d", at: start + 31, leaseUntil: start + 31 + lease)
        else { throw StoreBackendError("joined servers that stopped") }
        #expect(again.count == 1)
        #expect(try await store.fight(FightID(1))?.lastSequence == 4)
        // Leases that ran out are as good as ended: every server crashed, and one starts later.
        guard case .alone = try await store.startServing(as: "e", at: start + 31 + lease, leaseUntil: start + 31 + 2 * lease)
        else { throw StoreBackendError("joined a server whose lease ran out") }
    }

    /// A lone server killed (its lease not given up) and started again within that lease, under
    /// its own name: the lease is its last run's, not another server's, so once that run would
    /// have renewed it and did not, the start is alone and resumes the turns (a `turnPassed` of
    /// no missed turn), where a new run alone found a live lease and joined it.
    @Test(SharedDatabaseStoreTests.postgres) func aLoneServerRestartedWithinItsLeaseResumesTheTurns() async throws {
        let (database, store, alice) = try await Self.fightUnderWay()
        let lease: Int64 = 15
        guard case .alone = try await store.startServing(as: "run 1", named: "solo", at: start + 10, leaseUntil: start + 25)
        else { throw StoreBackendError("the first run joined nobody") }
        // Killed 2 s later; the new run's store is another connection to the same database.
        let restarted = try await database.open()
        let held = ServerLease(server: "run 1", expiresAt: start + 25)
        #expect(
            try await restarted.startServing(as: "run 2", named: "solo", at: start + 12, leaseUntil: start + 12 + lease)
                == .nameHeld(held))
        #expect(try await restarted.fight(FightID(1))?.lastSequence == 3, "nothing changed while the name is held")
        // Past when "run 1" would have renewed it, the lease is still as it was: replaced.
        guard
            case .alone(let resumed) = try await restarted.startServing(
                as: "run 2", named: "solo", at: start + 17, leaseUntil: start + 17 + lease, replacing: held)
        else { throw StoreBackendError("a lone server restarted within its lease joined its own dead run") }
        let passed = resumed.compactMap { event -> Int? in
            guard case .fight(let event) = event, case .turnPassed(let missed, let turn) = event.change else { return nil }
            #expect(turn.fighter == alice)
            return missed
        }
        #expect(passed == [0], "the turn under way starts afresh, nobody charged a missed turn")
        #expect(try await restarted.liveServers(at: start + 17) == ["run 2"])
        // The dead run, were it to come back, finds its name taken and keeps no lease.
        #expect(try await store.renewLease(of: "run 1", named: "solo", until: start + 18 + lease) == false)
        #expect(try await restarted.renewLease(of: "run 2", named: "solo", until: start + 18 + lease))
        #expect(try await restarted.liveServers(at: start + 18) == ["run 2"])
    }

    /// Two servers given the same name: the second sees the first's lease renewed while it waits,
    /// and is told the name is held again; it takes nothing. A server of another name still joins.
    @Test(SharedDatabaseStoreTests.postgres) func aNameAnotherLiveServerRenewsIsNotTakenOver() async throws {
        let database = try TestDatabase(.postgres)
        let first = try await database.open(), second = try await database.open()
        let lease: Int64 = 15
        _ = try await first.startServing(as: "run 1", named: "solo", at: start, leaseUntil: start + lease)
        guard
            case .nameHeld(let held) = try await second.startServing(
                as: "run 2", named: "solo", at: start + 1, leaseUntil: start + 1 + lease)
        else { throw StoreBackendError("a name held by a live server was taken") }
        #expect(held == ServerLease(server: "run 1", expiresAt: start + lease))
        #expect(try await first.renewLease(of: "run 1", named: "solo", until: start + 5 + lease))
        #expect(
            try await second.startServing(
                as: "run 2", named: "solo", at: start + 8, leaseUntil: start + 8 + lease, replacing: held)
                == .nameHeld(ServerLease(server: "run 1", expiresAt: start + 5 + lease)))
        #expect(try await first.liveServers(at: start + 8) == ["run 1"])
        // Another name, while "solo" is live: joined, the turns left to it.
        #expect(
            try await second.startServing(as: "run 3", named: "other", at: start + 9, leaseUntil: start + 9 + lease)
                == .joined(liveServers: 1))
    }
}
