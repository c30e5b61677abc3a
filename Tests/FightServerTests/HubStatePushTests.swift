import FightEngine
import Testing

@testable import FightServer

/// Push order without a socket or a database: each event of a fight reaches the connections here
/// once and in sequence order, whether this server committed it or another one did.
@Suite struct HubStatePushTests {
    let alice = FighterID(1), bob = FighterID(2), carol = FighterID(3)
    let fight = FightID(7)
    var corners: Both<FighterID> { Both(alice, bob) }

    func event(_ sequence: Int) -> FightEvent { HubStateTests.event(in: fight, sequence) }

    func connected(_ fighters: FighterID...) -> (HubState, [FighterID: Int]) {
        var state = HubState()
        var connections: [FighterID: Int] = [:]
        for fighter in fighters {
            connections[fighter] = state.connect(
                fighter, session: "s", outbox: HubStateTests.outbox(), at: HubStateTests.now
            ).connection
        }
        return (state, connections)
    }

    /// A command's events are pushed after those of the fight pushed here; when another server's
    /// came first and are not pushed yet (their announcement on its way), they are read and pushed
    /// first; an event pushed already (caught up from the log) is not pushed again.
    @Test func aFightsEventsArePushedOnceAndInOrder() {
        var (state, _) = connected(alice)
        state.follow(fight, corners: corners, from: 2)
        #expect(state.pushing(event(3)) == .now(catchingUpAfter: nil))
        state.pushed(event(3), to: corners)
        #expect(state.pushing(event(3)) == .already)
        // Event 4 was committed by another server and is not pushed yet: 5 waits for it.
        #expect(state.pushing(event(5)) == .now(catchingUpAfter: 3))
        state.pushed(event(4), to: corners)
        state.pushed(event(5), to: corners)
        #expect(state.pushing(event(4)) == .already && state.pushing(event(5)) == .already)
        #expect(state.followed[fight] == HubState.Followed(corners: corners, sequence: 5))
        // A fight nobody here followed yet (a challenge just made) is pushed as it comes.
        #expect(state.pushing(HubStateTests.event(in: FightID(8), 1)) == .now(catchingUpAfter: nil))
    }

    /// What another server commits is read after what was pushed here: a fight followed after its
    /// last event pushed (nothing when all was), one not followed from the first event announced;
    /// after a gap in listening, every fight followed from where it was.
    @Test func anotherServersEventsAreReadAfterWhatWasPushedHere() {
        var (state, _) = connected(alice)
        state.follow(fight, corners: corners, from: 5)
        #expect(state.readAfter(fight, first: 6, last: 7) == 5)
        #expect(state.readAfter(fight, first: 4, last: 5) == nil, "pushed here already")
        #expect(state.readAfter(FightID(8), first: 1, last: 1) == 0)
        #expect(state.followedSequences == [fight: 5])
        #expect(state.pushFromLog(fight, corners: corners) == 5)
        #expect(state.pushFromLog(FightID(8), corners: Both(alice, carol)) == 0, "alice's, new: all of it")
        #expect(state.pushFromLog(FightID(9), corners: Both(bob, carol)) == nil, "nobody here is in it")
    }

    /// A fight is followed while one of its fighters is connected here, and dropped with the last
    /// one's last connection; one read while both left is not followed.
    @Test func aFightIsFollowedWhileOneOfItsFightersIsHere() {
        var (state, connections) = connected(alice, bob)
        state.follow(FightID(8), corners: Both(carol, FighterID(4)), from: 0)
        #expect(state.followed[FightID(8)] == nil, "neither is here")
        state.follow(fight, corners: corners, from: 2)
        state.follow(fight, corners: corners, from: 0)
        #expect(state.followed[fight]?.sequence == 2, "followed once, from where it was first")
        #expect(state.disconnect(alice, connection: connections[alice]!, at: HubStateTests.now) == .last)
        #expect(state.followed[fight] != nil, "bob is still here")
        #expect(state.disconnect(bob, connection: connections[bob]!, at: HubStateTests.now) == .last)
        #expect(state.followed.isEmpty)
        state.pushed(event(3), to: corners)
        #expect(state.followed.isEmpty, "pushed to nobody here: not followed")
    }

    /// A fight that begins (accepted, matched) is one whose fighters to tell whether the other is
    /// there, once its events are pushed: taken once; other events are not.
    @Test func aFightThatBeginsIsToldWhoIsThereOnce() {
        var (state, _) = connected(alice)
        let turn = Turn(fighter: alice, deadline: HubStateTests.now + 60)
        state.pushed(FightEvent(fight: fight, sequence: 2, at: HubStateTests.now, change: .accepted(turn: turn)), to: corners)
        state.pushed(event(3), to: corners)
        #expect(state.takeFightsBegun() == [HubState.Begun(fight: fight, corners: corners)])
        #expect(state.takeFightsBegun() == [])
    }
}
