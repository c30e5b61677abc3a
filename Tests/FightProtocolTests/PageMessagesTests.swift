import FightProtocol
import Foundation
import Testing

/// The page `hitthat serve` serves (Sources/FightServer/Page/app.js) speaks only documented
/// messages: its script is read for the types it sends, and they are held to the client examples
/// of docs/PROTOCOL.md.
@Suite struct PageMessagesTests {
    static let scriptURL = ProtocolDocumentTests.documentURL.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/FightServer/Page/app.js")

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
        let script = try String(contentsOf: Self.scriptURL, encoding: .utf8)
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
        let script = try String(contentsOf: Self.scriptURL, encoding: .utf8)
        #expect(script.components(separatedBy: "socket.send(").count == 2)
        #expect(!script.contains("ws.send("))
    }
}
