import ArgumentParser
import Foundation
import MotionInput
import PunchKit

// MARK: - evaluate

/// `hitthat evaluate`: precision, recall and F1 of the detector against labelled traces.
package struct Evaluate: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        abstract: "Score the detector against labelled traces.",
        discussion: """
            Each trace NAME.csv is scored against its sibling NAME.labels.csv (header start,end,type; \
            seconds since the first sample). A detection matches a label when it falls within the \
            label's span widened by --tolerance. Directories are searched for traces (not recursively).
            """
    )

    @Argument(help: "Trace files or directories of traces.")
    var paths: [String] = ["traces"]

    @Flag(help: "Write the results as one JSON object.")
    var json = false

    @Option(help: "Seconds a detection may fall outside its label's span.")
    var tolerance: Double = 0.15

    @OptionGroup var traceOptions: TraceOptions
    @OptionGroup var detectorOptions: DetectorOptions

    package func run() throws {
        try reportingFailures {
            let traces = try labelledTraces()
            var total = Evaluation()
            var rows: [(trace: String, labels: Int, found: Int, evaluation: Evaluation)] = []
            for (trace, labelsPath) in traces {
                let labels = try readLabels(labelsPath)
                var tally = PunchTally()
                var found: [(time: Double, kind: PunchKind)] = []
                var source = try openTrace(trace, options: traceOptions)
                try reportingTraceErrors {
                    try source.punches(configuration: try detectorOptions.configuration(), seeing: { tally.see($0) }) {
                        found.append(($0.time - tally.firstTime, $0.kind))
                    }
                }
                let evaluation = Evaluation(detections: found, labels: labels, tolerance: tolerance)
                total.add(evaluation)
                rows.append((trace, labels.count, found.count, evaluation))
            }
            print(json ? jsonReport(rows, total) : textReport(rows, total))
        }
    }

    package func validate() throws {
        guard tolerance >= 0, tolerance.isFinite else {
            throw ValidationError("--tolerance must be zero or more seconds.")
        }
    }

    // MARK: - Finding traces

    /// Every trace named, or found in a named directory, with its labels file.
    private func labelledTraces() throws -> [(trace: String, labels: String)] {
        let files = FileManager.default
        var found: [(String, String)] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard files.fileExists(atPath: path, isDirectory: &isDirectory) else {
                printError("\(path): cannot open: no such file or directory")
                throw Reported(status: .noInput)
            }
            // A folder with labels beside it is one recording as its app exported it; without,
            // a folder of traces (and of exports, each with its labels beside it).
            let isExport = isDirectory.boolValue && files.fileExists(atPath: PunchLabel.labelsPath(forTrace: path))
            if isDirectory.boolValue && !isExport {
                let names = ((try? files.contentsOfDirectory(atPath: path)) ?? []).sorted()
                for name in names where !name.hasSuffix(".labels.csv") {
                    let trace = (path as NSString).appendingPathComponent(name)
                    var isFolder: ObjCBool = false
                    files.fileExists(atPath: trace, isDirectory: &isFolder)
                    guard name.hasSuffix(".csv") || isFolder.boolValue || name.lowercased().hasSuffix(".zip") else { continue }
                    let labels = PunchLabel.labelsPath(forTrace: trace)
                    if files.fileExists(atPath: labels) {
                        found.append((trace, labels))
                    } else if name.hasSuffix(".csv") {
                        printError("\(trace): skipped: no labels file \(labels)")
                    }
                }
            } else {
                let labels = PunchLabel.labelsPath(forTrace: path)
                guard files.fileExists(atPath: labels) else {
                    printError("\(path): no labels file \(labels)")
                    throw Reported(status: .noInput)
                }
                found.append((path, labels))
            }
        }
        guard !found.isEmpty else {
            printError("\(paths.joined(separator: " ")): no trace with a labels file")
            throw Reported(status: .dataError)
        }
        return found
    }

    // MARK: - Reports

    private static let cells: [Evaluation.Cell] = PunchKind.allCases + [nil]

    private func textReport(
        _ rows: [(trace: String, labels: Int, found: Int, evaluation: Evaluation)], _ total: Evaluation
    ) -> String {
        let width = max(5, rows.map(\.trace.count).max() ?? 0)
        var lines = [
            "trace".padding(toLength: width, withPad: " ", startingAt: 0) + "  labels  found  F1     kinds right"
        ]
        for row in rows {
            lines.append(
                row.trace.padding(toLength: width, withPad: " ", startingAt: 0)
                    + String(
                        format: "  %6d  %5d  %.3f  %.3f", row.labels, row.found, row.evaluation.detection.f1,
                        row.evaluation.kindAccuracy))
        }
        let detection = total.detection
        lines.append("")
        lines.append(
            String(
                format: "punches: precision %.3f  recall %.3f  F1 %.3f   kinds right: %.3f",
                detection.precision, detection.recall, detection.f1, total.kindAccuracy))
        lines.append("")
        lines.append("kind      precision  recall  F1")
        for kind in PunchKind.allCases {
            let s = total.scores(for: kind)
            let name = kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            // A kind neither labelled nor found has no score: 1.000 would claim one.
            guard s.truePositives + s.falsePositives + s.falseNegatives > 0 else {
                lines.append(name + "          -       -  -      (none labelled or found)")
                continue
            }
            lines.append(name + String(format: "  %9.3f  %6.3f  %.3f", s.precision, s.recall, s.f1))
        }
        lines.append("")
        lines.append("labelled \\ detected   jab  uppercut   hook  missed")
        for labelled in Self.cells {
            var line = (labelled?.rawValue ?? "spurious").padding(toLength: 18, withPad: " ", startingAt: 0)
            for detected in Self.cells {
                line += String(
                    format: detected == .uppercut ? "  %8d" : "  %5d",
                    total.count(labelled: labelled, detected: detected))
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private func jsonReport(
        _ rows: [(trace: String, labels: Int, found: Int, evaluation: Evaluation)], _ total: Evaluation
    ) -> String {
        jsonText(
            EvaluationReport(
                traces: rows.map { row in
                    .init(
                        trace: row.trace, labels: row.labels, detected: row.found,
                        detection: .init(row.evaluation.detection),
                        kindAccuracy: .init(value: row.evaluation.kindAccuracy, decimals: 4))
                },
                detection: .init(total.detection),
                kindAccuracy: .init(value: total.kindAccuracy, decimals: 4),
                kinds: Dictionary(
                    uniqueKeysWithValues: PunchKind.allCases.map { ($0.rawValue, .init(total.scores(for: $0))) }),
                confusion: Dictionary(
                    uniqueKeysWithValues: Self.cells.map { labelled in
                        (
                            labelled?.rawValue ?? "spurious",
                            Dictionary(
                                uniqueKeysWithValues: Self.cells.map {
                                    ($0?.rawValue ?? "missed", total.count(labelled: labelled, detected: $0))
                                })
                        )
                    })))
    }
}

// MARK: - evaluate --json

/// `evaluate --json`'s one object: each trace's scores, the scores over all of them, and the
/// confusion table (labelled kind, or `spurious`, against detected kind, or `missed`).
struct EvaluationReport: Encodable {
    /// One trace's row.
    struct Trace: Encodable {
        var trace: String
        var labels: Int
        var detected: Int
        var detection: Scores
        var kindAccuracy: RoundedNumber

        enum CodingKeys: String, CodingKey {
            case trace, labels, detected, detection
            case kindAccuracy = "kind_accuracy"
        }
    }

    /// Precision, recall and F1 to four decimals, and the counts they come from.
    struct Scores: Encodable {
        var precision: RoundedNumber
        var recall: RoundedNumber
        var f1: RoundedNumber
        var truePositives: Int
        var falsePositives: Int
        var falseNegatives: Int

        enum CodingKeys: String, CodingKey {
            case precision, recall, f1
            case truePositives = "true_positives"
            case falsePositives = "false_positives"
            case falseNegatives = "false_negatives"
        }

        init(_ scores: Evaluation.Scores) {
            precision = RoundedNumber(value: scores.precision, decimals: 4)
            recall = RoundedNumber(value: scores.recall, decimals: 4)
            f1 = RoundedNumber(value: scores.f1, decimals: 4)
            truePositives = scores.truePositives
            falsePositives = scores.falsePositives
            falseNegatives = scores.falseNegatives
        }
    }

    var traces: [Trace]
    var detection: Scores
    var kindAccuracy: RoundedNumber
    /// Each kind's scores, by kind.
    var kinds: [String: Scores]
    /// Labelled kind (or `spurious`) → detected kind (or `missed`) → how many.
    var confusion: [String: [String: Int]]

    enum CodingKeys: String, CodingKey {
        case traces, detection
        case kindAccuracy = "kind_accuracy"
        case kinds, confusion
    }
}
