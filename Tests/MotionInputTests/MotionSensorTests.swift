import Foundation
import InputDevices
import MotionInput
import PunchKit
import PunchSimulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A player's sensor as `play --sensor` names it, told apart and opened in the library, without
/// a process: which paths are devices, which are traces, and which are read whole or live.
@Suite struct MotionSensorTests {
    // MARK: - Telling a device from a trace

    @Test(arguments: [
        // Named like a node, even where there is none: a missing node fails as a node.
        ("/dev/input/event3", false, SensorInput.inputNode(path: "/dev/input/event3")),
        ("/dev/input/js0", false, .inputNode(path: "/dev/input/js0")),
        ("event12", false, .inputNode(path: "event12")),
        // A character device, whatever its name.
        ("/dev/null", false, .inputNode(path: "/dev/null")),
        // Anything else is a trace, even with a node's name inside it.
        ("traces/mixed-generic-100hz.csv", false, .trace(path: "traces/mixed-generic-100hz.csv")),
        ("/tmp/event3.csv", false, .trace(path: "/tmp/event3.csv")),
        ("-", false, .trace(path: "-")),
        // Raw events when the caller says so, even on a node's name.
        ("-", true, .rawEvents(path: "-")),
        ("/dev/input/event3", true, .rawEvents(path: "/dev/input/event3")),
    ])
    func aPathIsAnInputNodeByItsNameOrItsKindAndOtherwiseATrace(path: String, rawEvents: Bool, expected: SensorInput) {
        #expect(SensorInput(path: path, rawEvents: rawEvents) == expected)
        #expect(expected.path == path)
    }

    // MARK: - Opening

    /// The joystick interface has no units, so one without units per g is refused before the
    /// node is opened (here there is none to open).
    @Test func aJoystickWithoutUnitsPerGIsRefusedBeforeItIsOpened() {
        #expect(throws: MotionSourceError.joystickWithoutScale(path: "/nonexistent/js0")) {
            try MotionSourceSettings().open("/nonexistent/js0", rawEvents: false)
        }
        // With them, it gets as far as opening the node.
        #expect(throws: InputDeviceError.self) {
            try MotionSourceSettings(overrides: MotionOverrides(unitsPerG: 8192)).open("/nonexistent/js0", rawEvents: false)
        }
    }

    @Test func aMissingNodeOrTraceFailsWhenTheSensorIsOpened() {
        #expect(throws: InputDeviceError.self) {
            try MotionFeed.opening(.inputNode(path: "/nonexistent/event9"))
        }
        #expect(throws: TraceInputError.self) {
            try MotionFeed.opening(.trace(path: "/nonexistent/trace.csv"))
        }
    }

    // MARK: - A recording or a live feed

    /// A trace in a file is a recording: read whole when opened, every sample handed out in order.
    @Test func aTraceFileIsARecordingOfAllItsSamples() async throws {
        var text = ""
        TraceWriter(.generic).write(session, to: &text)
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try TraceFile(path: path)
        var expected: [Double] = []
        try file.forEachSample { expected.append($0.time) }

        let feed = try MotionFeed.opening(.trace(path: path), pace: MotionFeedTests.fast)
        #expect(!feed.isLive)
        #expect(try await handedOut(feed) == expected)
        #expect(expected.count >= 1000)
    }

    /// Raw events in a regular file are a recording too; the same events from a pipe are the
    /// player punching now.
    @Test func rawEventsInAFileAreARecordingAndFromAPipeLive() async throws {
        let bytes = rawEvents(of: session, unitsPerG: 2048)
        let path = try temporaryFile("", name: "events.raw")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let motion = MotionSourceSettings(overrides: MotionOverrides(unitsPerG: 2048))

        var frames = FrameSamples(try motion.open(path, rawEvents: true))
        var expected: [Double] = []
        try frames.forEachSample { expected.append($0.time) }
        let recording = try MotionFeed.opening(.rawEvents(path: path), motion: motion, pace: MotionFeedTests.fast)
        #expect(!recording.isLive)
        #expect(try await handedOut(recording) == expected)
        #expect(expected.count >= 1000)

        let fifo = path + ".fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // Opening a pipe waits for its writer.
        let writer = Thread {
            let descriptor = open(fifo, O_WRONLY)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
        writer.start()
        let live = try MotionFeed.opening(.rawEvents(path: fifo), motion: motion)
        #expect(live.isLive)
        #expect(await live.stopped() == nil, "the pipe ended, it did not fail")
    }

    // MARK: - Helpers

    /// The times of every sample `feed` hands out, until it has no more.
    private func handedOut(_ feed: MotionFeed) async throws -> [Double] {
        var times: [Double] = []
        while let samples = await feed.next(since: .now) { times += samples.map(\.time) }
        return times
    }

    /// `samples` as a simulated accelerometer's raw `input_event` records.
    private func rawEvents(of samples: [MotionSample], unitsPerG: Double) -> [UInt8] {
        var encoder = InputEventEncoder(unitsPerG: unitsPerG)
        var bytes: [UInt8] = []
        for sample in samples {
            for event in encoder.events(for: sample) { event.append(to: &bytes, layout: .native) }
        }
        return bytes
    }
}
