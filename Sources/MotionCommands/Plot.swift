import ArgumentParser
import Foundation
import MotionInput
import PunchKit
import TracePlot

// MARK: - plot

/// `hitthat plot`: a trace drawn as an SVG picture, with what the detector saw and found in it.
package struct Plot: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        abstract: "Draw a trace, its punches and its labels as an SVG picture.",
        discussion: """
            Draws the acceleration with gravity removed (its length and the x, y and z axes) against \
            time, the strength of motion and the threshold it is held against, each punch found \
            with its kind and damage, and the \
            labelled windows of NAME.labels.csv beside the trace (or of --labels). Writes NAME.svg \
            beside NAME.csv unless -o says otherwise; - is standard output, where a trace read from \
            standard input is drawn by default. Malformed input stops with the file, line and \
            column and exit status 65, unless --lenient.
            """
    )

    @Argument(help: "The trace file, or - for standard input.")
    var trace: String

    @Option(help: "The labels file (start,end,type); by default NAME.labels.csv beside the trace, if there is one.")
    var labels: String?

    @Option(name: [.customShort("o"), .long], help: "The SVG file to write, or - for standard output.")
    var output: String?

    @Option(help: "The first second to draw, since the first sample.")
    var from: Double?

    @Option(help: "The last second to draw, since the first sample.")
    var to: Double?

    @OptionGroup var traceOptions: TraceOptions
    @OptionGroup var detectorOptions: DetectorOptions

    package func validate() throws {
        for (name, value) in [("--from", from), ("--to", to)] {
            guard let value else { continue }
            guard value >= 0, value.isFinite else {
                throw ValidationError("\(name) must be a number of seconds, zero or more.")
            }
        }
        if let to, to <= from ?? 0 {
            throw ValidationError("--to (\(to) s) must come after --from (\(from ?? 0) s).")
        }
    }

    /// Where the picture goes: `-o`, or the trace's name with .svg, or standard output for `-`.
    var destination: String {
        if let output { return output }
        guard trace != "-" else { return "-" }
        return (trace.hasSuffix(".csv") ? String(trace.dropLast(4)) : trace) + ".svg"
    }

    package func run() throws {
        try reportingFailures {
            // The labels first: a bad labels file is known before a long trace is read.
            let sibling = PunchLabel.labelsPath(forTrace: trace)
            let labelsPath = labels ?? (trace != "-" && FileManager.default.fileExists(atPath: sibling) ? sibling : nil)
            let labelList = try labelsPath.map(readLabels) ?? []

            var detector = PunchDetector(configuration: try detectorOptions.configuration())
            var tally = PunchTally()
            var times: [Double] = []
            var linear: [Vector3] = []
            var strengths: [Double] = []
            var thresholds: [Double] = []
            var rotation: [Vector3] = []
            var up: [Vector3] = []
            var punches: [Punch] = []
            let shown = (from ?? 0)...(to ?? .infinity)
            func found(_ punch: Punch?) {
                guard var punch else { return }
                tally.count(punch)
                punch.time -= tally.firstTime
                punches.append(punch)
            }
            // Its own loop rather than `punches(configuration:seeing:found:)`: the linear
            // acceleration, the strength and the threshold are read back after each sample.
            let source = try openTrace(trace, options: traceOptions)
            try reportingTraceErrors {
                try source.forEachSample { sample in
                    tally.see(sample)
                    found(detector.process(sample))
                    let time = sample.time - tally.firstTime
                    guard shown.contains(time) else { return }
                    times.append(time)
                    linear.append(detector.linearAcceleration)
                    strengths.append(detector.strength)
                    thresholds.append(detector.threshold)
                    if let rate = sample.rotationRate {
                        // A gyroscope from a later sample on: the samples before it drawn as still.
                        if rotation.count < times.count - 1 {
                            rotation += Array(repeating: .zero, count: times.count - 1 - rotation.count)
                            up += Array(repeating: .zero, count: times.count - 1 - up.count)
                        }
                        rotation.append(rate)
                        up.append(detector.orientation.up)
                    } else if !rotation.isEmpty {
                        rotation.append(.zero)
                        up.append(.zero)
                    }
                }
            }
            found(detector.finish())

            let end = tally.lastTime - tally.firstTime
            if let from, tally.samples > 0, from >= end {
                printError("\(trace): --from \(from) s is not before the trace's end, \(formatted(end, decimals: 2)) s")
                throw Reported(status: .validationFailure)
            }
            // The strength is the mean of the quarter second that ends at its sample: drawn at that
            // quarter second's middle, as a punch's time is, its hump lines up with the punch.
            let halfWindow = detector.configuration.strengthWindow / 2
            var later = 0
            let centred = times.indices.map { index in
                while later + 1 < times.count && times[later] < times[index] + halfWindow { later += 1 }
                return strengths[later]
            }
            let plot = TracePlot(
                title: trace == "-" ? "standard input" : String(trace.split(separator: "/").last ?? ""),
                times: times, linear: linear, strengths: centred, thresholds: thresholds,
                punches: punches, labels: labelList, rotation: rotation, up: up,
                range: (from ?? 0)...(to ?? max(end, from ?? 0)))
            let svg = plot.svg()
            let sink = try destination == "-" ? FileSink.standardOutput : FileSink(path: destination)
            try sink.write(svg)
            let wrote = destination == "-" ? "drawn to standard output" : "drawn to \(destination)"
            printError(
                tally.summary(
                    of: trace, detail: [describe(source), wrote].filter { !$0.isEmpty }.joined(separator: ", "))
            )
            for error in source.summary.errors { printError("  skipped: \(error)") }
        }
    }
}
