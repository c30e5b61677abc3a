// MARK: - Evaluation

/// How well detected punches agree with labelled ones: counts that add up across traces.
///
/// A detection matches a label when its time falls within the label's span widened by the
/// tolerance; each label and each detection is matched at most once, in time order.
public struct Evaluation: Hashable, Sendable {
    /// The categories of the confusion table: a kind, or none (a missed label, a spurious detection).
    public typealias Cell = PunchKind?

    /// `confusion[labelled][detected]`: how many labels of one kind were detected as another;
    /// `labelled == nil` counts spurious detections, `detected == nil` missed labels.
    public private(set) var confusion: [Cell: [Cell: Int]] = [:]

    /// An empty evaluation.
    public init() {}

    /// Scores `detections` (times in seconds since the trace's first sample) against `labels`.
    public init(detections: [(time: Double, kind: PunchKind)], labels: [PunchLabel], tolerance: Double = 0.15) {
        let sortedLabels = labels.sorted { $0.start < $1.start }
        let sortedDetections = detections.sorted { $0.time < $1.time }
        var used = [Bool](repeating: false, count: sortedDetections.count)
        for label in sortedLabels {
            let match = sortedDetections.indices.first { index in
                !used[index] && sortedDetections[index].time >= label.start - tolerance
                    && sortedDetections[index].time <= label.end + tolerance
            }
            if let match {
                used[match] = true
                count(label.kind, as: sortedDetections[match].kind)
            } else {
                count(label.kind, as: nil)
            }
        }
        for (index, detection) in sortedDetections.enumerated() where !used[index] {
            count(nil, as: detection.kind)
        }
    }

    private mutating func count(_ labelled: Cell, as detected: Cell, times: Int = 1) {
        confusion[labelled, default: [:]][detected, default: 0] += times
    }

    /// Adds another evaluation's counts to this one's.
    public mutating func add(_ other: Evaluation) {
        for (labelled, row) in other.confusion {
            for (detected, n) in row { count(labelled, as: detected, times: n) }
        }
    }

    /// How many labels of kind `labelled` were detected as `detected`.
    public func count(labelled: Cell, detected: Cell) -> Int { confusion[labelled]?[detected] ?? 0 }

    private func total(where include: (Cell, Cell) -> Bool) -> Int {
        confusion.reduce(0) { sum, row in
            sum + row.value.reduce(0) { $0 + (include(row.key, $1.key) ? $1.value : 0) }
        }
    }

    // MARK: - Scores

    /// Detection scores, whatever the kinds: a punch found is a punch found.
    public var detection: Scores {
        Scores(
            truePositives: total { $0 != nil && $1 != nil },
            falsePositives: total { $0 == nil && $1 != nil },
            falseNegatives: total { $0 != nil && $1 == nil })
    }

    /// Scores for one kind: a hit needs the right time and the right kind.
    public func scores(for kind: PunchKind) -> Scores {
        let hits = count(labelled: kind, detected: kind)
        return Scores(
            truePositives: hits,
            falsePositives: total { $0 != kind && $1 == kind },
            falseNegatives: total { $0 == kind && $1 != kind })
    }

    /// Of the labelled punches that were found, the fraction given the right kind.
    public var kindAccuracy: Double {
        let matched = total { $0 != nil && $1 != nil }
        return matched == 0 ? 0 : Double(total { $0 != nil && $0 == $1 }) / Double(matched)
    }

    /// Precision, recall and F1 from true and false positives and false negatives.
    public struct Scores: Hashable, Sendable {
        /// Correct detections.
        public var truePositives: Int
        /// Detections that match nothing (or, per kind, the wrong kind).
        public var falsePositives: Int
        /// Labels that were missed (or, per kind, given another kind).
        public var falseNegatives: Int

        /// Creates scores from counts.
        public init(truePositives: Int, falsePositives: Int, falseNegatives: Int) {
            self.truePositives = truePositives
            self.falsePositives = falsePositives
            self.falseNegatives = falseNegatives
        }

        /// The fraction of detections that were right; 1 when nothing was detected.
        public var precision: Double {
            let detected = truePositives + falsePositives
            return detected == 0 ? 1 : Double(truePositives) / Double(detected)
        }

        /// The fraction of labels that were found; 1 when there was nothing to find.
        public var recall: Double {
            let labelled = truePositives + falseNegatives
            return labelled == 0 ? 1 : Double(truePositives) / Double(labelled)
        }

        /// The harmonic mean of precision and recall.
        public var f1: Double {
            let sum = precision + recall
            return sum == 0 ? 0 : 2 * precision * recall / sum
        }
    }
}
