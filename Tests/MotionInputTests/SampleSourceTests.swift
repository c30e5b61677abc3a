import Foundation
import InputDevices
import MotionInput
import PunchKit
import PunchSimulator
import Testing

// MARK: - Helpers

/// A simulated session of a dozen punches: what every source below carries.
let session = Array(SessionPlan(seed: 11, punchCount: 12, sensor: SensorSettings()).samples)

/// The punches the detector finds taking `samples` one at a time, the last one at the stream's end.
func punchesFed(_ samples: [MotionSample]) -> [Punch] {
    var detector = PunchDetector()
    var punches = samples.compactMap { detector.process($0) }
    if let last = detector.finish() { punches.append(last) }
    return punches
}

/// A file in the temporary directory holding `text`, removed by the caller.
func temporaryFile(_ text: String, name: String = "trace.csv") throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Frames handed out from a list, then an error if one is given.
struct ListedFrames: MotionFrameSource {
    var frames: [MotionFrame]
    var failure: (any Error)?

    mutating func nextFrame() throws -> MotionFrame? {
        if !frames.isEmpty { return frames.removeFirst() }
        if let failure { throw failure }
        return nil
    }
}

func frames(_ samples: [MotionSample]) -> [MotionFrame] {
    samples.map {
        MotionFrame(
            time: $0.time,
            acceleration: MotionVector(x: $0.acceleration.x, y: $0.acceleration.y, z: $0.acceleration.z))
    }
}

struct Unplugged: Error {}

// MARK: - The pump

@Suite struct PumpTests {
    /// A trace file through the pump gives what feeding its samples one at a time gives, in
    /// every format, and the pump sees every sample before the detector takes it.
    @Test(arguments: [TraceWriter.Style.generic, .phyphox(), .sensorLogger(), .physicsToolbox])
    func aTraceFileGivesThePunchesOfItsSamples(style: TraceWriter.Style) throws {
        var text = ""
        TraceWriter(style).write(session, to: &text)
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }

        var read: [MotionSample] = []
        var file = try TraceFile(path: path)
        var found: [Punch] = []
        try file.punches(seeing: { read.append($0) }) { found.append($0) }

        #expect(read.count == session.count)
        #expect(file.summary.sampleCount == session.count)
        #expect(file.isRecording)
        let expected = punchesFed(read)
        #expect(expected.count >= 8)
        #expect(found.map(\.time) == expected.map(\.time))
        #expect(found.map(\.kind) == expected.map(\.kind))
    }

    /// A sensor's frames through the pump give what its samples give.
    @Test func framesGiveThePunchesOfTheirSamples() throws {
        var samples = FrameSamples(ListedFrames(frames: frames(session)))
        var found: [Punch] = []
        try samples.punches { found.append($0) }
        #expect(found.map(\.time) == punchesFed(session).map(\.time))
    }

    /// A punch still waiting when the stream ends is decided then; when the source fails it is
    /// not, since the motion after it is unknown, and the failure comes out.
    @Test func theEndDecidesTheLastPunchAndAFailureDoesNot() throws {
        // The stream cut just before the sample that decides a punch.
        let cut = Array(session.prefix { $0.time < (punchesFed(session).first?.decidedAt ?? 0) })
        var ended = FrameSamples(ListedFrames(frames: frames(cut)))
        var found: [Punch] = []
        try ended.punches { found.append($0) }
        #expect(found.count == 1)

        var failing = FrameSamples(ListedFrames(frames: frames(cut), failure: Unplugged()))
        found = []
        #expect(throws: Unplugged.self) { try failing.punches { found.append($0) } }
        #expect(found.isEmpty)
    }

    /// Ctrl-C on `listen`: an interrupted read, or a stop asked between two reads, ends the
    /// stream as its end would.
    @Test func anInterruptEndsTheStream() throws {
        var interrupted = FrameSamples(
            ListedFrames(frames: frames(session), failure: InputDeviceError.interrupted(path: "/dev/input/event3")))
        var count = 0
        try interrupted.forEachSample { _ in count += 1 }
        #expect(count == session.count)

        var seen = 0
        var stopped = FrameSamples(ListedFrames(frames: frames(session)), until: { seen == 100 })
        try stopped.forEachSample { _ in seen += 1 }
        #expect(seen == 100)
    }
}

// MARK: - Trace files

@Suite struct TraceFileTests {
    @Test func aMissingFileSaysItCannotBeOpened() {
        #expect {
            _ = try TraceFile(path: "/nonexistent/trace.csv")
        } throws: { error in
            "\(error)" == "/nonexistent/trace.csv: cannot open: No such file or directory"
        }
    }

    /// A malformed row stops the read with the file, line and column; lenient reading skips it
    /// and counts it.
    @Test func aMalformedRowSaysWhere() throws {
        let path = try temporaryFile("t,x,y,z\n0,0,0,1\n0.01,0,zero,1\n0.02,0,0,1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let strict = try TraceFile(path: path)
        #expect {
            try strict.forEachSample { _ in }
        } throws: { error in
            error is TraceInputError && "\(error)".hasPrefix("\(path):3:")
        }
        let lenient = try TraceFile(path: path, lenient: true)
        var count = 0
        try lenient.forEachSample { _ in count += 1 }
        #expect(count == 2)
        #expect(lenient.summary.skippedRows == 1)
    }

    @Test func onlyAFileOnDiskIsARecording() throws {
        let path = try temporaryFile("t,x,y,z\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(isRegularFile(path))
        #expect(!isRegularFile("/dev/null"))
        #expect(!isRegularFile(FileManager.default.temporaryDirectory.path))
        #expect(!isRegularFile("/nonexistent/trace.csv"))
    }
}
