import FightEngine
import FightStore
import Testing

@testable import FightServer

/// What the hub pushes and keeps of its serving, decided without a socket or a database: a
/// command's events with what was read for them off the hub's thread, the turns owed after a
/// start alone, the lease's renewals, other servers' changes in batches.
@Suite struct HubStateServingTests {
    let alice = FighterID(1), bob = FighterID(2), carol = FighterID(3)
    let fight = FightID(7)
    var corners: Both<FighterID> { Both(alice, bob) }
    let now = HubStateTests.now

    func event(_ sequence: Int, in fight: FightID? = nil) -> FightEvent {
        HubStateTests.event(in: fight ?? self.fight, sequence)
    }

    func connected(_ fighters: FighterID...) -> HubState {
        var state = HubState()
        for fighter in fighters {
            _ = state.connect(fighter, session: "s", outbox: HubStateTests.outbox(), at: now)
        }
        return state
    }

    /// The sequences of the fight events among `deliveries`, in order.
    func sequences(_ deliveries: [HubState.Delivery]) -> [Int] {
        deliveries.compactMap { if case .fight(let event) = $0.event { event.sequence } else { nil } }
    }

    /// A command's event 5, saved while another server's 3 and 4 were not pushed here yet: they
    /// were read with it (after 2, what was pushed as it was sent) and go first, each once, though
    /// 3 was pushed meanwhile from that server's announcement (the hub took other work during
    /// the await).
    @Test func aCommandsEventsGoAfterTheOtherServersEventsReadWithThem() async throws {
        var state = connected(alice)
        state.follow(fight, corners: corners, from: 2)
        let needs = state.pushNeeds(for: fight)
        var logsRead: [Int] = []
        let saved = try await needs.read(
            [.fight(event(5))], corners: { _ in throw TestFailure("the corners are known") },
            log: { _, after in
                logsRead.append(after)
                return [event(3), event(4), event(5)]
            })
        #expect(logsRead == [2] && saved.before[fight]?.map(\.sequence) == [3, 4])
        // Meanwhile: 3, heard from the other server, pushed.
        state.pushed(event(3), to: corners)
        let deliveries = state.publish(saved)
        #expect(sequences(deliveries) == [4, 5])
        #expect(deliveries.allSatisfy { $0.recipients == [alice, bob] })
        #expect(sequences(state.publish(saved)) == [], "pushed once")
    }

    /// Nothing behind (the command's own event follows what was pushed): the log is not read.
    @Test func aCommandRightAfterWhatWasPushedReadsNothingMore() async throws {
        var state = connected(alice)
        state.follow(fight, corners: corners, from: 2)
        let saved = try await state.pushNeeds(for: fight).read(
            [.fight(event(3)), .fight(event(4))], corners: { _ in throw TestFailure("the corners are known") },
            log: { _, _ in throw TestFailure("nothing to catch up") })
        #expect(sequences(state.publish(saved)) == [3, 4])
    }

    /// The deadlines' command (of no one fight) settles fights here and elsewhere: the corners of
    /// those not followed here and not named by their event are read with it, off the hub's
    /// thread, and a fight followed here whose event another server saved before is caught up
    /// first; a fighter here who came meanwhile gets theirs.
    @Test func theDeadlinesReadWhatTheirFightsNeedToBePushed() async throws {
        var state = connected(alice)
        state.follow(fight, corners: corners, from: 2)
        var asked: [FightID] = [], logsRead: [FightID] = []
        let elsewhere = FightID(8), carols = FightID(9)
        let saved = try await state.pushNeeds(for: nil).read(
            [.fight(event(4)), .fight(event(1, in: elsewhere)), .fight(event(2, in: elsewhere)), .fight(event(4, in: carols))],
            corners: { fight in
                asked.append(fight)
                return fight == carols ? Both(carol, alice) : Both(bob, FighterID(4))
            },
            log: { fight, after in
                logsRead.append(fight)
                return [event(3), event(4)].filter { $0.sequence > after }
            })
        #expect(asked == [elsewhere, carols], "once each, and not the fight followed")
        #expect(logsRead == [fight], "only the fight followed here and behind")
        let deliveries = state.publish(saved)
        #expect(sequences(deliveries) == [3, 4, 1, 2, 4])
        #expect(state.followed[carols]?.sequence == 4, "alice is in it: followed from now on")
        #expect(state.followed[elsewhere] == nil, "nobody here is in it")
    }

    /// The turns a start alone began are owed to the fighter who has each, once, in order of
    /// fight; a start that joined others owes none.
    @Test func theTurnsAStartAloneBeganAreOwedOnce() {
        var state = HubState()
        let turn = { (fighter: FighterID) in Turn(fighter: fighter, deadline: self.now + 60) }
        let resumed: [Event] = [
            .fight(FightEvent(fight: FightID(9), sequence: 4, at: now, change: .turnPassed(missedTurns: 0, turn: turn(alice)))),
            .fight(FightEvent(fight: fight, sequence: 6, at: now, change: .turnPassed(missedTurns: 0, turn: turn(alice)))),
            .fight(FightEvent(fight: FightID(8), sequence: 3, at: now, change: .turnPassed(missedTurns: 0, turn: turn(bob)))),
        ]
        state.startedServing(at: now, resumed: resumed)
        #expect(state.takeOwedTurns(of: alice).map { "\($0.fight.rawValue):\($0.after)" } == ["7:6", "9:4"])
        #expect(state.takeOwedTurns(of: alice).isEmpty, "once per start")
        #expect(state.takeOwedTurns(of: bob).map(\.after) == [3])
        var joined = HubState()
        joined.startedServing(at: now, resumed: [])
        #expect(joined.takeOwedTurns(of: alice).isEmpty)
    }

    /// The lease is renewed every 5 s from the start; a renewal later than the lease's 15 s says
    /// the lease lapsed meanwhile (this server's fighters to be noted again).
    @Test func theLeaseIsRenewedWhenDueAndSaysWhenItLapsed() {
        var state = HubState()
        #expect(state.leaseRenewal(at: now, every: 5, lasting: 15) == .due(lapsed: false), "never taken")
        state.startedServing(at: now, resumed: [])
        #expect(state.leaseRenewal(at: now + 4, every: 5, lasting: 15) == .notDue)
        #expect(state.leaseRenewal(at: now + 5, every: 5, lasting: 15) == .due(lapsed: false))
        state.leaseRenewed(at: now + 5)
        #expect(state.leaseRenewal(at: now + 9, every: 5, lasting: 15) == .notDue)
        #expect(state.leaseRenewal(at: now + 20, every: 5, lasting: 15) == .due(lapsed: true))
    }

    /// Other servers' changes are acted on in batches: all heard since the last, in order.
    @Test func heardChangesAreTakenInBatchesInTheOrderTheyCame() {
        var state = HubState()
        state.hear(.fight(fight, first: 3, last: 3))
        state.hear(.resynchronize)
        #expect(state.takeHeard() == [.fight(fight, first: 3, last: 3), .resynchronize])
        #expect(state.takeHeard() == [])
    }

    /// Other servers' changes, one batch: a fight followed here read after what was pushed, one
    /// not followed from its first event announced, one pushed already not at all; a fighter's
    /// event delivered; a logout's connections closed; a presence told only of a fighter not
    /// here. After a gap in listening, the open fights are read and followed, and every fight
    /// followed is read from where it was pushed.
    @Test func anotherServersChangesAreActedOnAsTheStateAnswers() {
        var state = connected(alice)
        state.follow(fight, corners: corners, from: 4)
        let room = FighterEvent(fighter: alice, at: now, change: .openedRoom)
        let actions = state.act(on: [
            .fight(fight, first: 5, last: 6), .fight(FightID(8), first: 1, last: 2), .fight(fight, first: 3, last: 4),
            .fighter(room), .sessionEnded(key: "k", fighter: alice),
            .presence(bob, connected: false, since: now + 3), .presence(alice, connected: false, since: now + 3),
        ])
        #expect(
            actions == [
                .deliver(HubState.Delivery(event: .fighter(room), recipients: [alice])),
                .endSession(key: "k", of: alice), .tellPresence(bob), .readNews([fight: 4, FightID(8): 0]),
            ])
        #expect(state.presenceSince[bob] == now + 3 && state.presenceSince[alice] == now, "alice is here")

        let gap = state.act(on: [.resynchronize, .fight(FightID(8), first: 1, last: 1)])
        #expect(gap == [.followOpenFights(reading: [FightID(8): 0])])
        let reading = state.followOpenFights(
            [(fight, corners), (FightID(9), Both(carol, alice)), (FightID(10), Both(bob, carol))], reading: [FightID(8): 0])
        #expect(reading == [fight: 4, FightID(9): 0, FightID(8): 0], "followed from where it was, new ones whole")
    }
}
