import Foundation
import PunchKit
import Testing

@testable import MotionCommands

/// `detect --json`, `listen --json` and `evaluate --json` as the CLI encodes them: the fields the
/// README documents, in its order, at its precision.
@Suite struct JSONOutputTests {
    /// The punch of the README's example line.
    static let example = Punch(
        time: 11.8725, kind: .jab, damage: 32, peakG: 8.0128, speed: 4.1249, rise: sin(6.3 * .pi / 180),
        clipped: true, decidedAt: 12)

    /// The README's example line is what the encoder writes for its punch: names, rounding, and
    /// the keys sorted, so that a punch is always the same line.
    @Test func theReadmesExampleLineIsWhatIsWritten() throws {
        #expect(jsonText(PunchLine(Self.example, since: 10)) == (try Self.readmeExampleLine()))
    }

    /// Every field a punch can have is a row of the README's table under "## Output", and every
    /// row a field (`listen`'s latency is told under "Live input").
    @Test func theFieldsAreTheReadmesTable() throws {
        var punch = Self.example
        punch.turn = 42.26
        punch.turnAxisFromVertical = 71.04
        punch.confidence = 0.8126
        let line = jsonText(PunchLine(punch, since: 0, latencyMs: 1.23456, features: true))
        #expect(Self.keys(of: line) == ((try Self.readmeTableFields()) + ["latency_ms"]).sorted())
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["turn_deg"] as? Double == 42.3)
        #expect(object["turn_axis_deg"] as? Double == 71)
        #expect(object["latency_ms"] as? Double == 1.235)
        #expect(object["confidence"] as? Double == 0.813)
        #expect(object["features"] is [String: Any])
    }

    /// Without a gyroscope the turn's fields are left out, not null; a number JSON cannot hold is
    /// null, and the line still parses.
    @Test func absentTurnsAreLeftOutAndNonFiniteNumbersAreNull() throws {
        var punch = Self.example
        punch.peakG = .infinity
        punch.speed = .nan
        let line = jsonText(PunchLine(punch, since: 10))
        #expect(!line.contains("turn"))
        #expect(line.contains("\"peak_g\":null") && line.contains("\"speed_ms\":null"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["t"] as? Double == 1.8725)
        #expect(object["type"] as? String == "jab")
    }

    /// The line written by hand is the encoder's, byte for byte: whole numbers, negative zero,
    /// the rounding's edges, the optional fields, and the numbers it hands to the encoder.
    @Test func theHandWrittenLineIsTheEncoders() {
        var generator = SystemRandomNumberGenerator()
        func number() -> Double {
            switch Int.random(in: 0..<8, using: &generator) {
            case 0: [0, -0.0, 1, -3, 0.00005, -0.00004, 0.0005, 1e13, -2.5e14, 1e20][Int.random(in: 0..<10, using: &generator)]
            case 1: [Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude][Int.random(in: 0..<4, using: &generator)]
            case 2: Double(Int.random(in: -1000...1000, using: &generator)) / 8000
            default:
                Double.random(in: -1...1, using: &generator)
                    * pow(10, Double(Int.random(in: -6...8, using: &generator)))
            }
        }
        for _ in 0..<20_000 {
            var punch = Punch(
                time: number().magnitude, kind: PunchKind.allCases.randomElement(using: &generator)!,
                damage: Int.random(in: 1...100, using: &generator), peakG: number(), speed: number(),
                rise: number(), clipped: Bool.random(using: &generator), decidedAt: 0)
            if Bool.random(using: &generator) {
                punch.turn = number()
                punch.turnAxisFromVertical = number()
            }
            if Bool.random(using: &generator) { punch.confidence = number() }
            let latency: Double? = Bool.random(using: &generator) ? number() : nil
            let line = PunchLine(punch, since: number(), latencyMs: latency)
            #expect(line.jsonLine == jsonText(line))
        }
        let withFeatures = PunchLine(Self.example, since: 10, features: true)
        #expect(withFeatures.jsonLine == jsonText(withFeatures))
    }

    // MARK: - The README

    private static func readme() throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The "## Output" section, up to the next heading.
    private static func outputSection() throws -> Substring {
        let text = try readme()
        let start = try #require(text.range(of: "\n## Output\n"))
        let rest = text[start.upperBound...]
        return rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
    }

    /// The field names of the section's table: its rows' first cells, back-quoted.
    private static func readmeTableFields() throws -> [String] {
        let fields = try outputSection().split(separator: "\n").compactMap { row in
            row.wholeMatch(of: /\| `([a-z_]+)` \|.*/).map { String($0.1) }
        }
        try #require(!fields.isEmpty, "no table under ## Output")
        return fields
    }

    /// The section's example JSON line.
    private static func readmeExampleLine() throws -> String {
        try #require(try outputSection().split(separator: "\n").first { $0.hasPrefix("{\"") }).description
    }

    /// The keys of a one-line JSON object, in the order written.
    private static func keys(of line: String) -> [String] {
        let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        return (object?.keys).map { $0.sorted() } ?? []
    }
}
