import ArgumentParser
import MotionInput
import PunchKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - detect

/// `hitthat detect`: the punches in a recorded trace, written as soon as each is decided.
package struct Detect: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        abstract: "Detect punches in an accelerometer trace.",
        discussion: """
            Reads a CSV trace (generic t,x,y,z; phyphox; Sensor Logger; Physics Toolbox), or standard \
            input for -, and prints each punch as soon as it is decided: a table, or with --json one \
            object a line. A summary goes to standard error. Malformed input stops with the file, \
            line and column and exit status 65, unless --lenient.
            """
    )

    @Argument(help: "The trace file, or - for standard input.")
    var trace: String = "-"

    @Flag(help: "One JSON object a punch, a line each.")
    var json = false

    @Flag(help: "With --json: what the detector measured of each punch's motion too, its kind's features.")
    var features = false

    @OptionGroup var traceOptions: TraceOptions
    @OptionGroup var detectorOptions: DetectorOptions

    package func run() throws {
        try reportingFailures {
            if trace == "-" && isatty(STDIN_FILENO) == 1 {
                // Nothing would say why the terminal waits.
                printError("detect: reading a trace from standard input (Ctrl-D ends it); give a FILE to read one")
            }
            var source = try openTrace(trace, options: traceOptions)
            var output = PunchPrinter(json: json, showsFeatures: features, holdsLines: source.isRecording)
            var tally = PunchTally()
            // A pipe may never end: Ctrl-C ends it as its end would, with the summary.
            let interrupt: InterruptFlag? = trace == "-" ? InterruptFlag.install() : nil
            if let interrupt { source.stopsOnInterrupt = { interrupt.isRaised } }
            try reportingTraceErrors {
                // Before an error is said, so that the punches found up to it come first.
                defer { output.flush() }
                try source.punches(configuration: try detectorOptions.configuration(), seeing: { tally.see($0) }) { punch in
                    tally.count(punch)
                    output.write(punch, since: tally.firstTime)
                }
            }
            var detail = describe(source)
            if interrupt?.isRaised == true { detail += (detail.isEmpty ? "" : ", ") + "stopped by Ctrl-C" }
            printError(tally.summary(of: trace, detail: detail))
            for error in source.summary.errors { printError("  skipped: \(error)") }
        }
    }
}

// MARK: - Tally

/// Counts what went through the detector, for the summary line.
package struct PunchTally {
    /// The samples seen, and the first's and last's times.
    private(set) var span = SampleSpan()
    private(set) var kinds: [PunchKind: Int] = [:]

    var firstTime: Double { span.first }
    var lastTime: Double { span.last }
    var samples: Int { span.count }

    mutating func see(_ sample: MotionSample) { span.see(sample.time) }

    mutating func count(_ punch: Punch) { kinds[punch.kind, default: 0] += 1 }

    var punches: Int { kinds.values.reduce(0, +) }

    func summary(of source: String, detail: String?) -> String {
        guard samples > 0 else { return "\(source): no samples, so no punches" }
        let byKind = PunchKind.allCases.compactMap { kind in
            kinds[kind].map { "\($0) \(kind.rawValue)\($0 == 1 ? "" : "s")" }
        }
        var line = "\(source): \(punches) punch\(punches == 1 ? "" : "es")"
        if !byKind.isEmpty { line += " (\(byKind.joined(separator: ", ")))" }
        line += " in \(samples) samples over \(formatted(lastTime - firstTime, decimals: 1)) s"
        if let detail, !detail.isEmpty { line += "; " + detail }
        return line
    }
}

/// What was read of a trace or an export, in a few words: for an export, its sensors and their
/// rates first ("acceleration 100 Hz + gyroscope 100 Hz"), then what the acceleration's reader
/// found out.
package func describe(_ file: TraceFile) -> String {
    func hertz(_ span: SampleSpan) -> String {
        span.rate.map { " " + formatted($0, decimals: 0) + " Hz" } ?? ""
    }
    var parts: [String] = []
    if let rotation = file.rotation {
        var gyroscope = "gyroscope" + hertz(rotation.span)
        if rotation.summary.rotationUnitFromData, let unit = rotation.summary.rotationUnit {
            gyroscope += " (\(unit.rawValue) from the data)"
        }
        parts.append("acceleration" + hertz(file.accelerationSpan) + " + " + gyroscope)
    } else if file.export != nil {
        parts.append("acceleration" + hertz(file.accelerationSpan) + ", no gyroscope")
    } else if let rotation = file.summary.columns?.rotation, !rotation.isEmpty {
        parts.append("acceleration and gyroscope (\(rotation.joined(separator: ", ")))")
    }
    let trace = describe(file.summary)
    if !trace.isEmpty { parts.append(trace) }
    return parts.joined(separator: ", ")
}

/// What the reader found out about a trace, in a few words.
package func describe(_ trace: TraceSummary) -> String {
    var parts: [String] = []
    if let format = trace.format { parts.append(format.rawValue) }
    if let units = trace.units {
        parts.append((units == .g ? "g" : "m/s²") + (trace.unitsFromData ? " (from the data)" : ""))
    }
    switch trace.gravityIncluded {
    case true?: parts.append("gravity included")
    case false?: parts.append("gravity removed")
    case nil: break
    }
    if trace.missingValueRows > 0 { parts.append("\(trace.missingValueRows) rows with missing values passed over") }
    if trace.skippedRows > 0 {
        parts.append("\(trace.skippedRows) bad row\(trace.skippedRows == 1 ? "" : "s") skipped")
    }
    return parts.joined(separator: ", ")
}
