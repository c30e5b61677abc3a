import FightEngine
import FightProtocol
import Testing

/// `welcome.rules` on the wire: what a server states comes through whole, and a welcome from a
/// server older than them is still read.
@Suite struct StatedRulesCodingTests {
    static let withoutRules = #"{"fighter":{"bio":"","displayName":"Alice","draws":0,"id":1,"joinedAt":"2026-11-22T05:00:00Z","losses":0,"username":"alice","wins":0},"openFights":[],"presence":[],"type":"welcome","v":1}"#

    @Test func statedRulesComeThroughWhole() throws {
        var rules = Rules(turnTimeout: 25, matchRadiusKm: 7.5, missedTurnsToForfeit: 4)
        rules.meter.hook.ceiling = 44
        guard case .welcome(var welcome) = try MessageCodec.decode(ServerMessage.self, from: Self.withoutRules).body else {
            throw DecodeFailure()
        }
        welcome.rules = StatedRules(rules, reconnect: ReconnectBackoff(firstMilliseconds: 100, longestMilliseconds: 900))
        let decoded = try MessageCodec.decode(ServerMessage.self, from: MessageCodec.encode(ServerMessage(.welcome(welcome))))
        guard case .welcome(let back) = decoded.body else { throw DecodeFailure() }
        #expect(back.rules.turnSeconds == 25 && back.rules.matchRadiusKm == 7.5 && back.rules.missedTurnsToForfeit == 4)
        #expect(back.rules.meter.hook.ceiling == 44 && back.rules.reconnect.longestMilliseconds == 900)
        #expect(back == welcome)
    }

    @Test func aWelcomeWithoutRulesIsReadWithThisBuildsOwn() throws {
        guard case .welcome(let welcome) = try MessageCodec.decode(ServerMessage.self, from: Self.withoutRules).body else {
            throw DecodeFailure()
        }
        #expect(welcome.rules == StatedRules(Rules(), reconnect: .standard))
    }

    struct DecodeFailure: Error {}
}
