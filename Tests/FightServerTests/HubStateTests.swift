import FightEngine
import FightProtocol
import MotionInput
import Testing

@testable import FightServer

/// The hub's state without a socket or a database: what it keeps of each fighter connected here,
/// fed the inputs the hub feeds it, in the orders an `await` allows.
@Suite struct HubStateTests {
    let alice = FighterID(1), bob = FighterID(2)
    let fight = Fight(
        id: FightID(7), challenger: FighterID(1), opponent: FighterID(2),
        phase: .active(turn: .challenger, deadline: Timestamp(secondsSince1970: 1_800_000_060)), stamina: 100,
        lastSequence: 2)

    static let now = Timestamp(secondsSince1970: 1_800_000_000)

    /// An outbox nobody reads: the state only keeps it.
    static func outbox() -> HubState.Outbox { AsyncStream<String>.makeStream().continuation }

    static func hold() -> MotionHold { MotionHold(limits: FightHub.holdLimits) }

    /// Event `sequence` of `fight`: a turn passed (what it says does not matter here).
    static func event(in fight: FightID, _ sequence: Int) -> FightEvent {
        FightEvent(
            fight: fight, sequence: sequence, at: now,
            change: .turnPassed(missedTurns: 1, turn: Turn(fighter: FighterID(2), deadline: now + 60)))
    }

    // MARK: - Connections

    @Test func aFighterArrivesWithTheirFirstConnectionAndLeavesWithTheirLast() {
        var state = HubState()
        let first = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now)
        let second = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now)
        #expect(first.arriving && !second.arriving && first.connection != second.connection)
        #expect(state.isConnected(Both(bob, alice)) && !state.isConnected(bob))
        #expect(state.disconnect(alice, connection: first.connection, at: Self.now) == .oneOfSeveral)
        #expect(state.disconnect(alice, connection: first.connection, at: Self.now) == .unknown, "closed twice counts once")
        #expect(state.disconnect(alice, connection: second.connection, at: Self.now) == .last)
        #expect(!state.isConnected(alice) && state.connections(of: alice).isEmpty)
        #expect(state.disconnect(bob, connection: second.connection, at: Self.now) == .unknown)
    }

    // MARK: - Reentrancy

    /// Alice winds up; while her fight is read (an `await`), her last connection closes. The
    /// read's answer gives her no wind-up back, and none is there when she comes back.
    @Test func aFighterWhoLeftDuringTheReadGetsNoWindUpBack() {
        var state = HubState()
        let connection = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now).connection
        // The wind-up's read is under way…
        #expect(state.disconnect(alice, connection: connection, at: Self.now) == .last)
        // …and comes back.
        #expect(state.woundUp(alice, HubState.WindUp(fight: fight.id, after: 2, at: .zero)) == false)
        _ = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now)
        #expect(state.stopWindUp(of: alice, in: fight.id, after: 2) == nil)
    }

    /// Alice's first batch of a hold comes on one connection; while the fight and her detector
    /// are awaited, that connection closes (she has another). The hold is not kept, and a hold
    /// ended after its connection closed is not written back either.
    @Test func aConnectionClosedDuringTheAwaitGetsNoHoldBack() {
        var state = HubState()
        let phone = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now).connection
        _ = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now)
        let key = HubState.HoldKey(fight: fight.id, hold: 3)
        #expect(state.disconnect(alice, connection: phone, at: Self.now) == .oneOfSeveral)
        #expect(state.startReading(alice, key, connection: phone, Self.hold(), fight: fight) == false)
        state.endHold(alice, key, connection: phone)
        #expect(state.hold(of: alice) == nil)
        // Gone altogether: nothing is kept for her at all.
        var gone = HubState()
        let only = gone.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now).connection
        #expect(gone.disconnect(alice, connection: only, at: Self.now) == .last)
        gone.endHold(alice, key, connection: only)
        #expect(gone.startReading(alice, key, connection: nil, Self.hold(), fight: fight) == false)
        #expect(gone.fighters.isEmpty)
    }

    // MARK: - Wind-ups

    /// One punch a wind-up, and only the punch thrown at its fight and sequence; the fighter's
    /// last connection ends it.
    @Test func aWindUpStopsOnePunchAtItsSequence() {
        var state = HubState()
        let connection = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now).connection
        let windUp = HubState.WindUp(fight: fight.id, after: 2, at: .milliseconds(5))
        #expect(state.woundUp(alice, windUp) == true)
        #expect(state.stopWindUp(of: alice, in: fight.id, after: 1) == nil, "another sequence")
        #expect(state.stopWindUp(of: alice, in: FightID(8), after: 2) == nil, "another fight")
        #expect(state.stopWindUp(of: alice, in: fight.id, after: 2) == windUp, "left as it was by the others")
        #expect(state.stopWindUp(of: alice, in: fight.id, after: 2) == nil, "one punch a wind-up")
        #expect(state.woundUp(alice, windUp) == true)
        #expect(state.disconnect(alice, connection: connection, at: Self.now) == .last)
        _ = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now)
        #expect(state.stopWindUp(of: alice, in: fight.id, after: 2) == nil, "ended with her last connection")
    }

    // MARK: - Holds

    /// A hold from its first batch to its end, and what ends it: an event of its fight pushed, a
    /// batch refused before the hub on its own connection (not on another), its connection
    /// closing.
    @Test func aHoldsWholeLife() throws {
        var state = HubState()
        let phone = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now).connection
        let laptop = state.connect(alice, session: "s", outbox: Self.outbox(), at: Self.now).connection
        let first = HubState.HoldKey(fight: fight.id, hold: 1)
        #expect(state.hold(of: alice) == nil)

        // Read from its first batch on, with the fight as that batch found it.
        #expect(state.startReading(alice, first, connection: phone, Self.hold(), fight: fight) == true)
        guard case .reading(first, let connection, _, let read)? = state.hold(of: alice) else {
            Issue.record("not reading: \(String(describing: state.hold(of: alice)))")
            return
        }
        #expect(connection == phone && read == fight)
        // Another fight's event, or a batch refused early on her other connection, leave it be.
        state.pushed(Self.event(in: FightID(8), 3), to: Both(alice, bob))
        state.endHoldRefusedEarly(alice, HubState.HoldKey(fight: fight.id, hold: 9), connection: laptop)
        #expect(try #require(state.hold(of: alice)).isReading(first))
        // Its fight moves on (an event pushed): over, its later batches dropped.
        state.pushed(Self.event(in: fight.id, 3), to: Both(bob, alice))
        #expect(state.hold(of: alice)?.isOver(first, on: phone) == true)

        // The next hold: read, then over by its last batch or a punch found.
        let second = HubState.HoldKey(fight: fight.id, hold: 2)
        #expect(state.startReading(alice, second, connection: phone, Self.hold(), fight: fight) == true)
        state.endHold(alice, second, connection: phone)
        #expect(state.hold(of: alice)?.isOver(second, on: phone) == true)

        // A batch refused before the hub on the hold's own connection ends the hold it names.
        let third = HubState.HoldKey(fight: fight.id, hold: 3)
        #expect(state.startReading(alice, third, connection: phone, Self.hold(), fight: fight) == true)
        state.endHoldRefusedEarly(alice, third, connection: phone)
        #expect(state.hold(of: alice)?.isOver(third, on: phone) == true)

        // Its connection closing drops it; she stays, on her other one.
        #expect(state.startReading(alice, first, connection: phone, Self.hold(), fight: fight) == true)
        #expect(state.disconnect(alice, connection: phone, at: Self.now) == .oneOfSeveral)
        #expect(state.hold(of: alice) == nil && state.isConnected(alice))
    }

    // MARK: - Taking turns

    /// Requests over the quick-match rooms take turns, as a fight's do: the second waits for the
    /// first to be done (its events pushed), so a room opened and the match into it are pushed in
    /// the order they were saved. The regression a load run found: pushed the other way round,
    /// the room's owner believed they still waited.
    @Test func quickMatchRequestsTakeTurnsSoTheirEventsArePushedInOrder() {
        #expect(Turns(of: .quickMatch) == .rooms)
        #expect(Turns(of: .leaveQuickMatch) == .rooms)
        #expect(Turns(of: .punch(PunchRequest(fight: FightID(7), kind: .jab, after: 2))) == .fight(FightID(7)))
        #expect(Turns(of: .hello) == nil)

        var queue = TurnQueue<String>()
        #expect(queue.arrive(over: .rooms) == true, "alice's quickMatch: a room opened")
        #expect(queue.arrive(over: .rooms) == false, "bob's quickMatch: matched into it, waits")
        queue.wait(over: .rooms, "bob")
        #expect(queue.arrive(over: .rooms) == false)
        queue.wait(over: .rooms, "carol")
        #expect(queue.arrive(over: .fight(FightID(7))) == true, "a fight's requests do not wait for the rooms")
        #expect(queue.finish(over: .rooms) == "bob", "bob's runs only once alice's is done")
        #expect(queue.finish(over: .rooms) == "carol")
        #expect(queue.finish(over: .rooms) == nil && !queue.isBusy(.rooms))
        #expect(queue.arrive(over: .rooms) == true)
    }
}

extension HubState.Hold {
    fileprivate func isReading(_ key: HubState.HoldKey) -> Bool {
        if case .reading(key, _, _, _) = self { true } else { false }
    }

    fileprivate func isOver(_ key: HubState.HoldKey, on connection: Int?) -> Bool {
        if case .over(key, connection) = self { true } else { false }
    }
}
