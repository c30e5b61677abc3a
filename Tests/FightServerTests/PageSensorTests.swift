import FightEngine
import Foundation
import Testing

/// Swings through the page the way a phone delivers them: Chromium's virtual sensors, driven over
/// DevTools by `tools/sensor_test.py`, fire the browser's own `devicemotion` events into the
/// page's listener; the server decides each swing as `hitthat detect` does the same samples.
extension PageTests {
    /// The three kinds, in the order thrown: a jab's and a hook's ceilings (44 and 47) do not end
    /// the fight between them, so the page has a turn for each.
    static let swingKinds = ["jab", "hook", "uppercut"]

    /// A simulated swing of each kind (one `detect` finds as that kind), replayed at its pace
    /// through Chromium's virtual accelerometer, linear-acceleration sensor and gyroscope while
    /// PUNCH is held, lands the kind `detect` finds in the same samples: the rows the page sent,
    /// at its times, with the readings they came from in the device's frame. A page that sent the
    /// rotation rate's axes in another order would give the server a turn about other axes: at
    /// least one swing is chosen (and checked to be) one `detect` types otherwise with the axes as
    /// the page used to send them, so that such a page fails here.
    @Test(.enabled(if: browser.ready, "\(browser.reason)"))
    func swingsFromChromiumsVirtualSensorsLandWhatDetectFindsInTheSameSamples() async throws {
        // A browser starting loads both cores: not while the terminal fight times its keys.
        await TakingTurns.shared.begin()
        defer { TakingTurns.shared.end() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensors-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("session.csv").path
        // Held upright (its y axis up), a hook turns about the phone's y axis: with the axes as the
        // page used to send them the server would see that turn about x, level, and no hook.
        let simulate = try RunningCommand([
            "simulate", "--gyroscope", "--upright", "--seed", "40", "--punches", "24", "--kinds", "jab", "uppercut",
            "hook", "--output", trace,
        ])
        #expect(try await simulate.exitStatus() == 0, "\(simulate.errorOutput)")
        let swings = try await Self.swingsToThrow(trace, in: folder)

        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let bob = try ScriptClientTests.play(
            "bob", port: port, sensor: "traces/mixed-phyphox.csv", ["--at", "48.8566,2.3522"])
        defer { bob.kill(SIGTERM) }
        bob.send("quick")
        bob.endInput()
        try await bob.wait("bob's room") { output, _ in output.contains { $0.contains(#""openedRoom""#) } ? true : nil }

        let page = try RunningCommand(
            [
                "python3", "tools/sensor_test.py", "--page", "http://127.0.0.1:\(port)/", "--user", "carol",
                "--opponent", "bob", "--trace", trace, "--out", folder.path,
            ] + swings.flatMap { ["--swing", "\($0.start),\($0.end),\($0.kind)"] },
            executable: URL(fileURLWithPath: "/usr/bin/env"))
        defer { page.kill(SIGTERM) }
        try #require(try await page.exitStatus(seconds: 300) == 0, "\(page.errorOutput.suffix(8))")
        let line = try #require(page.output.last, "no outcome")
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let thrown = try #require(outcome["swings"] as? [[String: Any]])
        try #require(thrown.count == swings.count, "\(outcome)")

        var typedOtherwiseSwapped = 0
        for swing in thrown {
            let (name, file) = (try #require(swing["name"] as? String), try #require(swing["file"] as? String))
            let pressed = try #require(swing["pressed"] as? Double)
            // The first punch detect finds in the same samples from the press on (those before it
            // were the hold's lead-in), as the server reads a hold.
            let detected = try await Self.firstKind(in: file, from: pressed)
            let landed = swing["landed"] as? Bool == true ? swing["punch"] as? String : nil
            let decided = landed.map { String($0.split(separator: " ")[0]) }
            #expect(decided == detected, "\(name): the server decided \(swing), detect \(detected ?? "none")")
            let swapped = folder.appendingPathComponent("\(name)-swapped.csv").path
            try Self.withRotationAsThePageUsedToSendIt(file, to: swapped)
            if try await Self.firstKind(in: swapped, from: pressed) != detected { typedOtherwiseSwapped += 1 }
        }
        #expect(typedOtherwiseSwapped > 0, "no swing typed otherwise with the axes swapped: this test cannot tell")
    }

    /// A labelled punch of the trace to throw.
    struct Swing {
        var kind: String
        var start: Double
        var end: Double
    }

    /// One labelled punch of each of `swingKinds` that `detect` finds as its kind, preferring one it
    /// types otherwise with the rotation rate's axes as the page used to send them.
    static func swingsToThrow(_ trace: String, in folder: URL) async throws -> [Swing] {
        let labelFile = trace.replacingOccurrences(of: ".csv", with: ".labels.csv")
        let labels = try String(contentsOfFile: labelFile, encoding: .utf8)
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        let swapped = folder.appendingPathComponent("session-swapped.csv").path
        try withRotationAsThePageUsedToSendIt(trace, to: swapped)
        let right = try await ScriptClientTests.detectedPunches(trace)
        let wrong = try await ScriptClientTests.detectedPunches(swapped)
        func kind(in punches: [(t: Double, wire: String)], within swing: Swing) -> String? {
            let near = punches.first { (swing.start - 0.1...swing.end + 0.1).contains($0.t) }
            return near.map { String($0.wire.split(separator: " ")[0]) }
        }
        let found = labels.compactMap { fields -> Swing? in
            guard fields.count >= 3, let start = Double(fields[0]), let end = Double(fields[1]) else { return nil }
            let swing = Swing(kind: fields[2], start: start, end: end)
            return kind(in: right, within: swing) == swing.kind ? swing : nil
        }
        return try swingKinds.map { wanted in
            let ofKind = found.filter { $0.kind == wanted }
            let telling = ofKind.first { kind(in: wrong, within: $0) != wanted }
            return try #require(telling ?? ofKind.first, "no \(wanted) in the session that detect finds as one")
        }
    }

    /// The kind of the first punch `detect` finds in `trace` from `pressed` (seconds) on, if any.
    static func firstKind(in trace: String, from pressed: Double) async throws -> String? {
        try await ScriptClientTests.detectedPunches(trace).first { $0.t >= pressed }.map {
            String($0.wire.split(separator: " ")[0])
        }
    }

    /// `trace` (`t,x,y,z,gx,gy,gz`) with its rotation rate as the page sent it before it followed
    /// the spec: `rotationRate`'s beta, gamma, alpha, that is the rates about y, z and x, as gx, gy, gz.
    static func withRotationAsThePageUsedToSendIt(_ trace: String, to path: String) throws {
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let rows = lines.dropFirst().map { line -> String in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 7 else { return String(line) }
            return (fields[0..<4] + [fields[5], fields[6], fields[4]]).joined(separator: ",")
        }
        let text = ([String(lines[0])] + rows).joined(separator: "\n") + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
