import ArgumentParser
import Foundation
import InputDevices
import PunchKit
import PunchSimulator

// MARK: - simulate

/// `hitthat simulate`: a simulated boxing session written as a trace, with its labels.
package struct Simulate: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        abstract: "Write a simulated boxing session as a trace, with its labels.",
        discussion: """
            The session is physical: each punch is a thrust, a sharp stop and a retraction along a \
            line (jab, uppercut) or an arc (hook), in a random grip, with the wrist turning, the body \
            swaying, and reaches and bumps between punches that are not punches. The sensor samples \
            it with jitter, noise, bias, clipping and, on request, held and lost samples. The labels \
            (start,end,type) go beside the trace as NAME.labels.csv.
            """
    )

    @Option(help: "Where all randomness comes from: the same seed gives the same trace.")
    var seed: UInt64 = 1

    @Option(help: "How many punches.")
    var punches: Int = 12

    @Option(parsing: .upToNextOption, help: "The kinds of punch to draw from (jab uppercut hook).")
    var kinds: [PunchKind] = [.jab, .uppercut]

    @Option(help: "The hand that punches: left or right.")
    var hand: Hand = .right

    @Option(help: "Samples per second.")
    var rate: Double = 100

    @Option(help: "The sensor's full-scale range in g: readings beyond it clip.")
    var range: Double = 8

    @Option(help: "The share of samples that repeat the previous one (sample-and-hold).")
    var hold: Double = 0

    @Flag(help: "Draw rate, range, noise, jitter, held and lost samples at random, as real recordings vary.")
    var randomSensor = false

    @Flag(help: "Leave gravity out (linear acceleration).")
    var linear = false

    @Flag(help: "Hold the device upright (its Y axis up, as the original app assumed) instead of in a random grip.")
    var upright = false

    @Option(
        help:
            "What to write: a CSV trace (generic, phyphox, sensor-logger, physics-toolbox), an evemu recording (evemu), or raw input_event records (input-events)."
    )
    var format: SimulationFormat = .generic

    @Option(name: .customLong("event-size"), help: "Bytes per raw event for input-events: 24 (64-bit) or 16 (32-bit).")
    var eventSize = InputEventLayout.native.rawValue

    @Option(help: "Axis units per g for evemu and input-events (16-bit axes: 2048 reaches ±16 g, 8192 ±4 g).")
    var scale: Int32 = 2048

    @Flag(
        help: """
            Record a gyroscope too: rotation columns (gx,gy,gz in rad/s) in a generic trace, \
            ABS_RX/RY/RZ in evemu and input-events (at --gyro-scale units per °/s).
            """)
    var gyroscope = false

    @Option(help: "Rotation axis units per °/s for evemu and input-events with --gyroscope (a DualSense's is 1024).")
    var gyroScale: Int32 = 1024

    @Option(
        help:
            "phyphox's separator: \(TraceWriter.PhyphoxDialect.allValueStrings.joined(separator: ", ")).")
    var dialect: TraceWriter.PhyphoxDialect = .comma

    @Option(help: "The trace file to write (standard output when absent); labels go beside it.")
    var output: String?

    package func validate() throws {
        guard punches >= 0 else { throw ValidationError("--punches must be zero or more.") }
        guard rate >= 1, rate <= 10_000 else { throw ValidationError("--rate must be 1 to 10000 samples per second.") }
        guard range >= 1 else { throw ValidationError("--range must be at least 1 g.") }
        guard (0..<1).contains(hold) else { throw ValidationError("--hold must be a share from 0 to below 1.") }
        guard !kinds.isEmpty else { throw ValidationError("--kinds needs at least one kind.") }
        guard InputEventLayout(eventSize: eventSize) != nil else {
            throw ValidationError("--event-size must be 24 or 16.")
        }
        guard scale > 0 else { throw ValidationError("--scale must be a positive number of units per g.") }
        guard gyroScale > 0 else { throw ValidationError("--gyro-scale must be a positive number of units per °/s.") }
    }

    package func run() throws {
        try reportingFailures(simulate)
    }

    private func simulate() throws {
        var random = SeededGenerator(seed: seed &* 0x9E37_79B9)
        var sensor = randomSensor ? SensorSettings.random(using: &random) : SensorSettings()
        if !randomSensor {
            sensor.rate = rate
            sensor.range = range
            sensor.holdProbability = hold
        }
        sensor.includesGravity = !linear
        sensor.gyroscope = gyroscope
        let grip = upright ? Rotation(axis: Vector3(1, 0, 0), angle: .pi / 2) : nil
        let plan = SessionPlan(seed: seed, punchCount: punches, kinds: kinds, hand: hand, sensor: sensor, grip: grip)

        let sink = try output.map { try FileSink(path: $0) } ?? FileSink.standardOutput
        let written: Written
        switch format {
        case .evemu: written = try writeEvemu(plan.samples, to: sink)
        case .inputEvents: written = try writeEvents(plan.samples, to: sink)
        default: written = try writeTrace(plan.samples, to: sink)
        }
        // Said on standard error, so that a trace on standard output stays clean, and so that
        // labels left out are not a surprise.
        var summary =
            "simulate: \(plan.labels.count) punches, \(written.samples) samples (\(formatted(written.seconds, decimals: 1)) s) written to \(output ?? "standard output")"
        if let output {
            let labels = PunchLabel.labelsPath(forTrace: output)
            try FileSink(path: labels).write(PunchLabel.formatLabels(plan.labels))
            summary += "; labels in \(labels)"
        } else {
            summary += "; labels not written: give --output FILE to have them beside the trace"
        }
        printError(summary)
    }

    /// How much a session came to.
    private struct Written {
        var samples = 0
        /// The last sample's time.
        var seconds = 0.0
    }

    // MARK: - Writing

    private func writeTrace(_ samples: SampledSession, to sink: FileSink) throws -> Written {
        let writer = TraceWriter(try style(), rotation: gyroscope)
        var header = ""
        writer.appendHeader(to: &header)
        var row = ""
        return try stream(samples, to: sink, startingWith: Array(header.utf8)) { sample, bytes in
            row.removeAll(keepingCapacity: true)
            writer.appendRow(sample, to: &row)
            bytes += row.utf8
        }
    }

    private func writeEvemu(_ samples: SampledSession, to sink: FileSink) throws -> Written {
        let header = EvemuRecording.header(
            for: SimulatedInputDevice.description(unitsPerG: scale, unitsPerDegreePerSecond: gyroscope ? gyroScale : nil),
            codes: SimulatedInputDevice.codes(gyroscope: gyroscope))
        var encoder = encoder()
        return try stream(samples, to: sink, startingWith: Array(header.utf8)) { sample, bytes in
            for event in encoder.events(for: sample) { bytes += (event.evemuLine + "\n").utf8 }
        }
    }

    private func writeEvents(_ samples: SampledSession, to sink: FileSink) throws -> Written {
        let layout = InputEventLayout(eventSize: eventSize) ?? .native
        var encoder = encoder()
        return try stream(samples, to: sink, startingWith: []) { sample, bytes in
            for event in encoder.events(for: sample) { event.append(to: &bytes, layout: layout) }
        }
    }

    private func encoder() -> InputEventEncoder {
        InputEventEncoder(unitsPerG: Double(scale), unitsPerDegreePerSecond: gyroscope ? Double(gyroScale) : nil)
    }

    /// Writes what `append` makes of each sample, 64 KiB at a time, so that memory stays flat
    /// however long the session.
    private func stream(
        _ samples: SampledSession, to sink: FileSink, startingWith start: [UInt8],
        _ append: (MotionSample, inout [UInt8]) -> Void
    ) throws -> Written {
        var bytes = start
        var written = Written()
        for sample in samples {
            append(sample, &bytes)
            written.samples += 1
            written.seconds = sample.time
            if bytes.count >= 1 << 16 {
                try sink.write(bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
        try sink.write(bytes)
        return written
    }

    private func style() throws -> TraceWriter.Style {
        switch format {
        case .phyphox: .phyphox(dialect, gravityIncluded: !linear)
        case .sensorLogger: .sensorLogger()
        case .physicsToolbox: .physicsToolbox
        // Without gravity a plain t,x,y,z file could not say it is in g: near zero the reader
        // cannot tell the unit from the data, so the header says it.
        case .generic, .evemu, .inputEvents: linear ? .genericWithUnits : .generic
        }
    }
}

extension PunchKind: ExpressibleByArgument {}
extension TraceWriter.PhyphoxDialect: ExpressibleByArgument {}

/// What `simulate` writes.
enum SimulationFormat: String, CaseIterable, ExpressibleByArgument {
    case generic
    case phyphox
    case sensorLogger = "sensor-logger"
    case physicsToolbox = "physics-toolbox"
    case evemu
    case inputEvents = "input-events"
}

// MARK: - FileSink

/// Somewhere to write text: a file created anew, or standard output.
package struct FileSink {
    private let handle: FileHandle

    static let standardOutput = FileSink(handle: .standardOutput)

    private init(handle: FileHandle) { self.handle = handle }

    /// Creates the file at `path` anew.
    /// - Throws: `Reported` (exit 73) after saying why, when it cannot be created.
    package init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            let folder = (path as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            let exists = folder.isEmpty || FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder)
            printError(
                "\(path): cannot create it: "
                    + (exists && (folder.isEmpty || isFolder.boolValue)
                        ? "the folder is not writable, or a folder has that name"
                        : "no such folder \(folder)"))
            throw Reported(status: .cannotCreate)
        }
        self.handle = handle
    }

    package func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) throws {
        try handle.write(contentsOf: Data(bytes))
    }
}
