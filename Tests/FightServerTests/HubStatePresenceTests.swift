import FightEngine
import FightStore
import Testing

@testable import FightServer

/// Presence as the hub keeps it, without a socket or a database: what is noted in the store, and
/// what other servers sharing it say.
@Suite struct HubStatePresenceTests {
    let alice = FighterID(1), bob = FighterID(2), carol = FighterID(3)
    let start = Timestamp(secondsSince1970: 1_800_000_000)

    /// Comings and goings are noted in batches, as they stand when the batch is taken: a fighter
    /// who came and went again before it, and is as the store has them, is left out.
    @Test func comingsAndGoingsAreNotedInBatchesAsTheyStand() {
        var state = HubState()
        let first = state.connect(alice, session: "s", outbox: HubStateTests.outbox(), at: start)
        let bobs = state.connect(bob, session: "s", outbox: HubStateTests.outbox(), at: start + 1)
        #expect(state.disconnect(bob, connection: bobs.connection, at: start + 2) == .last)
        #expect(state.presenceSince[bob] == start + 2)
        #expect(state.takePresenceToNote() == [PresenceChange(alice, connected: true, at: start)])
        #expect(state.takePresenceToNote() == nil, "one batch at a time")
        #expect(state.presenceNoted([PresenceChange(alice, connected: true, at: start)], elsewhere: [:]) == [alice])
        #expect(state.notedHere == [alice])
        #expect(state.takePresenceToNote() == [], "taken once")

        // Alice's second connection changes nothing; her last one closing is a change.
        let second = state.connect(alice, session: "s", outbox: HubStateTests.outbox(), at: start + 3)
        #expect(state.disconnect(alice, connection: first.connection, at: start + 4) == .oneOfSeveral)
        #expect(state.takePresenceToNote() == [])
        #expect(state.disconnect(alice, connection: second.connection, at: start + 5) == .last)
        #expect(state.takePresenceToNote() == [PresenceChange(alice, connected: false, at: start + 5)])
    }

    /// A batch the store could not take goes with the next, unless a newer change of the same
    /// fighter waits already; noted, a fighter connected to another server as well keeps that
    /// server's `since`, and nobody is told of them.
    @Test func aBatchNotNotedIsTriedAgainAndOneConnectedElsewhereIsNotTold() {
        var state = HubState()
        let alices = state.connect(alice, session: "s", outbox: HubStateTests.outbox(), at: start)
        _ = state.connect(bob, session: "s", outbox: HubStateTests.outbox(), at: start)
        let failed = state.takePresenceToNote() ?? []
        #expect(failed.map(\.fighter) == [alice, bob])
        #expect(state.disconnect(alice, connection: alices.connection, at: start + 1) == .last)
        state.presenceNotNoted(failed)
        // Alice is as the store has her (gone, never noted): left out. Bob is tried again.
        let again = state.takePresenceToNote() ?? []
        #expect(again == [PresenceChange(bob, connected: true, at: start)])
        let told = state.presenceNoted(again, elsewhere: [bob: start + (-100)])
        #expect(told == [], "bob was there already, on another server")
        #expect(state.presenceSince[bob] == start + (-100) && state.notedHere == [bob])
    }

    /// What other servers say: a fighter connected here is here whatever another server saw; one
    /// who is not takes its word. Gone with a lapsed server: those not connected here.
    @Test func anotherServersWordCountsOnlyForFightersNotHere() {
        var state = HubState()
        _ = state.connect(alice, session: "s", outbox: HubStateTests.outbox(), at: start)
        #expect(state.heardPresence(of: alice, since: start + 9) == false)
        #expect(state.presenceSince[alice] == start)
        #expect(state.heardPresence(of: bob, since: start + 9) == true)
        #expect(state.presenceSince[bob] == start + 9)
        #expect(state.goneWithServer([alice, bob, carol], at: start + 20) == [bob, carol])
        #expect(state.presenceSince[alice] == start && state.presenceSince[carol] == start + 20)
    }

    /// This server's lease lapsed: every fighter here is noted again, as if each had just come,
    /// since another server may have forgotten them.
    @Test func aLapsedLeaseNotesEveryFighterHereAgain() {
        var state = HubState()
        _ = state.connect(alice, session: "s", outbox: HubStateTests.outbox(), at: start)
        let arrived = state.takePresenceToNote() ?? []
        #expect(state.presenceNoted(arrived, elsewhere: [:]) == [alice])
        #expect(state.leaseLapsed(at: start + 30) == true)
        #expect(state.notedHere.isEmpty)
        #expect(state.takePresenceToNote() == [PresenceChange(alice, connected: true, at: start + 30)])
        var empty = HubState()
        #expect(empty.leaseLapsed(at: start) == false, "nobody here: nothing to note")
    }

    /// The store is written off the hub's thread: while a batch is noted, alice, whose going it
    /// notes, comes back. Her coming keeps its moment and is noted with the next batch; a lapse of
    /// the lease meanwhile has every fighter here noted again, the batch noted or not.
    @Test func whatChangesWhileABatchIsNotedIsNotedAfterIt() {
        var state = HubState()
        let first = state.connect(alice, session: "s", outbox: HubStateTests.outbox(), at: start)
        let came = state.takePresenceToNote() ?? []
        _ = state.presenceNoted(came, elsewhere: [:])
        #expect(state.disconnect(alice, connection: first.connection, at: start + 1) == .last)
        let going = state.takePresenceToNote() ?? []
        #expect(going == [PresenceChange(alice, connected: false, at: start + 1)])
        // The store is asked; alice comes back meanwhile.
        _ = state.connect(alice, session: "s", outbox: HubStateTests.outbox(), at: start + 2)
        #expect(state.takePresenceToNote() == nil)
        #expect(state.presenceNoted(going, elsewhere: [:]) == [alice])
        #expect(state.presenceSince[alice] == start + 2, "her coming stands")
        #expect(state.takePresenceToNote() == [PresenceChange(alice, connected: true, at: start + 2)])

        // Bob comes; while his batch is noted, the lease lapses: he is noted again after it.
        var lapsing = HubState()
        _ = lapsing.connect(bob, session: "s", outbox: HubStateTests.outbox(), at: start)
        let bobs = lapsing.takePresenceToNote() ?? []
        #expect(lapsing.leaseLapsed(at: start + 30) == true)
        _ = lapsing.presenceNoted(bobs, elsewhere: [:])
        #expect(lapsing.notedHere.isEmpty)
        #expect(lapsing.takePresenceToNote() == [PresenceChange(bob, connected: true, at: start + 30)])
    }
}
