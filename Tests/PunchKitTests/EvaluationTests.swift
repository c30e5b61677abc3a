import PunchKit
import Testing

@Suite struct EvaluationTests {
    let labels = [
        PunchLabel(start: 1.0, end: 1.3, kind: .jab),
        PunchLabel(start: 2.0, end: 2.3, kind: .uppercut),
        PunchLabel(start: 3.0, end: 3.3, kind: .jab),
    ]

    @Test func perfectDetectionScoresOne() {
        let evaluation = Evaluation(detections: [(1.2, .jab), (2.2, .uppercut), (3.25, .jab)], labels: labels)
        #expect(evaluation.detection == Evaluation.Scores(truePositives: 3, falsePositives: 0, falseNegatives: 0))
        #expect(evaluation.kindAccuracy == 1)
        #expect(evaluation.scores(for: .jab).f1 == 1)
    }

    @Test func extraMissedAndWrongKindsAreCountedApart() {
        // One jab found twice, the uppercut called a jab, the last jab missed, one spurious.
        let evaluation = Evaluation(
            detections: [(1.1, .jab), (1.2, .jab), (2.2, .jab), (5.0, .uppercut)], labels: labels)
        #expect(evaluation.detection == Evaluation.Scores(truePositives: 2, falsePositives: 2, falseNegatives: 1))
        #expect(evaluation.count(labelled: .uppercut, detected: .jab) == 1)
        #expect(evaluation.count(labelled: .jab, detected: nil) == 1)
        #expect(evaluation.count(labelled: nil, detected: .jab) == 1)
        #expect(evaluation.kindAccuracy == 0.5)
        let jab = evaluation.scores(for: .jab)
        #expect(jab.truePositives == 1 && jab.falsePositives == 2 && jab.falseNegatives == 1)
    }

    @Test func toleranceWidensTheSpan() {
        let late = [(time: 1.4, kind: PunchKind.jab)]
        #expect(Evaluation(detections: late, labels: [labels[0]], tolerance: 0.05).detection.truePositives == 0)
        #expect(Evaluation(detections: late, labels: [labels[0]], tolerance: 0.15).detection.truePositives == 1)
    }

    @Test func evaluationsAddUp() {
        var total = Evaluation(detections: [(1.2, .jab)], labels: [labels[0]])
        total.add(Evaluation(detections: [], labels: [labels[1]]))
        #expect(total.detection == Evaluation.Scores(truePositives: 1, falsePositives: 0, falseNegatives: 1))
    }
}
