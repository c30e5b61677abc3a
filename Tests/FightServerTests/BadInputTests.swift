import FightClient
import FightEngine
import FightProtocol
import Testing

/// Whatever a client sends, it gets a typed error back, the connection stays open, and no
/// fight changes.
@Suite struct BadInputTests {
    @Test func badMessagesGetTypedErrorsAndChangeNothing() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let (alice, bob, fight) = (ring.alice, ring.bob, ring.fight)
        let before = try #require(try await alice.request(.fight(FightRef(fight: fight))).fightView)

        // Text the server cannot read: no ref to echo, so take the next error.
        let unreadable: [(text: String, code: ProtocolError.Code)] = [
            ("{not json", .malformed),
            ("[1, 2]", .malformed),
            (#"{"type":"uppercut","v":1,"token":"x"}"#, .unknownType),
            (#"{"type":"hello","v":2,"token":"x"}"#, .unsupportedVersion),
            (
                #"{"type":"punch","v":1,"token":"\#(alice.token)","fight":\#(fight.rawValue),"kind":"jab","damage":"lots","after":2}"#,
                .invalid
            ),
            (
                #"{"type":"punch","v":1,"token":"\#(alice.token)","fight":\#(fight.rawValue),"kind":"haymaker","damage":9,"after":2}"#,
                .invalid
            ),
            (String(repeating: " ", count: 20_000) + "{}", .tooLarge),
        ]
        for (text, code) in unreadable {
            try await alice.client.sendRaw(text)
            let error = try #require(try await alice.next("error \(code)") { $0.error != nil }.error)
            #expect(error.code == code, "for \(text.prefix(80))")
        }
        // Text with a readable ref, however wrong the rest: the error carries the ref.
        let referenced: [(ref: Int, text: String, code: ProtocolError.Code)] = [
            (
                950,
                #"{"type":"punch","v":1,"ref":950,"token":"\#(alice.token)","fight":\#(fight.rawValue),"kind":"jab","damage":"10","after":2}"#,
                .invalid
            ),
            (
                951,
                #"{"type":"punch","v":1,"ref":951,"token":"\#(alice.token)","fight":\#(fight.rawValue),"kind":"kick","damage":10,"after":2}"#,
                .invalid
            ),
            (952, #"{"type":"hello","v":2,"ref":952,"token":"\#(alice.token)"}"#, .unsupportedVersion),
            (953, #"{"type":"challenge","v":1,"ref":953,"token":"\#(alice.token)"}"#, .invalid),
        ]
        for (ref, text, code) in referenced {
            try await alice.client.sendRaw(text)
            #expect(try await alice.reply(to: ref).error?.code == code, "for \(text)")
        }
        try await alice.client.sendRaw(#"{"type":"challenge","v":1,"token":"\#(alice.token)"}"#)
        #expect(try await alice.next("missing field") { $0.error != nil }.error?.field == "opponent")

        // A token nobody was given, and bob's token on alice's connection.
        try await alice.client.sendRaw(
            #"{"type":"profile","v":1,"ref":900,"token":"\#(String(repeating: "0", count: 64))"}"#)
        #expect(try await alice.reply(to: 900).error?.code == .unauthorized)
        try await alice.client.sendRaw(#"{"type":"profile","v":1,"ref":901,"token":"\#(bob.token)"}"#)
        #expect(try await alice.reply(to: 901).error?.code == .wrongFighter)

        // Out of turn, a duplicate punch, a punch stating its damage, and someone else's fight.
        #expect(
            try await bob.command(.punch(PunchRequest(fight: fight, kind: .jab, after: 2))).error?.reason
                == .known(.waitYourTurn))
        #expect(
            try await bob.request(.windUp(WindUpRequest(fight: fight, after: 2))).error?.reason == .known(.waitYourTurn))
        try await alice.client.sendRaw(
            #"{"type":"punch","v":1,"ref":902,"token":"\#(alice.token)","fight":\#(fight.rawValue),"kind":"jab","damage":64,"after":2}"#
        )
        let stated = try await alice.reply(to: 902).error
        #expect(stated?.code == .invalid && stated?.field == "damage")
        let carol = try await Player.join("carol", at: ring.server)
        #expect(
            try await carol.command(.punch(PunchRequest(fight: fight, kind: .jab, after: 2))).error?.reason
                == .known(.notInFight))
        #expect(try await carol.command(.forfeit(FightRef(fight: fight))).error?.reason == .known(.notInFight))
        #expect(try await carol.request(.fight(FightRef(fight: fight))).error?.reason == .known(.notInFight))
        #expect(
            try await carol.request(.replay(ReplayRequest(fight: fight, after: 0))).error?.reason == .known(.notInFight)
        )
        #expect(try await carol.command(.accept(FightRef(fight: FightID(999)))).error?.reason == .known(.unknownFight))

        // Nothing above touched the fight, and both connections still work.
        let unchanged = try #require(try await bob.request(.fight(FightRef(fight: fight))).fightView)
        #expect(unchanged == before)

        let first = try #require(try await alice.punch(.jab, doing: 10, in: fight, after: 2, clock: ring.clock).event)
        #expect(first.sequence == 3)
        let again = try await alice.command(.punch(PunchRequest(fight: fight, kind: .jab, after: 2)))
        #expect(again.error?.code == .stale)
        let afterDuplicate = try #require(try await bob.request(.fight(FightRef(fight: fight))).fightView)
        #expect(
            afterDuplicate.lastSequence == 3 && afterDuplicate.staminaOpponent == 90
                && afterDuplicate.punchesChallenger == 1)
        try await ring.server.stop()
    }

    @Test func aFloodIsRateLimitedAndTheConnectionSurvives() async throws {
        let clock = TestClock()  // the rate is measured by it, so no time passes unless it moves
        let server = try await TestServer.start(clock: clock, messagesPerSecond: 1, messageBurst: 5)
        let alice = try await Player.join("alice", at: server)  // `hello` took one of the five
        var refs: [Int] = []
        for _ in 0..<20 { refs.append(try await alice.client.send(.profile(ProfileRequest()))) }
        var limited = 0
        for _ in refs {
            let message = try await alice.next("profile or error") { message in
                if case .profile = message.body { return true }
                return message.error != nil
            }
            if message.error?.code == .rateLimited { limited += 1 }
        }
        #expect(limited == 20 - 4)  // four tokens left after `hello`
        clock.advance(by: 2)  // two more, at one a second
        let later = [try await alice.request(.profile(ProfileRequest())), try await alice.request(.hello)]
        #expect(later.allSatisfy { $0.error == nil })
        #expect(try await alice.request(.profile(ProfileRequest())).error?.code == .rateLimited)
        try await server.stop()
    }

    @Test func wrongPasswordsAndBadUsernamesAreRefused() async throws {
        let server = try await TestServer.start(clock: TestClock())
        _ = try await FightClient.signIn(Credentials(username: "alice", password: "correct horse"), at: server.address)
        await #expect(throws: ProtocolError.self) {
            _ = try await FightClient.account(
                "/login", Credentials(username: "alice", password: "wrong horse"), at: server.address)
        }
        do {
            _ = try await FightClient.account(
                "/register", Credentials(username: "ALICE", password: "another one"), at: server.address)
            Issue.record("a username differing only in case was registered")
        } catch let error as ProtocolError {
            #expect(error.code == .conflict)
        }
        do {
            _ = try await FightClient.account(
                "/register", Credentials(username: "a!", password: "long enough"), at: server.address)
            Issue.record("a malformed username was registered")
        } catch let error as ProtocolError {
            #expect(error.code == .invalid && error.field == "username")
        }
        do {
            _ = try await FightClient.account(
                "/register", Credentials(username: "dave", password: "short"), at: server.address)
            Issue.record("a short password was accepted")
        } catch let error as ProtocolError {
            #expect(error.code == .invalid && error.field == "password")
        }
        try await server.stop()
    }

    /// A NUL used to cut a name when it was saved ("ab\0cd" came back "ab" at the next login):
    /// control characters are refused, and every other name comes back as it was sent.
    @Test func namesWithControlCharactersAreRefusedAndOthersComeBackWhole() async throws {
        let server = try await TestServer.start(clock: TestClock())
        for name in ["ab\u{0}cd", "\u{0}abc", "two\nlines"] {
            do {
                _ = try await FightClient.account(
                    "/register", Credentials(username: "nul", password: "long enough", displayName: name),
                    at: server.address)
                Issue.record("the display name \(name.debugDescription) was accepted")
            } catch let error as ProtocolError {
                #expect(error.code == .invalid && error.field == "displayName")
            }
        }
        let name = "👩🏽‍🦱 Zoë e\u{301}le\u{300}ve"
        let credentials = Credentials(username: "zoe", password: "long enough", displayName: name)
        _ = try await FightClient.account("/register", credentials, at: server.address)
        let session = try await FightClient.account("/login", credentials, at: server.address)
        #expect(session.fighter.displayName.unicodeScalars.elementsEqual(name.unicodeScalars))

        let zoe = try await Player.connect(session, to: server.address)
        let refused = try await zoe.command(.updateProfile(ProfileUpdate(displayName: name, bio: "ab\u{0}cd")))
        #expect(refused.error?.code == .invalid && refused.error?.field == "bio")
        _ = try await zoe.command(.updateProfile(ProfileUpdate(displayName: name, bio: "line one\n\tline two 🥊")))
        let card = try await zoe.request(.profile(ProfileRequest()))
        guard case .profile(let profile) = card.body else { throw TestFailure("not a profile: \(card)") }
        #expect(profile.fighter.bio == "line one\n\tline two 🥊")
        try await server.stop()
    }
}
