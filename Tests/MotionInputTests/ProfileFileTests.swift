import Foundation
import PunchKit
import Testing

@testable import MotionInput

/// A profile as the file `hitthat calibrate` writes: read back whole, and every way a file can be
/// wrong said with the field and what was expected.
@Suite struct ProfileFileTests {
    let profile = PunchProfile(
        hand: .left, gyroscope: false,
        kinds: [
            .init(kind: .jab, punches: 3, mean: ["rise": -0.1, "stop_width": 0.05, "rule_jab": 1], recognised: 3),
            .init(kind: .uppercut, punches: 4, mean: ["rise": 0.6, "stop_width": 0.2, "rule_uppercut": 1], recognised: 2),
        ],
        spread: ["rise": 0.2, "stop_width": 0.04, "rule_jab": 0.3], typicalPeakG: 6.5)

    func decode(_ text: String) throws(ProfileFileError) -> PunchProfile {
        try PunchProfile.decode(Data(text.utf8), source: "p.json")
    }

    @Test func aProfileReadsBackAsItWasWritten() throws {
        let text = profile.json
        #expect(try decode(text) == profile)
        // A person can read it: one field a line, names not numbers.
        #expect(text.contains("\"kind\" : \"uppercut\""))
        #expect(text.contains("\"stop_width\""))
        #expect(text.split(separator: "\n").count > 10)
    }

    @Test func aFileIsReadFromItsPathAndAMissingOneCannotBeOpened() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ProfileFileError.self) { try PunchProfile.read(from: path) }
        do {
            _ = try PunchProfile.read(from: path)
        } catch {
            #expect(error.cause == .cannotOpen)
            #expect(error.description.hasPrefix(path))
        }
        try Data(profile.json.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try PunchProfile.read(from: path) == profile)
    }

    @Test(arguments: [
        ("{", "expected a profile's JSON"),
        ("[]", "expected a profile's JSON"),
        (#"{"version": 1}"#, #"expected a field "hand""#),
        ("VERSION_2", "version 2: teach it again"),
        ("NO_KINDS", "at least one kind"),
        ("TWICE", "each kind at most once"),
        ("NEGATIVE_SPREAD", "positive spreads"),
        ("ZERO_PEAK", "\"typicalPeakG\""),
        ("BAD_KIND", "kinds[0].kind"),
    ])
    func aBadFileSaysWhatWasExpectedWhere(text: String, expected: String) {
        let good = profile.json
        let variants: [String: String] = [
            "VERSION_2": good.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 2"),
            "NO_KINDS": replacingKinds(in: good, with: "[]"),
            "TWICE": good.replacingOccurrences(of: "\"kind\" : \"uppercut\"", with: "\"kind\" : \"jab\""),
            "NEGATIVE_SPREAD": good.replacingOccurrences(of: "\"rise\" : 0.2", with: "\"rise\" : -0.2"),
            "ZERO_PEAK": good.replacingOccurrences(of: "\"typicalPeakG\" : 6.5", with: "\"typicalPeakG\" : 0"),
            "BAD_KIND": good.replacingOccurrences(of: "\"kind\" : \"jab\"", with: "\"kind\" : \"kick\""),
        ]
        let input = variants[text] ?? text
        #expect(input != good)
        do {
            _ = try decode(input)
            Issue.record("\(text) was read as a profile")
        } catch {
            #expect(error.cause == .malformed)
            #expect(error.description.hasPrefix("p.json: "))
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    /// The file with its list of kinds replaced.
    private func replacingKinds(in text: String, with replacement: String) -> String {
        guard let start = text.range(of: "\"kinds\" : ["),
            let end = text.range(of: "\n  ],", range: start.upperBound..<text.endIndex)
        else { return text }
        return text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: "\"kinds\" : \(replacement),")
    }
}
