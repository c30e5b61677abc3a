import FightProtocol
import Foundation
import Testing

/// The page `hitthat serve` serves (Sources/FightServer/Page/, its script in modules) speaks only
/// documented messages: its scripts are read for the types they send, and those are held to the
/// client examples of docs/PROTOCOL.md.
@Suite struct PageMessagesTests {
    static let pageURL = ProtocolDocumentTests.documentURL.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/FightServer/Page")

    /// Every script of the page, by file name.
    static func scripts() throws -> [String: String] {
        var scripts: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: pageURL.path) where name.hasSuffix(".js") {
            scripts[name] = try String(contentsOf: pageURL.appendingPathComponent(name), encoding: .utf8)
        }
        return scripts
    }

    /// The page's scripts, one after the other.
    static func script() throws -> String { try scripts().sorted { $0.key < $1.key }.map(\.value).joined(separator: "\n") }

    /// The types in the first argument of every `send(…)` call of the script (a ternary names two).
    static func sentTypes(_ script: String) -> Set<String> {
        var types: Set<String> = []
        var rest = script[...]
        while let call = rest.range(of: "send(") {
            defer { rest = rest[call.upperBound...] }
            // `socket.send(` and `prototype.send(` are the WebSocket's own, not the page's send().
            if call.lowerBound > script.startIndex, script[script.index(before: call.lowerBound)] == "." { continue }
            if script[..<call.lowerBound].hasSuffix("function ") { continue }
            let argument = rest[call.upperBound...].prefix { $0 != "," && $0 != ")" }
            let pieces = argument.split(separator: "'", omittingEmptySubsequences: false)
            for literal in pieces.enumerated() where literal.offset % 2 == 1 {
                types.insert(String(literal.element))
            }
        }
        return types
    }

    @Test func everyTypeThePageSendsIsAClientMessageOfTheDocument() throws {
        let script = try Self.script()
        let sent = Self.sentTypes(script)
        let documented = Set(
            try ProtocolDocumentTests.examples.filter { $0.kind == "client" }.map { example in
                let object = try JSONSerialization.jsonObject(with: Data(example.text.utf8)) as? [String: Any]
                return try #require(object?["type"] as? String)
            })
        // What a player does on the page, each by its message: a reading that found fewer would
        // pass the check below for the wrong reason.
        #expect(
            sent.isSuperset(of: [
                "hello", "profile", "move", "nextOpponent", "backDown", "challenge", "accept", "decline", "quickMatch",
                "leaveQuickMatch", "windUp", "punch", "raiseGuard", "forfeit", "fight", "replay", "logout", "motion",
            ]), "\(sent.sorted())")
        #expect(sent.subtracting(documented).isEmpty, "undocumented: \(sent.subtracting(documented).sorted())")
        #expect(sent.isSubset(of: ClientRequest.types), "the server's types")
    }

    /// Every message leaves through the page's one `send()`: the WebSocket's own is called once,
    /// inside it, so no message can skip the reading above.
    @Test func thePageSendsThroughOneFunction() throws {
        let script = try Self.script()
        #expect(script.components(separatedBy: "socket.send(").count == 2)
        #expect(!script.contains("ws.send("))
    }
}

/// The page shows and keeps to the rules the server states in `welcome`, so its scripts copy none
/// of them: no number of the meter, the motion limits or the backoff appears in their code.
@Suite struct PageRulesTests {
    /// The scripts without their comments (which may well name a rule).
    static func code() throws -> String {
        try PageMessagesTests.script().split(separator: "\n").map { line in
            line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
        }.joined(separator: "\n")
    }

    @Test func thePageCopiesNoNumberOfTheRules() throws {
        let code = try Self.code()
        let rules = StatedRules()
        let meter = rules.meter
        // The sweet spots (their half-widths are common numbers: 0.4 is also the reconnect's jitter).
        var numbers = [meter.jab, meter.hook, meter.uppercut].map { "\($0.level)" }
        numbers += [
            "\(meter.sweepMilliseconds)", "\(rules.motion.samplesPerBatch)", "\(Int(rules.motion.maximumRate))",
            "\(rules.reconnect.longestMilliseconds)",
        ]
        for number in Set(numbers) {
            // The number alone, not inside another (Swift's Regex has no lookbehind).
            let literal = try Regex("(^|[^\\w.])\(number.replacingOccurrences(of: ".", with: "\\."))($|[^\\w.])")
            #expect(code.firstMatch(of: literal) == nil, "app's scripts copy \(number)")
        }
        #expect(!code.contains("\(Int(rules.matchRadiusKm)) km"))
        #expect(!code.contains("of \(rules.missedTurnsToForfeit) missed"))
        // What the page shows instead: the rules `welcome` carries.
        #expect(code.contains("rules.matchRadiusKm") && code.contains("rules?.missedTurnsToForfeit"))
        #expect(code.contains("rules?.meter") && code.contains("rules?.motion") && code.contains("rules?.reconnect"))
    }
}
