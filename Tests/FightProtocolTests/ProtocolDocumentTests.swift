import FightEngine
import FightProtocol
import Foundation
import Testing

/// docs/PROTOCOL.md and the protocol's types, checked against each other: every example decodes
/// and encodes back to the same JSON, and every message type has an example.
@Suite struct ProtocolDocumentTests {
    /// A fenced example of the document: ```json client|server|credentials.
    struct Example: CustomTestStringConvertible, Sendable {
        var kind: String
        var line: Int
        var text: String
        var testDescription: String { "PROTOCOL.md:\(line) (\(kind))" }
    }

    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/PROTOCOL.md")

    static let examples: [Example] = {
        guard let document = try? String(contentsOf: documentURL, encoding: .utf8) else { return [] }
        var examples: [Example] = []
        var current: (kind: String, line: Int, lines: [String])?
        for (index, line) in document.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let open = current {
                if line == "```" {
                    examples.append(Example(kind: open.kind, line: open.line, text: open.lines.joined(separator: "\n")))
                    current = nil
                } else {
                    current?.lines.append(String(line))
                }
            } else if line.hasPrefix("```json ") {
                current = (String(line.dropFirst("```json ".count)), index + 2, [])
            }
        }
        return examples
    }()

    /// The numbers the document gives for a fight's rules are the engine's defaults, so that
    /// changing a rule without the document fails here.
    @Test func theRulesItStatesAreTheEngines() throws {
        let text = try String(contentsOf: Self.documentURL, encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let rules = Rules()
        let statements = [
            "starts with a stamina of \(rules.startingStamina)",
            "(\(rules.turnTimeout) s by default)",
            "throws at most \(rules.punchesPerFighter) punches",
            "once both have thrown \(rules.punchesPerFighter)",
            "waits \(rules.challengeLifetime / 3600) hours",
            "within reach, \(Int(rules.matchRadiusKm)) km",
            "lets \(rules.missedTurnsToForfeit) of their turns in a row pass",
        ]
        for statement in statements {
            #expect(text.contains(statement), "PROTOCOL.md should say \"\(statement)\"")
        }
    }

    /// The rules each `welcome` of the document states are what a server with the engine's
    /// defaults states: a rule changed in the engine, or a limit of the protocol, fails here.
    @Test func theRulesOfEachWelcomeAreTheEnginesDefaults() throws {
        var welcomes = 0
        for example in Self.examples where example.kind == "server" {
            guard case .welcome(let welcome) = try MessageCodec.decode(ServerMessage.self, from: example.text).body else {
                continue
            }
            welcomes += 1
            #expect(welcome.rules == StatedRules(Rules(), reconnect: .standard), "PROTOCOL.md:\(example.line)")
        }
        #expect(welcomes > 0)
    }

    @Test func theDocumentHasExamplesOfEachKind() {
        let kinds = Set(Self.examples.map(\.kind))
        #expect(kinds == ["client", "server", "credentials"])
    }

    @Test(arguments: examples)
    func exampleRoundTrips(_ example: Example) throws {
        let encoded: String
        switch example.kind {
        case "client": encoded = MessageCodec.encode(try MessageCodec.decode(ClientMessage.self, from: example.text))
        case "server": encoded = MessageCodec.encode(try MessageCodec.decode(ServerMessage.self, from: example.text))
        case "credentials": encoded = MessageCodec.encode(try MessageCodec.decode(Credentials.self, from: example.text))
        default:
            Issue.record("unknown example kind \(example.kind)")
            return
        }
        #expect(try JSONValue(example.text) == JSONValue(encoded), "encoded back as \(encoded)")
    }

    @Test func everyClientMessageTypeHasAnExample() throws {
        let documented = Set(
            try Self.examples.filter { $0.kind == "client" }.map {
                try MessageCodec.decode(ClientMessage.self, from: $0.text).request.type
            })
        #expect(documented == Set(ClientRequest.types))
    }

    @Test func everyServerMessageTypeHasAnExample() throws {
        let documented = Set(
            try Self.examples.filter { $0.kind == "server" }.map {
                try MessageCodec.decode(ServerMessage.self, from: $0.text).body.type
            })
        #expect(documented == Set(ServerBody.types))
    }

    @Test func everyEventKindHasAnExample() throws {
        var kinds: Set<WireEvent.Kind> = []
        for example in Self.examples where example.kind == "server" {
            if case .event(let event) = try MessageCodec.decode(ServerMessage.self, from: example.text).body {
                kinds.insert(event.kind)
            }
        }
        #expect(
            kinds.isSuperset(of: [
                .challenged, .matched, .accepted, .declined, .expired, .punched, .turnPassed, .ended,
            ]))
    }

    /// The rules the document states in words are the engine's.
    @Test func theDocumentStatesTheEnginesLimits() throws {
        let document = try String(contentsOf: Self.documentURL, encoding: .utf8)
        let rules = Rules()
        #expect(document.contains("lets \(rules.missedTurnsToForfeit) of their turns in a row pass"))
        #expect(document.contains("(\(rules.turnTimeout) s by default)"))
    }
}

/// A JSON value, compared by meaning: key order and number spelling (`1` and `1.0`) do not matter.
enum JSONValue: Equatable, Decodable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(_ text: String) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
