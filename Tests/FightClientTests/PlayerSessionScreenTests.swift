import FightClient
import FightEngine
import FightProtocol
import Testing

/// What the session asks for only so that the screen shows what is so: a fight's past after a
/// restart, and cards made stale by a fight's end or a profile update.
@Suite struct PlayerSessionScreenTests {
    typealias Player = PlayerSessionTests.Player

    /// A screen's session (cards shown) for the fighter in turn in a bout's fight, welcomed with
    /// that fight open; `replaysPast` as given. Returns the session, the bout, and the welcome's
    /// requests.
    static func welcomed(replaysPast: Bool) throws -> (PlayerSession, FightFollowerTests.Bout, [ClientRequest]) {
        let bout = try FightFollowerTests.Bout()
        let view = try bout.view()
        let me = try #require(view.turn)
        let card = FighterCard(try #require(bout.state.fighters[me]), showingLocation: true)
        var configuration = PlayerSession.Configuration(
            mode: .screen, username: card.username, server: "ws://127.0.0.1:8080", hasSensor: false, showsCards: true)
        configuration.replaysPast = replaysPast
        var session = PlayerSession(configuration)
        _ = session.handle(.start)
        let connected = session.handle(.connected(Session(token: "t", fighter: card)))
        let hello = try #require(Player.sent(connected).first { $0.request == .hello })
        let welcome = ServerMessage(ref: hello.ref, .welcome(Welcome(fighter: card, openFights: [view])))
        let effects = session.handle(.received(MessageCodec.encode(welcome), at: .now))
        return (session, bout, Player.sent(effects).map(\.request))
    }

    /// A fight first heard of in `welcome` (after a restart) is replayed from its first event
    /// when the screen shows a log, and not otherwise (a script asks for what it wants).
    @Test func aFightFirstSeenInTheWelcomeIsReplayedFromItsStart() throws {
        let (_, bout, asked) = try Self.welcomed(replaysPast: true)
        #expect(asked.contains(.replay(ReplayRequest(fight: bout.fight, after: 0))), "\(asked)")
        let (_, _, plain) = try Self.welcomed(replaysPast: false)
        #expect(!plain.contains { if case .replay = $0 { true } else { false } }, "\(plain)")
    }

    /// Once a fight ends, both fighters' cards are asked for again (their records changed), so
    /// the versus card shows the record as it is; the player's own by asking for no one.
    @Test func aFightsEndAsksForBothCardsAgain() throws {
        var (session, bout, _) = try Self.welcomed(replaysPast: false)
        let view = try bout.view()
        let me = try #require(session.me)
        let other = view.challenger == me ? view.opponent : view.challenger
        try bout.run(.forfeit(bout.fight, by: me))
        let ended = try #require(bout.events().last)
        let effects = session.handle(.received(MessageCodec.encode(ServerMessage(.event(ended))), at: .now))
        let asked = Player.sent(effects).map(\.request)
        #expect(asked.contains(.profile(ProfileRequest(fighter: nil))), "\(asked)")
        #expect(asked.contains(.profile(ProfileRequest(fighter: other))), "\(asked)")
    }

    /// `profileUpdated` says only that the player's profile changed: their card is asked for.
    @Test func aProfileUpdateAsksForTheOwnCard() throws {
        var (session, _, _) = try Self.welcomed(replaysPast: false)
        var event = WireEvent(kind: .profileUpdated, at: Timestamp(secondsSince1970: 1_800_000_000))
        event.fighter = session.me
        let effects = session.handle(.received(MessageCodec.encode(ServerMessage(.event(event))), at: .now))
        #expect(Player.sent(effects).map(\.request) == [.profile(ProfileRequest(fighter: nil))])
    }
}
