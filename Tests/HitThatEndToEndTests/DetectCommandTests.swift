import Foundation
import Testing

@Suite struct DetectCommandTests {
    /// One simulated session written in every format gives the same punches from each: what is
    /// asserted is that the formats are read alike, not how well simulated punches are found.
    @Test func everyFormatOfOneSessionGivesTheSamePunches() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var found: [String: [String]] = [:]
        for format in ["generic", "phyphox", "sensor-logger", "physics-toolbox"] {
            let trace = directory.appendingPathComponent("\(format).csv").path
            let made = try hitthat(["simulate", "--seed", "5", "--punches", "8", "--format", format, "--output", trace])
            #expect(made.status == 0, "\(made.error)")
            let result = try hitthat(["detect", "--json", trace])
            #expect(result.status == 0, "\(result.error)")
            let punches = try jsonLines(result.output)
            #expect(punches.count >= 4, "\(format): \(result.output)")
            for punch in punches {
                #expect(["jab", "uppercut", "hook"].contains(punch["type"] as? String ?? ""))
                #expect((punch["damage"] as? Int ?? 0) >= 1)
                #expect(punch["t"] is Double && punch["peak_g"] is Double)
            }
            #expect(result.error.contains("\(punches.count) punches"))
            // To the centisecond: the formats round their numbers differently.
            found[format] = punches.map { punch in
                String(format: "%.2f %@", punch["t"] as? Double ?? -1, punch["type"] as? String ?? "")
            }
        }
        #expect(Set(found.values).count == 1, "\(found)")
    }

    @Test(arguments: [
        "mixed-generic-100hz", "mixed-phyphox", "left-phyphox-decimal-comma", "linear-phyphox-tab-400hz",
        "sensor-logger-TotalAcceleration", "glove-physics-toolbox-25hz-clipped",
    ])
    func standardInputGivesWhatTheFileGives(name: String) throws {
        // A file past its first 64 KB is read half a chunk on each core; a pipe is read in order.
        let trace = "traces/\(name).csv"
        let fromFile = try hitthat(["detect", "--json", trace])
        let fromPipe = try hitthat(
            ["detect", "--json", "-"], input: try Data(contentsOf: packageRoot.appendingPathComponent(trace)))
        #expect(fromFile.status == 0 && fromPipe.status == 0)
        #expect(!fromFile.output.isEmpty)
        #expect(fromFile.output == fromPipe.output)
        // The summary too (samples, time span, what was passed over), after the source's name.
        #expect(fromFile.error.drop { $0 != ":" } == fromPipe.error.drop { $0 != ":" })
    }

    /// `punches`, built without the game, has the motion commands and prints what `hitthat` does.
    @Test func punchesDetectsAsHitthatDoesWithoutTheGame() throws {
        let trace = "traces/mixed-phyphox.csv"
        let full = try hitthat(["detect", "--json", trace])
        let light = try hitthat(["detect", "--json", trace], executable: "punches")
        #expect(light.status == 0 && !light.output.isEmpty)
        #expect(light.output == full.output)
        let help = try hitthat(["--help"], executable: "punches")
        for command in ["detect", "evaluate", "calibrate", "plot", "simulate", "devices", "listen"] {
            #expect(help.output.contains("  \(command)"), "\(command) in \(help.output)")
        }
        #expect(!help.output.contains("  serve") && !help.output.contains("  play "))
        #expect(try hitthat(["serve"], executable: "punches").status == 64)
    }

    @Test func theTableHasAHeaderAndARowAPunch() throws {
        let result = try hitthat(["detect", "traces/mixed-generic-100hz.csv"])
        let lines = result.output.split(separator: "\n")
        #expect(lines.first?.contains("type") == true)
        let json = try hitthat(["detect", "--json", "traces/mixed-generic-100hz.csv"])
        #expect(lines.count - 1 == json.output.split(separator: "\n").count)
    }

    @Test func eachPunchIsWrittenBeforeTheStreamEnds() throws {
        // Feed half a trace through a pipe that stays open: the punches in that half must come out.
        let text = try String(
            contentsOf: packageRoot.appendingPathComponent("traces/mixed-generic-100hz.csv"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let half = lines.prefix(lines.count / 2).joined(separator: "\n") + "\n"

        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("hitthat")
        process.arguments = ["detect", "--json", "-"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        input.fileHandleForWriting.write(Data(half.utf8))
        // The first punch line must arrive while standard input is still open. A watchdog closes
        // it after a generous while, so a broken build fails instead of hanging.
        let watchdog = Watchdog()
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
            watchdog.fire()
            try? input.fileHandleForWriting.close()
        }
        let firstLine = output.fileHandleForReading.availableDataBlocking(upTo: 1)
        #expect(!watchdog.fired, "no punch came out until standard input was closed")
        #expect(String(decoding: firstLine, as: UTF8.self).contains("\"type\""))
    }

    @Test func anEmptyTraceSaysSoAndSucceeds() throws {
        let result = try hitthat(["detect", "-"], input: Data("t,x,y,z\n".utf8))
        #expect(result.status == 0)
        #expect(result.output.isEmpty)
        #expect(result.error.contains("no samples"))
    }

    @Test(arguments: [
        ("t,x,y,z\n0,0,0,1\n0.01,0,abc,1\n", ":3:3:"),
        ("t,x,y,z\n0,0,0,1\n0.01,0,0\n", ":3:"),
        ("t,x,y,z\n0.02,0,0,1\n0.01,0,0,1\n", ":3:1:"),
        ("t,x,y,z\n0,0,0,1\n0.01,0,nan,1\n", ":3:3:"),
        ("when,a,b\n0,1,2\n", ":1:"),
        ("\"Time (s)\",\"X (rad/s)\",\"Y (rad/s)\",\"Z (rad/s)\"\n0,0.1,0.2,0.3\n", ":1:2:"),
    ])
    func badInputNamesTheLineAndColumnAndExitsWith65(text: String, location: String) throws {
        let result = try hitthat(["detect", "-"], input: Data(text.utf8))
        #expect(result.status == 65)
        #expect(result.error.contains("-\(location)"), "\(result.error)")
        #expect(result.error.contains("expected"))
    }

    @Test func everyPunchBeforeABadRowIsWrittenFirst() throws {
        // A trace of several 64 KB chunks that breaks at its last row: what comes out is what the
        // good rows give, less the punch only the end of the stream decides, and then the error.
        // The last chunk, the one that fails, holds punches of its own.
        let whole = try Data(contentsOf: packageRoot.appendingPathComponent("traces/mixed-phyphox.csv"))
        let newline = UInt8(ascii: "\n")
        let cut = try #require(whole[(4 * 65_536 + 60_000)...].firstIndex(of: newline)) + 1
        let good = whole[..<cut]
        let lastChunkRow = try #require(whole[(4 * 65_536)...].firstIndex(of: newline)) + 1
        let lastChunkTime = try #require(
            Double(String(decoding: whole[lastChunkRow...].prefix { $0 != UInt8(ascii: ",") }, as: UTF8.self)))

        let clean = try hitthat(["detect", "--json", "-"], input: good)
        let broken = try hitthat(["detect", "--json", "-"], input: good + Data("1e9;oops\n".utf8))
        #expect(clean.status == 0 && broken.status == 65)
        // From a file, where the bad row is in the half of the last chunk read on another core:
        // the same punches first, and the same error.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("broken.csv")
        try (good + Data("1e9;oops\n".utf8)).write(to: file)
        let brokenFile = try hitthat(["detect", "--json", file.path])
        #expect(brokenFile.status == 65)
        #expect(brokenFile.output == broken.output)
        #expect(brokenFile.error.replacingOccurrences(of: file.path, with: "-") == broken.error)
        let rows = good.split(separator: newline).count
        #expect(broken.error.contains("-:\(rows + 1):"), "\(broken.error)")
        let (cleanLines, brokenLines) = (clean.output.split(separator: "\n"), broken.output.split(separator: "\n"))
        let times = try cleanLines.map { try JSONDecoder().decode(PunchTime.self, from: Data($0.utf8)).t }
        try #require(times.dropLast().contains { $0 > lastChunkTime + 0.1 }, "a punch in the last chunk")
        #expect(brokenLines.count == cleanLines.count - 1 || brokenLines.count == cleanLines.count)
        #expect(Array(cleanLines.prefix(brokenLines.count)) == brokenLines)
    }

    /// The time of a punch in `detect --json`.
    struct PunchTime: Decodable { var t: Double }

    /// A file that is not there is no input (sysexits' 66), not bad data (65).
    @Test func aMissingFileExitsWith66() throws {
        let result = try hitthat(["detect", "no-such-trace.csv"])
        #expect(result.status == 66)
        #expect(result.error.contains("no-such-trace.csv"))
        let evaluate = try hitthat(["evaluate", "no-such-folder"])
        #expect(evaluate.status == 66)
        #expect(evaluate.error.contains("no-such-folder: cannot open"))
    }

    /// A recording as its app exports it is one trace to `evaluate`: a folder with its labels
    /// beside it, named, or found in a folder of traces.
    @Test func evaluateScoresAnExportFolderWithItsLabelsBesideIt() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let export = directory.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
        let simulate = try hitthat(["simulate", "--seed", "3", "--punches", "6", "--output", export.path + "/Accelerometer.csv"])
        #expect(simulate.status == 0, "\(simulate.error)")
        try FileManager.default.moveItem(
            at: export.appendingPathComponent("Accelerometer.labels.csv"),
            to: directory.appendingPathComponent("run.labels.csv"))
        for target in [export.path, directory.path] {
            let result = try hitthat(["evaluate", "--json", target])
            #expect(result.status == 0, "\(result.error)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let traces = try #require(report["traces"] as? [[String: Any]])
            #expect(traces.count == 1, "\(result.output)")
            #expect((traces.first?["labels"] as? Int) == 6, "\(result.output)")
        }
    }

    @Test func aSensorLoggerGyroscopeFileIsRefusedAsOneWith65() throws {
        // The same header as TotalAcceleration.csv: only the name says it is a gyroscope's.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Gyroscope.csv")
        try Data("time,seconds_elapsed,z,y,x\n1,0,0.1,0.2,0.3\n".utf8).write(to: file)
        let result = try hitthat(["detect", "--lenient", file.path])
        #expect(result.status == 65)
        #expect(result.error.contains("\(file.path):1: expected acceleration"), "\(result.error)")
        #expect(result.error.contains("gyroscope (rotation rate) file"), "\(result.error)")
    }

    @Test func lenientSkipsBadRowsAndCountsThem() throws {
        let text = "t,x,y,z\n0,0,0,1\n0.01,0,abc,1\n0.02,0,0,1\n0.03,0,0\n0.04,0,0,1\n"
        let result = try hitthat(["detect", "--lenient", "-"], input: Data(text.utf8))
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("2 bad rows skipped"), "\(result.error)")
    }
}

@Suite struct EvaluateCommandTests {
    /// `evaluate` scores what `detect` finds: each trace's count of detections is detect's, and
    /// its true and false positives add up to it. (The bundled traces are simulated, so how well
    /// they score says nothing of the detector: `RealRecordingsTests` judges that.)
    @Test func evaluateScoresWhatDetectFinds() throws {
        let result = try hitthat(["evaluate", "--json", "traces"])
        #expect(result.status == 0, "\(result.error)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let traces = try #require(report["traces"] as? [[String: Any]])
        #expect(traces.count >= 4)
        for trace in traces {
            let name = try #require(trace["trace"] as? String)
            let detected = try #require(trace["detected"] as? Int)
            let detection = try #require(trace["detection"] as? [String: Any])
            let truePositives = try #require(detection["true_positives"] as? Int)
            let falsePositives = try #require(detection["false_positives"] as? Int)
            #expect(truePositives + falsePositives == detected, "\(name)")
            let detect = try hitthat(["detect", "--json", name])
            #expect(try jsonLines(detect.output).count == detected, "\(name)")
        }
    }

    @Test func aTraceWithoutLabelsIsAnError() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("x.csv")
        try Data("t,x,y,z\n0,0,0,1\n".utf8).write(to: trace)
        let result = try hitthat(["evaluate", trace.path])
        #expect(result.status == 66, "a labels file that is not there is no input")
        #expect(result.error.contains("no labels file"))
    }

    @Test func wrongDetectionsShowInTheConfusionTable() throws {
        // Labels that claim every punch is a hook, at the right times: the kinds must show as wrong.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("s.csv").path
        _ = try hitthat(["simulate", "--seed", "9", "--punches", "6", "--kinds", "jab", "--output", trace])
        let labelsURL = directory.appendingPathComponent("s.labels.csv")
        let labels = try String(contentsOf: labelsURL, encoding: .utf8).replacingOccurrences(of: ",jab", with: ",hook")
        try labels.write(to: labelsURL, atomically: true, encoding: .utf8)
        let result = try hitthat(["evaluate", "--json", trace])
        let report = try #require(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let confusion = try #require(report["confusion"] as? [String: [String: Int]])
        #expect(confusion["hook"]?["jab"] == 6)
        #expect((report["kind_accuracy"] as? Double) == 0)
    }
}

/// A flag set from another thread.
final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var fired: Bool { lock.withLock { value } }
    func fire() { lock.withLock { value = true } }
}

extension FileHandle {
    /// Blocks until at least `count` bytes are available, or the other end closes.
    func availableDataBlocking(upTo count: Int) -> Data {
        var data = Data()
        while data.count < count {
            let chunk = availableData
            if chunk.isEmpty { break }
            data += chunk
        }
        return data
    }
}
