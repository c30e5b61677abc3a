import Foundation
import Testing

/// `hitthat calibrate` learns a profile from labelled recordings; `--profile` types punches by it.
@Suite struct CalibrateCommandTests {
    /// A simulated session of every kind, held upright (one grip, as one player's), with a
    /// gyroscope, and its labels cut to the punches `detect` finds: the simulator throws some too
    /// slow to find.
    func session(_ name: String, seed: Int, in directory: URL) throws -> String {
        let trace = directory.appendingPathComponent("\(name).csv").path
        let made = try hitthat([
            "simulate", "--seed", "\(seed)", "--punches", "24", "--kinds", "jab", "uppercut", "hook", "--upright",
            "--gyroscope", "--output", trace,
        ])
        try #require(made.status == 0, "\(made.error)")
        let found = try jsonLines(try hitthat(["detect", "--json", trace]).output).compactMap { $0["t"] as? Double }
        let labelsPath = directory.appendingPathComponent("\(name).labels.csv")
        let lines = try String(contentsOf: labelsPath, encoding: .utf8).split(separator: "\n")
        let kept = lines.dropFirst().filter { line in
            let fields = line.split(separator: ",")
            guard let start = Double(fields[0]), let end = Double(fields[1]) else { return false }
            return found.contains { $0 >= start - 0.3 && $0 <= end + 0.3 }
        }
        try ([String(lines[0])] + kept.map(String.init)).joined(separator: "\n").write(
            to: labelsPath, atomically: true, encoding: .utf8)
        return trace
    }

    @Test func aProfileIsLearnedAndTypesPunchesWithHowSure() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let teaching = try session("teach", seed: 3, in: directory)
        let profile = directory.appendingPathComponent("me.json").path
        let learned = try hitthat(["calibrate", "--hand", "left", "--output", profile, teaching])
        #expect(learned.status == 0, "\(learned.error)")
        #expect(learned.error.contains("learned jab"), "\(learned.error)")
        #expect(learned.error.contains("with the gyroscope"))
        let text = try String(contentsOfFile: profile, encoding: .utf8)
        #expect(text.contains("\"hand\" : \"left\""))

        let other = try session("later", seed: 4, in: directory)
        let plain = try jsonLines(try hitthat(["detect", "--json", other]).output)
        let typed = try hitthat(["detect", "--json", "--profile", profile, other])
        #expect(typed.status == 0, "\(typed.error)")
        let lines = try jsonLines(typed.output)
        #expect(lines.count >= 10)
        #expect(lines.map { $0["t"] as? Double } == plain.map { $0["t"] as? Double })
        #expect(lines.allSatisfy { ($0["confidence"] as? Double).map { $0 > 0 && $0 <= 1 } ?? false })
        #expect(plain.allSatisfy { $0["confidence"] == nil })
        // evaluate and plot take it too.
        #expect(try hitthat(["evaluate", "--profile", profile, other]).status == 0)
        let plotted = try hitthat(["plot", "--profile", profile, other, "-o", "-"])
        #expect(plotted.status == 0 && plotted.output.hasPrefix("<svg"))
    }

    @Test func withoutLabelsBesideARecordingItIsMissingInput() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = try session("teach", seed: 3, in: directory)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("teach.labels.csv"))
        let result = try hitthat(["calibrate", "--output", directory.appendingPathComponent("p.json").path, trace])
        #expect(result.status == 66)
        #expect(result.error.contains("teach.labels.csv"), "\(result.error)")
    }

    @Test func aLabelWithNoPunchInItIsNamed() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = try session("teach", seed: 3, in: directory)
        let labels = directory.appendingPathComponent("teach.labels.csv")
        // Before the first punch: the session's first second has none.
        try (String(contentsOf: labels, encoding: .utf8) + "\n0.0,0.2,hook\n").write(
            to: labels, atomically: true, encoding: .utf8)
        let result = try hitthat(["calibrate", "--output", directory.appendingPathComponent("p.json").path, trace])
        #expect(result.status == 65)
        #expect(result.error.contains("the hook from 0.000 s to 0.200 s: no punch found there"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("p.json").path))
    }

    @Test func aKindWithFewerThanThreePunchesIsRefused() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = try session("teach", seed: 3, in: directory)
        let labels = directory.appendingPathComponent("teach.labels.csv")
        let lines = try String(contentsOf: labels, encoding: .utf8).split(separator: "\n")
        let hooks = lines.filter { $0.hasSuffix(",hook") }
        try #require(hooks.count >= 3)
        try ([lines[0]] + hooks.prefix(2)).joined(separator: "\n").write(to: labels, atomically: true, encoding: .utf8)
        let result = try hitthat(["calibrate", "--output", directory.appendingPathComponent("p.json").path, trace])
        #expect(result.status == 65)
        #expect(result.error.contains("only 2 hooks labelled: a kind needs 3 or more"), "\(result.error)")
    }

    @Test func aProfileThatCannotBeWrittenOrReadSaysWhy() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = try session("teach", seed: 3, in: directory)
        let unwritable = directory.appendingPathComponent("no/such/folder/p.json").path
        let written = try hitthat(["calibrate", "--output", unwritable, trace])
        #expect(written.status == 73)
        #expect(written.error.contains("cannot create it: no such folder"), "\(written.error)")

        let missing = try hitthat(["detect", "--profile", directory.appendingPathComponent("none.json").path, trace])
        #expect(missing.status == 66)
        #expect(missing.error.contains("cannot open the profile"))

        let bad = directory.appendingPathComponent("bad.json")
        try Data(#"{"version": 1, "hand": "right"}"#.utf8).write(to: bad)
        let malformed = try hitthat(["detect", "--profile", bad.path, trace])
        #expect(malformed.status == 65)
        #expect(malformed.error.contains("bad.json: expected a field"), "\(malformed.error)")
    }
}
