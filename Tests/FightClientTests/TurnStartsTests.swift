import FightClient
import FightEngine
import FightProtocol
import Testing

/// When a player's turn began in a fight first heard of by an event: with the event, as long as
/// the fight's state, when it arrives, is still at that event. Instants are plain numbers.
@Suite struct TurnStartsTests {
    /// A fight under way, the event that gave its turn (the last one), and a follower that has
    /// not seen the fight, as a client that was just matched.
    struct Heard {
        var bout: FightFollowerTests.Bout
        var event: WireEvent
        var follower = FightFollower()
        var need: FightFollower.Need
        var player: FighterID

        init() throws {
            bout = try FightFollowerTests.Bout()
            event = try #require(bout.events().last)
            player = try #require(event.turn)
            need = follower.apply(event)
        }
    }

    @Test func aTurnGivenBeforeTheStateCameBeganWithItsEvent() throws {
        let heard = try Heard()
        var starts = TurnStarts<Int>()
        starts.note(heard.event, need: heard.need, player: heard.player, at: 10)
        #expect(starts.began(try heard.bout.view(), received: 25) == 10)
        #expect(starts.began(try heard.bout.view(), received: 40) == 40, "a second state is no longer the first news")
    }

    @Test func aStateThatMovedOnSinceTheEventStartsTheTurnOnArrival() throws {
        var heard = try Heard()
        var starts = TurnStarts<Int>()
        starts.note(heard.event, need: heard.need, player: heard.player, at: 10)
        try heard.bout.punch(20)
        try heard.bout.punch(20)
        #expect(try heard.bout.view().turn == heard.player)
        #expect(starts.began(try heard.bout.view(), received: 25) == 25)
    }

    @Test func anEventForTheOpponentOrAKnownFightIsNotNoted() throws {
        var heard = try Heard()
        var starts = TurnStarts<Int>()
        starts.note(heard.event, need: heard.need, player: FighterID(heard.player.rawValue + 1000), at: 10)
        #expect(starts.began(try heard.bout.view(), received: 25) == 25, "not this player's turn")

        heard.follower.update(try heard.bout.view())
        try heard.bout.punch(20)
        let next = try #require(heard.bout.events().last)
        let need = heard.follower.apply(next)
        #expect(need == .nothing)
        starts.note(next, need: need, player: try #require(next.turn), at: 30)
        #expect(starts.began(try heard.bout.view(), received: 45) == 45, "the state was known: no event to date it")
    }
}
