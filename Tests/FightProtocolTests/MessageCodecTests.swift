import FightEngine
import FightProtocol
import Testing

/// Decoding names what is wrong, by code and by field.
@Suite struct MessageCodecTests {
    static let token = String(repeating: "a", count: 64)

    @Test(arguments: [
        ("", ProtocolError.Code.malformed, nil as String?),
        ("null", .malformed, nil),
        (#"{"v":1,"token":"t"}"#, .invalid, "type"),
        (#"{"type":"hello","token":"t"}"#, .invalid, "v"),
        (#"{"type":"hello","v":"1","token":"t"}"#, .invalid, "v"),
        (#"{"type":"hello","v":1}"#, .invalid, "token"),
        (#"{"type":"move","v":1,"token":"t","latitude":48}"#, .invalid, "longitude"),
        (#"{"type":"punch","v":1,"token":"t","fight":1,"kind":"jab","after":0.5}"#, .invalid, "after"),
        (#"{"type":"punch","v":1,"token":"t","fight":1,"kind":"jab","damage":9}"#, .invalid, "damage"),
        (#"{"type":"punch","v":1,"token":"t","fight":1,"kind":"jab"}"#, .invalid, "after"),
        (#"{"type":"Hello","v":1,"token":"t"}"#, .unknownType, nil),
        (#"{"type":"hello","v":0,"token":"t"}"#, .unsupportedVersion, "v"),
    ])
    func badClientMessages(_ text: String, _ code: ProtocolError.Code, _ field: String?) {
        do {
            let message = try MessageCodec.decode(ClientMessage.self, from: text)
            Issue.record("decoded \(message)")
        } catch {
            #expect(error.code == code)
            #expect(error.field == field)
        }
    }

    /// A client waiting on its `ref` must hear that the message was refused, whatever was wrong
    /// with the rest of it.
    @Test(
        arguments: [
            (
                #"{"type":"punch","v":1,"ref":31,"token":"t","fight":1,"kind":"jab","damage":"10","after":0}"#, 31,
                "damage"
            ),
            (#"{"type":"punch","v":1,"ref":32,"token":"t","fight":1,"kind":"kick","after":0}"#, 32, "kind"),
            (#"{"type":"hello","v":2,"ref":33,"token":"t"}"#, 33, "v"),
            (#"{"type":"challenge","v":1,"ref":34,"token":"t"}"#, 34, "opponent"),
            (#"{"type":"hello","v":1,"ref":35}"#, 35, "token"),
            (#"{"type":"dance","v":1,"ref":36,"token":"t"}"#, 36, nil),
        ] as [(String, Int, String?)])
    func anErrorCarriesTheRefOfAMessageThatDidNotDecode(_ text: String, _ ref: Int, _ field: String?) {
        do {
            let message = try MessageCodec.decode(ClientMessage.self, from: text)
            Issue.record("decoded \(message)")
        } catch {
            let reply = MessageCodec.errorReply(error, to: text)
            #expect(reply.ref == ref)
            #expect(reply.body == .error(error))
            #expect(error.field == field)
        }
    }

    @Test(arguments: [
        "{not json", #"{"type":"hello","v":1,"ref":"7","token":"t"}"#, #"{"type":"hello","v":1,"ref":7.5}"#,
        #"{"ref":7,"pad":""# + String(repeating: "x", count: ProtocolLimits.maxMessageBytes) + #""}"#,
    ])
    func anErrorHasNoRefWhenNoneCanBeRead(_ text: String) {
        #expect(MessageCodec.errorReply(ProtocolError(.malformed, "x"), to: text).ref == nil)
    }

    @Test func aMessageOverTheLimitIsTooLargeBeforeItIsParsed() {
        let padding = String(repeating: "x", count: ProtocolLimits.maxMessageBytes)
        let text = #"{"type":"hello","v":1,"token":"\#(padding)"}"#
        #expect(
            throws: ProtocolError(
                .tooLarge, "message is \(text.utf8.count) bytes; expected at most \(ProtocolLimits.maxMessageBytes)")
        ) {
            try MessageCodec.decode(ClientMessage.self, from: text)
        }
    }

    /// A long fight's replay is longer than what the server reads from a client; the client
    /// reads it, up to the WebSocket's frame limit.
    @Test func aReplyLongerThanAClientMessageDecodes() throws {
        let events = (1...500).map { WireEvent(kind: .turnPassed, at: Timestamp(secondsSince1970: 1_800_000_000 + $0)) }
        let reply = ServerMessage(ref: 1, .events(EventsReply(fight: FightID(7), events: events)))
        let text = MessageCodec.encode(reply)
        #expect(text.utf8.count > ProtocolLimits.maxMessageBytes)
        #expect(try MessageCodec.decodeReply(text) == reply)
        #expect(throws: ProtocolError.self) { try MessageCodec.decode(ServerMessage.self, from: text) }
    }

    /// An event's `kind` is read into its case, each as it is named on the wire; a kind the
    /// protocol does not list is refused, naming the field, rather than passed on as text.
    @Test func anEventsKindDecodesToItsCase() throws {
        func event(_ kind: String) -> String {
            #"{"at":"2026-11-22T05:00:00Z","kind":"\#(kind)","type":"event","v":1}"#
        }
        for kind in WireEvent.Kind.allCases {
            guard case .event(let decoded) = try MessageCodec.decodeReply(event(kind.rawValue)).body else {
                Issue.record("\(kind) did not decode as an event")
                continue
            }
            #expect(decoded.kind == kind)
        }
        #expect(WireEvent.Kind(rawValue: "turnPassed") == .turnPassed)
        let error = #expect(throws: ProtocolError.self) { try MessageCodec.decodeReply(event("kicked")) }
        #expect(error?.code == .invalid && error?.field == "kind")
    }

    /// A fight event's wire form gives back the engine's change it was made from, so that a client
    /// counts with the engine's own rules; a fighter event has none.
    @Test func aFightEventOnTheWireGivesBackItsChange() {
        let (alice, bob) = (FighterID(1), FighterID(2))
        let at = Timestamp(secondsSince1970: 1_795_000_000)
        let turn = Turn(fighter: bob, deadline: at + 60)
        let changes: [FightEvent.Change] = [
            .challenged(challenger: alice, opponent: bob, expiresAt: at + 86_400),
            .matched(challenger: alice, opponent: bob, turn: turn), .accepted(turn: turn), .declined, .expired,
            .punched(by: alice, kind: .hook, damage: 15, bluntedBy: .high, staminaLeft: 85, turn: turn),
            .punched(by: alice, kind: .uppercut, damage: 56, bluntedBy: nil, staminaLeft: 0, turn: nil),
            .turnPassed(missedTurns: 2, turn: turn), .turnPassed(missedTurns: 0, turn: turn),
            .ended(FightResult(challenger: alice, opponent: bob, winner: alice, decision: .knockout)),
            .ended(FightResult(challenger: alice, opponent: bob, winner: nil, decision: .points)),
            .punched(by: bob, kind: .jab, damage: 40, bluntedBy: nil, staminaLeft: 60, turn: turn, clipped: true),
        ]
        for change in changes {
            #expect(WireEvent(FightEvent(fight: FightID(7), sequence: 3, at: at, change: change)).fightChange == change)
        }
        #expect(WireEvent(FighterEvent(fighter: alice, at: at, change: .openedRoom)).fightChange == nil)
        var unknown = WireEvent(FightEvent(fight: FightID(7), sequence: 3, at: at, change: changes[9]))
        unknown.decision = .unknown("technicalKnockout")
        #expect(unknown.fightChange == nil, "a decision this build does not know")
    }

    /// A fight's `phase` is read into its case likewise.
    @Test func aFightsPhaseDecodesToItsCase() throws {
        func fight(_ phase: String) -> String {
            #"{"fight":{"challenger":1,"id":7,"lastSequence":1,"opponent":2,"phase":"\#(phase)","punchesChallenger":0,"#
                + #""punchesOpponent":0,"staminaChallenger":100,"staminaOpponent":100},"type":"fight","v":1}"#
        }
        for phase in FightView.Phase.allCases {
            guard case .fight(let reply) = try MessageCodec.decodeReply(fight(phase.rawValue)).body else {
                Issue.record("\(phase) did not decode as a fight")
                continue
            }
            #expect(reply.fight.phase == phase)
        }
        let error = #expect(throws: ProtocolError.self) { try MessageCodec.decodeReply(fight("paused")) }
        #expect(error?.code == .invalid && error?.field == "fight.phase")
    }

    /// A punch that states a damage is refused by name, whatever the damage: the server works
    /// damage out itself (the power meter's time, or motion through its detector).
    @Test(arguments: [1, 40, 64])
    func aPunchStatingItsDamageIsRefusedByName(_ damage: Int) {
        let text = #"{"after":0,"damage":\#(damage),"fight":1,"kind":"jab","ref":3,"token":"\#(Self.token)","type":"punch","v":1}"#
        do {
            _ = try MessageCodec.decode(ClientMessage.self, from: text)
            Issue.record("a punch of damage \(damage) was taken")
        } catch {
            #expect(error.code == .invalid && error.field == "damage", "\(error)")
            #expect(error.message.contains("windUp then punch"))
        }
    }

    @Test(arguments: [
        ClientRequest.hello, .backDown, .profile(ProfileRequest(fighter: FighterID(2))),
        .punch(PunchRequest(fight: FightID(3), kind: .uppercut, after: 9)),
        .updateProfile(ProfileUpdate(displayName: "Ann", bio: "", reachCm: 170)), .statistics(StatisticsRequest()),
    ])
    func clientMessagesRoundTrip(_ request: ClientRequest) throws {
        let message = ClientMessage(token: Self.token, ref: 4, request)
        #expect(try MessageCodec.decode(ClientMessage.self, from: MessageCodec.encode(message)) == message)
    }
}
