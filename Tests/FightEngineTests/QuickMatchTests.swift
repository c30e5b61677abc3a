import FightEngine
import Testing

@Suite struct QuickMatchTests {
    @Test func firstOpensARoomSecondJoinsIt() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob")
        #expect(try ring.run(.quickMatch(a)) == [.fighter(FighterEvent(fighter: a, at: ring.now, change: .openedRoom))])
        #expect(ring.state.rooms == [Room(fighter: a, openedAt: ring.now)])
        ring.now = ring.now + 5
        let events = try ring.run(.quickMatch(b))
        #expect(
            events.fightChanges == [
                .matched(challenger: a, opponent: b, turn: Turn(fighter: a, deadline: ring.now + 60))
            ])
        #expect(ring.state.rooms.isEmpty)
        // The room's owner throws first.
        #expect(ring.refusal(.punch(FightID(1), by: b, after: ring.seen(FightID(1)), kind: .jab, damage: 1)) == .waitYourTurn(FightID(1)))
    }

    @Test func joinsTheOldestRoom() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob"), c = try ring.register("carol")
        // a and b have a fight open, so a cannot join b's room: two rooms wait.
        try ring.run(.challenge(a, opponent: b))
        try ring.run(.quickMatch(b))
        ring.now = ring.now + 1
        try ring.run(.quickMatch(a))
        #expect(ring.state.rooms.map(\.fighter) == [b, a])
        ring.now = ring.now + 1
        let events = try ring.run(.quickMatch(c))
        #expect(
            events.fightChanges.first
                == .matched(challenger: b, opponent: c, turn: Turn(fighter: b, deadline: ring.now + 60)))
        #expect(ring.state.rooms.map(\.fighter) == [a])
    }

    @Test func skipsARoomWhoseOwnerIAmAlreadyFighting() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob"), c = try ring.register("carol")
        try ring.run(.challenge(a, opponent: c))
        try ring.run(.quickMatch(a))
        ring.now = ring.now + 1
        try ring.run(.quickMatch(b))  // joins a's room
        try ring.run(.quickMatch(a))  // a waits again
        ring.now = ring.now + 1
        try ring.run(.quickMatch(c))  // a's is the only room, but a and c have a fight open
        #expect(Set(ring.state.rooms.map(\.fighter)) == [a, c])
    }

    @Test func waitingTwiceAndLeaving() throws {
        var ring = Ring()
        let a = try ring.register("alice")
        try ring.run(.quickMatch(a))
        #expect(ring.refusal(.quickMatch(a)) == .alreadyWaiting(a))
        #expect(
            try ring.run(.leaveQuickMatch(a)) == [.fighter(FighterEvent(fighter: a, at: ring.now, change: .leftRoom))])
        #expect(ring.refusal(.leaveQuickMatch(a)) == .notWaiting(a))
        #expect(ring.refusal(.quickMatch(FighterID(5))) == .unknownFighter(FighterID(5)))
    }
}
