import Foundation
import InputDevicesTestSupport
import Testing

/// `devices` and `listen` against fake controller nodes served through FUSE: real open(2),
/// ioctl(2) and read(2), from the built binary.
@Suite(
    .enabled(
        if: FakeEvdev.isAvailable,
        "needs /dev/fuse, cc, pkg-config and libfuse3-dev (apt: fuse3 libfuse3-dev pkg-config)"),
    .timeLimit(.minutes(2))
)
struct LiveInputCommandTests {
    /// A simulated session as raw events at a DualSense's 8192 units per g (so ±4 g), and the same
    /// session as a CSV trace clipped at the same range.
    func dualSenseSession(seed: Int, in directory: URL) throws -> (events: [UInt8], csv: String) {
        let base = directory.appendingPathComponent("s\(seed)").path
        // With a gyroscope: a DualSense reports one, and the trace carries the same turns.
        let common = ["simulate", "--seed", "\(seed)", "--punches", "8", "--range", "4", "--gyroscope"]
        #expect(
            try hitthat(common + ["--format", "input-events", "--scale", "8192", "--output", base + ".events"]).status
                == 0)
        #expect(try hitthat(common + ["--output", base + ".csv"]).status == 0)
        return (Array(try Data(contentsOf: URL(fileURLWithPath: base + ".events"))), base + ".csv")
    }

    func punches(_ output: String) throws -> [String] {
        try jsonLines(output).map { "\($0["type"] as? String ?? "?")@\((($0["t"] as? Double ?? -1) * 1000).rounded())" }
    }

    @Test func devicesListsTheControllersWithTheirAxesAndKnownNames() throws {
        let fixture = try FakeInputDirectory([
            .dualSense(events: []), .joyCon(events: []), .wiiRemote(events: []),
            .evdev(
                "event0", name: "AT Translated Set 2 keyboard", id: [0x11, 1, 1, 0xAB41], accelerometer: false,
                axes: [], keys: true, events: []),
        ])
        defer { fixture.stop() }
        let text = try hitthat(["devices", "--directory", fixture.path])
        #expect(text.status == 0, "\(text.error)")
        for expected in [
            "event3", "DualSense", "event5", "Joy-Con", "event7", "Wii Remote", "8192 units per g", "resolution 8192",
        ] {
            #expect(text.output.contains(expected), "missing \(expected) in \(text.output)")
        }
        #expect(!text.output.contains("keyboard"))
        #expect(text.error.contains("3 motion sensors, 1 other input nodes"))

        let json = try hitthat(["devices", "--json", "--directory", fixture.path])
        let report = try #require(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let devices = try #require(report["devices"] as? [[String: Any]])
        #expect(devices.map { $0["path"] as? String ?? "" } == ["event3", "event5", "event7"].map(fixture.node))
        #expect((devices[0]["units_per_g"] as? Double) == 8192)
        #expect((devices[0]["axes"] as? [[String: Any]])?.count == 6)
        #expect(report["other_nodes"] as? Int == 1)
    }

    @Test func listeningToAControllerGivesThePunchesOfTheSameMotionAsATrace() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try dualSenseSession(seed: 12, in: directory)
        let fixture = try FakeInputDirectory([.dualSense(events: session.events)])
        defer { fixture.stop() }
        let live = try hitthat(["listen", "--json", fixture.node("event3")])
        #expect(live.status == 0, "\(live.error)")
        let fromTrace = try punches(try hitthat(["detect", "--json", session.csv]).output)
        #expect(fromTrace.count >= 6)
        #expect(try punches(live.output) == fromTrace)
        for line in try jsonLines(live.output) {
            let latency = try #require(line["latency_ms"] as? Double)
            #expect(latency >= 0)
        }
    }

    @Test func anUnpluggedControllerEndsTheListenWithAClearMessage() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try dualSenseSession(seed: 13, in: directory)
        var node = FakeNode.dualSense(events: session.events)
        node.unplugAt = session.events.count / 2 / 24 * 24
        let fixture = try FakeInputDirectory([node])
        defer { fixture.stop() }
        let result = try hitthat(["listen", fixture.node("event3")])
        #expect(result.status != 0)
        #expect(result.error.contains("unplugged"), "\(result.error)")
        #expect(result.error.contains("punch"), "the summary comes before the error: \(result.error)")
    }

    @Test func noPermissionSaysWhichGroupToJoin() throws {
        var node = FakeNode.dualSense(events: [])
        node.denyOpen = true
        let fixture = try FakeInputDirectory([node])
        defer { fixture.stop() }
        let result = try hitthat(["listen", fixture.node("event3")])
        #expect(result.status != 0)
        #expect(result.error.contains("permission denied"), "\(result.error)")
    }
}
