import Foundation
import Testing

@Suite struct ListenCommandTests {
    /// The punches of a `--json` output, as (time, type) pairs.
    func punches(_ output: String) throws -> [String] {
        try jsonLines(output).map { punch in
            let time = try #require(punch["t"] as? Double)
            let type = try #require(punch["type"] as? String)
            return "\(type)@\((time * 1000).rounded())"
        }
    }

    /// A simulated session as a CSV trace, an evemu recording and raw events, in a temporary directory.
    func session(
        seed: Int, in directory: URL, eventSize: Int = 24, gyroscope: Bool = false
    ) throws -> (csv: String, evemu: String, events: String) {
        let base = directory.appendingPathComponent("s\(seed)").path
        let common =
            ["simulate", "--seed", "\(seed)", "--punches", "8", "--random-sensor"] + (gyroscope ? ["--gyroscope"] : [])
        for (format, file) in [("generic", base + ".csv"), ("evemu", base + ".evemu")] {
            let result = try hitthat(common + ["--format", format, "--output", file])
            #expect(result.status == 0, "\(result.error)")
        }
        let events = try hitthat(
            common + ["--format", "input-events", "--event-size", "\(eventSize)", "--output", base + ".events"])
        #expect(events.status == 0, "\(events.error)")
        return (base + ".csv", base + ".evemu", base + ".events")
    }

    @Test(arguments: [3, 4, 5])
    func aReplayedRecordingGivesThePunchesOfItsTrace(seed: Int) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try session(seed: seed, in: directory)
        let fromTrace = try punches(try hitthat(["detect", "--json", files.csv]).output)
        let replay = try hitthat(["listen", "--json", "--evemu", files.evemu])
        #expect(replay.status == 0, "\(replay.error)")
        #expect(!fromTrace.isEmpty)
        #expect(try punches(replay.output) == fromTrace)
        for punch in try jsonLines(replay.output) { #expect(punch["latency_ms"] is Double) }
    }

    /// A capture with a gyroscope (ABS_RX/RY/RZ) carries it: the replay types its punches with
    /// the turns, as `detect` does the same motion's trace with rotation columns.
    @Test func aReplayedRecordingWithAGyroscopeGivesThePunchesOfItsTrace() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try session(seed: 12, in: directory, gyroscope: true)
        let header = try String(contentsOfFile: files.evemu, encoding: .utf8)
        #expect(header.contains("\nA: 03 ") && header.contains("\nA: 05 "), "rotation axes in the header")
        let detected = try hitthat(["detect", "--json", files.csv])
        let replay = try hitthat(["listen", "--json", "--evemu", files.evemu])
        #expect(replay.status == 0, "\(replay.error)")
        #expect(try !punches(detected.output).isEmpty)
        #expect(try punches(replay.output) == punches(detected.output))
        // Typed with the gyroscope: each punch says how far the device turned.
        for punch in try jsonLines(replay.output) { #expect(punch["turn_deg"] is Double) }
    }

    @Test(arguments: [24, 16])
    func aPipeOfRawEventsGivesThePunchesOfItsTrace(eventSize: Int) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try session(seed: 6, in: directory, eventSize: eventSize)
        let fromTrace = try punches(try hitthat(["detect", "--json", files.csv]).output)
        let raw = try Data(contentsOf: URL(fileURLWithPath: files.events))
        let piped = try hitthat(
            ["listen", "--json", "-", "--resolution", "2048", "--event-size", "\(eventSize)"], input: raw)
        #expect(piped.status == 0, "\(piped.error)")
        #expect(try punches(piped.output) == fromTrace)
    }

    @Test func aPipeDescribedByAnEvemuHeaderNeedsNoResolution() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try session(seed: 7, in: directory)
        let header = try String(contentsOfFile: files.evemu, encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("E:") }.joined(separator: "\n")
        let info = directory.appendingPathComponent("device.txt")
        try header.write(to: info, atomically: true, encoding: .utf8)
        let raw = try Data(contentsOf: URL(fileURLWithPath: files.events))
        let piped = try hitthat(["listen", "--json", "-", "--device-info", info.path], input: raw)
        #expect(piped.status == 0, "\(piped.error)")
        #expect(try punches(piped.output) == punches(try hitthat(["detect", "--json", files.csv]).output))
    }

    /// A malformed capture is malformed input: exit status 65, as `detect` gives a malformed
    /// trace, with the file, line and column.
    @Test func aMalformedEvemuCaptureExitsWithTheDataErrorStatus() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try session(seed: 9, in: directory)
        let text = try String(contentsOfFile: files.evemu, encoding: .utf8)
        let broken = directory.appendingPathComponent("broken.evemu")
        try text.replacingOccurrences(of: "\nE: ", with: "\nE: oops ", options: [], range: nil)
            .write(to: broken, atomically: true, encoding: .utf8)
        let result = try hitthat(["listen", "--evemu", broken.path])
        #expect(result.status == 65, "\(result.error)")
        #expect(result.error.contains("broken.evemu:"), "\(result.error)")
    }

    @Test func aTruncatedEventEndsWithAClearMessage() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try session(seed: 8, in: directory)
        let raw = try Data(contentsOf: URL(fileURLWithPath: files.events)).prefix(24 * 100 + 10)
        let result = try hitthat(["listen", "-", "--resolution", "2048"], input: Data(raw))
        #expect(result.status != 0)
        #expect(result.error.contains("truncated"), "\(result.error)")
    }

    @Test func aPipeWithoutUnitsIsRefusedWithTheOptionToGive() throws {
        let result = try hitthat(["listen", "-"], input: Data())
        #expect(result.status != 0)
        #expect(result.error.contains("--resolution") || result.error.contains("scale"), "\(result.error)")
    }

    @Test func noSourceSaysWhatIsExpected() throws {
        let result = try hitthat(["listen"])
        #expect(result.status != 0)
        #expect(result.error.contains("Give what to read"), "\(result.error)")
        #expect(!result.error.contains("not both"), "\(result.error)")
    }

    /// `simulate` says what it wrote, on standard error, and where the labels went or why not.
    @Test func simulateSaysWhatItWroteAndWhereTheLabelsWent() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("s.csv").path
        let toFile = try hitthat(["simulate", "--seed", "3", "--punches", "5", "--output", trace])
        #expect(toFile.status == 0)
        #expect(toFile.output.isEmpty)
        #expect(toFile.error.hasPrefix("simulate: 5 punches, "), "\(toFile.error)")
        #expect(
            toFile.error.contains("written to \(trace); labels in \(directory.path)/s.labels.csv"), "\(toFile.error)")

        let toStandardOutput = try hitthat(["simulate", "--seed", "3", "--punches", "5"])
        #expect(toStandardOutput.status == 0)
        #expect(toStandardOutput.output == (try String(contentsOfFile: trace, encoding: .utf8)))
        #expect(toStandardOutput.error.contains("written to standard output; labels not written: give --output"))
    }

    @Test func aFileThatIsNotAnInputDeviceIsRefused() throws {
        let result = try hitthat(["listen", "Package.swift"])
        #expect(result.status != 0)
        #expect(result.error.contains("not an input device"), "\(result.error)")
    }

    @Test func devicesSaysWhatItFoundInADirectory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = try hitthat(["devices", "--directory", directory.path])
        #expect(empty.status == 0, "\(empty.error)")
        #expect(empty.error.contains("0 motion sensors"))
        let missing = try hitthat(["devices", "--directory", directory.appendingPathComponent("none").path])
        #expect(missing.status != 0)
        #expect(missing.error.contains("none"))
    }
}

@Suite struct ListenInterruptTests {
    @Test func ctrlCEndsABlockedListenWithASummary() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = directory.appendingPathComponent("s.events").path
        #expect(
            try hitthat(["simulate", "--seed", "2", "--punches", "3", "--format", "input-events", "--output", events])
                .status == 0)

        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("hitthat")
        process.arguments = ["listen", "-", "--scale", "2048"]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        // The events arrive, then the pipe stays open: listen blocks in read(2) until Ctrl-C.
        input.fileHandleForWriting.write(try Data(contentsOf: URL(fileURLWithPath: events)))
        Thread.sleep(forTimeInterval: 1)
        interruptAndWait(process)
        try input.fileHandleForWriting.close()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0, "\(message)")
        #expect(message.contains("stopped by Ctrl-C"), "\(message)")
        #expect(message.contains("3 punches"), "\(message)")
    }
}
