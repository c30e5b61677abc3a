import Foundation
import PunchKit

// MARK: - RecordingTruth

/// A recording's truth file, `NAME.csv.truth.json`, as `../shared/recordings/README.md` has it.
struct RecordingTruth: Decodable, Sendable {
    /// How much is known of the recording's punches.
    enum Mode: String, Decodable, Sendable {
        /// Each punch's window; an empty list is a session with no punch at all.
        case windows
        /// One punch of `type`, its time not known.
        case single
        /// `count` punches of `type`, their times not known.
        case count
        /// Every punch is of `type`; neither their count nor their times are known.
        case type
    }

    /// One labelled punch: it happened between `start` and `end`, seconds since the first sample.
    struct Window: Decodable, Sendable {
        var start: Double
        var end: Double
        var type: String
    }

    var mode: Mode
    var punches: [Window]?
    var count: Int?
    var type: String?
    /// A no-punch session's length in seconds.
    var duration: Double?
    /// Windows whose kinds are not to be scored.
    var untyped: Bool?
    /// Whether the recording has a gyroscope (whole exports in `motion/`).
    var gyroscope: Bool?
    /// The hand that punched, `left` or `right`, where known.
    var hand: String?
}

/// A punch as the scorer sees it: `detect --json`'s `t` and `type`.
struct Detection: Sendable {
    var time: Double
    var kind: PunchKind
}

// MARK: - DatasetTally

/// The counts `score.py` keeps for one folder of recordings, kept the same way, so that the
/// figures here are the script's.
struct DatasetTally: Sendable {
    /// How far outside its window a detection may fall and still match it, in seconds.
    static let slack = 0.3
    /// The kinds whose accuracy is scored: a hook is too often told as a jab to be fair to score.
    static let scoredKinds: Set<String> = ["jab", "uppercut"]

    var cases = 0
    /// Recordings the reader refused; their punches count as missed.
    var failed = 0
    var truePositives = 0
    var falsePositives = 0
    var falseNegatives = 0
    /// Punches whose kind is scored, and how many of them were given the right one.
    var typed = 0
    var typedRight = 0
    /// Punches with a truth of any kind (hooks too), and how many were given it.
    var typed3 = 0
    var typed3Right = 0
    /// Recordings with a gyroscope.
    var withGyroscope = 0
    /// Detections in the sessions with no punch, and those sessions' length in seconds.
    var restFalse = 0
    var restSeconds = 0.0

    /// Scores one recording's detections against its truth.
    mutating func add(_ detections: [Detection], truth: RecordingTruth) {
        cases += 1
        if truth.gyroscope == true { withGyroscope += 1 }
        switch truth.mode {
        case .type:
            // Only the kinds: how many punches there were is not known.
            typed3 += detections.count
            typed3Right += detections.count(where: { $0.kind.rawValue == truth.type })
            guard let type = truth.type, Self.scoredKinds.contains(type) else { return }
            typed += detections.count
            typedRight += detections.count(where: { $0.kind.rawValue == type })
        case .windows where truth.punches?.isEmpty ?? true:
            restFalse += detections.count
            restSeconds += truth.duration ?? 0
        case .windows:
            match(detections, to: truth.punches ?? [], typed: truth.untyped != true)
        case .single, .count:
            let expected = truth.count ?? 0
            truePositives += min(expected, detections.count)
            falseNegatives += max(0, expected - detections.count)
            falsePositives += max(0, detections.count - expected)
            typed3 += min(expected, detections.count)
            typed3Right += detections.prefix(expected).count(where: { $0.kind.rawValue == truth.type })
            guard let type = truth.type, Self.scoredKinds.contains(type) else { return }
            typed += min(expected, detections.count)
            typedRight += detections.prefix(expected).count(where: { $0.kind.rawValue == type })
        }
    }

    /// Counts a recording that could not be read: every punch it holds is missed.
    mutating func addFailure(truth: RecordingTruth) {
        cases += 1
        failed += 1
        if truth.gyroscope == true { withGyroscope += 1 }
        falseNegatives += truth.mode == .windows ? truth.punches?.count ?? 0 : truth.count ?? 0
    }

    /// Each window, in order, takes the first detection within it (± `slack`) not taken yet.
    private mutating func match(_ detections: [Detection], to windows: [RecordingTruth.Window], typed: Bool) {
        var taken = Set<Int>()
        for window in windows {
            let hit = detections.indices.first { index in
                !taken.contains(index)
                    && window.start - Self.slack <= detections[index].time
                    && detections[index].time <= window.end + Self.slack
            }
            guard let hit else {
                falseNegatives += 1
                continue
            }
            taken.insert(hit)
            truePositives += 1
            if typed {
                typed3 += 1
                if detections[hit].kind.rawValue == window.type { typed3Right += 1 }
            }
            if typed && Self.scoredKinds.contains(window.type) {
                self.typed += 1
                if detections[hit].kind.rawValue == window.type { typedRight += 1 }
            }
        }
        falsePositives += detections.count - taken.count
    }

    var precision: Double { ratio(truePositives, truePositives + falsePositives) }
    var recall: Double { ratio(truePositives, truePositives + falseNegatives) }
    var f1: Double { precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0 }
    var kindAccuracy: Double { ratio(typedRight, typed) }
    /// The share of punches given the right one of three kinds.
    var kind3Accuracy: Double { ratio(typed3Right, typed3) }
    /// Whether there was anything to score detection on (a set of "type" and no-punch sessions has not).
    var isScored: Bool { truePositives + falsePositives + falseNegatives > 0 }

    private func ratio(_ part: Int, _ whole: Int) -> Double { whole > 0 ? Double(part) / Double(whole) : 0 }

    /// The counts of both.
    static func + (a: DatasetTally, b: DatasetTally) -> DatasetTally {
        var sum = a
        sum.cases += b.cases
        sum.failed += b.failed
        sum.truePositives += b.truePositives
        sum.falsePositives += b.falsePositives
        sum.falseNegatives += b.falseNegatives
        sum.typed += b.typed
        sum.typedRight += b.typedRight
        sum.typed3 += b.typed3
        sum.typed3Right += b.typed3Right
        sum.withGyroscope += b.withGyroscope
        sum.restFalse += b.restFalse
        sum.restSeconds += b.restSeconds
        return sum
    }
}

// MARK: - RecordingScore

/// The score of every recording, by dataset (the folder it is in), and the macro averages in
/// which each dataset weighs the same, as `score.py` prints them.
struct RecordingScore: Sendable {
    private(set) var datasets: [String: DatasetTally] = [:]

    mutating func add(_ detections: [Detection], truth: RecordingTruth, dataset: String) {
        datasets[dataset, default: DatasetTally()].add(detections, truth: truth)
    }

    mutating func addFailure(truth: RecordingTruth, dataset: String) {
        datasets[dataset, default: DatasetTally()].addFailure(truth: truth)
    }

    /// The datasets by name: the order score.py adds them up in, so that the sums agree to the last bit.
    var byName: [(name: String, tally: DatasetTally)] {
        datasets.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    var total: DatasetTally { byName.map(\.tally).reduce(DatasetTally(), +) }

    /// The mean F1 of the datasets with detection to score.
    var macroF1: Double { mean(byName.map(\.tally).filter(\.isScored).map(\.f1)) }
    /// The mean kind accuracy of the datasets with kinds to score.
    var macroKindAccuracy: Double { mean(byName.map(\.tally).filter { $0.typed > 0 }.map(\.kindAccuracy)) }
    /// The mean three-kind accuracy of the datasets with a gyroscope, as score.py's "three kinds
    /// over the sets with a gyroscope" (an unreadable set counts as 0).
    var macroKind3AccuracyWithGyroscope: Double {
        mean(byName.map(\.tally).filter { $0.withGyroscope > 0 }.map(\.kind3Accuracy))
    }

    private func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

    /// The table `score.py` prints, laid out the same, so that the two can be compared line by line.
    var table: String {
        func row(_ name: String, _ tally: DatasetTally) -> String {
            let detection =
                tally.isScored
                ? String(format: "%6.3f %6.3f %6.3f", tally.precision, tally.recall, tally.f1)
                : "     -      -      -"
            let kinds = tally.typed > 0 ? String(format: "%8.3f", tally.kindAccuracy) : "       -"
            return name.padding(toLength: max(16, name.count), withPad: " ", startingAt: 0)
                + String(format: " %5d %6d ", tally.cases, tally.failed) + detection + " " + kinds
        }
        var lines = ["dataset          cases failed   prec recall     F1 type acc"]
        lines += byName.map { row($0.name, $0.tally) }
        lines.append(row("all", total))
        lines.append(
            String(
                format: "macro (each dataset weighs the same): F1 %.3f, type accuracy %.3f", macroF1,
                macroKindAccuracy))
        if total.withGyroscope > 0 {
            lines.append(String(format: "three kinds over the sets with a gyroscope: %.3f", macroKind3AccuracyWithGyroscope))
        }
        if total.restSeconds > 0 {
            lines.append(
                String(
                    format: "no-punch sessions: %d false punches in %.1f minutes", total.restFalse,
                    total.restSeconds / 60))
        }
        return lines.joined(separator: "\n")
    }
}
