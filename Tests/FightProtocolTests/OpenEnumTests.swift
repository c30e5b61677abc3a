import FightEngine
import FightProtocol
import Testing

/// The fields whose values are a closed set today but may grow (`reason`, `ending`, `decision`)
/// read into their cases, keep a newer server's value instead of failing, and write back the
/// same text.
@Suite struct OpenEnumTests {
    private func error(reason: String) -> String {
        #"{"code":"refused","message":"no","reason":"\#(reason)","ref":3,"type":"error","v":1}"#
    }

    private func ended(decision: String) -> String {
        #"{"at":"2026-11-22T05:06:00Z","challenger":1,"decision":"\#(decision)","fight":7,"kind":"ended","#
            + #""opponent":2,"sequence":10,"type":"event","v":1,"winner":1}"#
    }

    private func finished(ending: String) -> String {
        #"{"fight":{"challenger":1,"ending":"\#(ending)","finishedAt":"2026-11-22T05:06:00Z","id":7,"#
            + #""lastSequence":10,"opponent":2,"phase":"finished","punchesChallenger":4,"punchesOpponent":4,"#
            + #""staminaChallenger":12,"staminaOpponent":0,"winner":1},"type":"fight","v":1}"#
    }

    @Test(arguments: ProtocolError.Reason.allCases)
    func aKnownReasonReadsIntoItsCase(_ reason: ProtocolError.Reason) throws {
        guard case .error(let error) = try MessageCodec.decodeReply(error(reason: reason.rawValue)).body else {
            Issue.record("not an error")
            return
        }
        #expect(error.reason == .known(reason))
    }

    @Test func aReasonFromANewerServerIsKeptAndWrittenBackAsItCame() throws {
        let text = error(reason: "tooTired")
        let message = try MessageCodec.decodeReply(text)
        guard case .error(let error) = message.body else {
            Issue.record("not an error")
            return
        }
        #expect(error.reason == .unknown("tooTired"))
        #expect(error.reason?.known == nil)
        #expect(error.code == .refused && error.message == "no")
        #expect(MessageCodec.encode(message) == text)
    }

    @Test func aDecisionFromANewerServerIsKept() throws {
        guard case .event(let known) = try MessageCodec.decodeReply(ended(decision: "points")).body,
            case .event(let unknown) = try MessageCodec.decodeReply(ended(decision: "technicalKnockout")).body
        else {
            Issue.record("not events")
            return
        }
        #expect(known.decision == .known(.points))
        #expect(unknown.decision == .unknown("technicalKnockout"))
        #expect(MessageCodec.encode(ServerMessage(.event(unknown))) == ended(decision: "technicalKnockout"))
    }

    @Test func anEndingFromANewerServerIsKept() throws {
        guard case .fight(let known) = try MessageCodec.decodeReply(finished(ending: "knockout")).body,
            case .fight(let unknown) = try MessageCodec.decodeReply(finished(ending: "noContest")).body
        else {
            Issue.record("not fights")
            return
        }
        #expect(known.fight.ending == .known(.knockout))
        #expect(unknown.fight.ending == .unknown("noContest"))
        #expect(unknown.fight.ending?.known?.isDecided == nil)
    }

    /// Every engine refusal but an invalid field has a reason, written as the refusal's name.
    @Test func eachRefusalHasItsReason() {
        let (fighter, fight) = (FighterID(1), FightID(2))
        let refusals: [(Refusal, ProtocolError.Reason)] = [
            (.usernameTaken("ann"), .usernameTaken), (.unknownFighter(fighter), .unknownFighter),
            (.unknownFight(fight), .unknownFight), (.cannotChallengeSelf, .cannotChallengeSelf),
            (.pairAlreadyFighting(fight), .pairAlreadyFighting), (.notInFight(fighter, fight), .notInFight),
            (.notTheChallenged(fighter, fight), .notTheChallenged), (.challengeExpired(fight), .challengeExpired),
            (.challengeNotPending(fight), .challengeNotPending), (.fightNotActive(fight), .fightNotActive),
            (.waitYourTurn(fight), .waitYourTurn), (.alreadyWaiting(fighter), .alreadyWaiting),
            (.notWaiting(fighter), .notWaiting), (.noLocation(fighter), .noLocation),
        ]
        for (refusal, reason) in refusals {
            let error = ProtocolError(refusal)
            #expect(error.code == .refused)
            #expect(error.reason == .known(reason), "\(refusal)")
        }
    }

    /// An ending is the engine's decision when the fight was fought, and only then decided.
    @Test func anEndingFollowsTheEnginesDecision() {
        for decision in FightResult.Decision.allCases {
            let ending = FightView.Ending(decision)
            #expect(ending.rawValue == decision.rawValue)
            #expect(ending.isDecided)
        }
        #expect(!FightView.Ending.declined.isDecided && !FightView.Ending.expired.isDecided)
    }

    /// The message types are one list each; every case's type is on it once.
    @Test func theMessageTypesAreTheKinds() {
        #expect(ClientRequest.types == ClientRequest.Kind.allCases.map(\.rawValue))
        #expect(Set(ClientRequest.types).count == ClientRequest.types.count)
        #expect(ServerBody.types == ServerBody.Kind.allCases.map(\.rawValue))
        #expect(ClientRequest.punch(PunchRequest(fight: FightID(1), kind: .jab, after: 0)).type == "punch")
        #expect(ServerBody.loggedOut.type == "loggedOut")
    }
}
