import PunchKit
import Testing

/// Detections at the given times, all jabs unless said.
private func detections(_ times: Double..., kind: PunchKind = .jab) -> [Detection] {
    times.map { Detection(time: $0, kind: kind) }
}

private func windows(_ windows: (Double, Double, String)...) -> RecordingTruth {
    RecordingTruth(mode: .windows, punches: windows.map { RecordingTruth.Window(start: $0.0, end: $0.1, type: $0.2) })
}

private func tally(_ found: [Detection], _ truth: RecordingTruth) -> DatasetTally {
    var tally = DatasetTally()
    tally.add(found, truth: truth)
    return tally
}

@Suite struct RecordingScorerTests {
    // MARK: - Windows

    @Test func aDetectionInsideAWindowOrItsSlackMatchesIt() {
        for time in [1.0, 1.5, 2.0, 0.71, 2.29] {
            let result = tally(detections(time), windows((1, 2, "jab")))
            #expect(result.truePositives == 1 && result.falsePositives == 0 && result.falseNegatives == 0, "\(time)")
        }
    }

    @Test func aDetectionOutsideTheSlackIsFalseAndTheWindowMissed() {
        for time in [0.69, 2.31] {
            let result = tally(detections(time), windows((1, 2, "jab")))
            #expect(result.truePositives == 0 && result.falsePositives == 1 && result.falseNegatives == 1, "\(time)")
        }
    }

    @Test func windowsTakeDetectionsGreedilyInOrderAndEachOnlyOnce() {
        // Both windows reach 1.2; the first takes it, the second the next one free within it.
        let result = tally(detections(1.2, 1.25, 5), windows((1, 1.2, "jab"), (1.1, 1.5, "jab")))
        #expect(result.truePositives == 2)
        #expect(result.falsePositives == 1)
        #expect(result.falseNegatives == 0)
        // Greedy, not the best matching: the first window takes the only detection the second could have.
        let greedy = tally(detections(1.2, 0.8), windows((1, 1.5, "jab"), (1.4, 1.6, "jab")))
        #expect(greedy.truePositives == 1 && greedy.falseNegatives == 1 && greedy.falsePositives == 1)
    }

    @Test func kindsAreScoredOnMatchedJabsAndUppercutsOnly() {
        let found = [Detection(time: 1, kind: .jab), Detection(time: 3, kind: .jab), Detection(time: 5, kind: .jab)]
        let result = tally(found, windows((1, 1, "jab"), (3, 3, "uppercut"), (5, 5, "hook"), (7, 7, "jab")))
        #expect(result.typed == 2)
        #expect(result.typedRight == 1)
        #expect(result.kindAccuracy == 0.5)
        var untyped = windows((1, 1, "jab"))
        untyped.untyped = true
        #expect(tally(detections(1), untyped).typed == 0)
    }

    @Test func aSessionWithNoPunchCountsItsDetectionsApart() {
        let truth = RecordingTruth(mode: .windows, punches: [], duration: 120)
        let result = tally(detections(1, 2, 3), truth)
        #expect(result.restFalse == 3)
        #expect(result.restSeconds == 120)
        #expect(!result.isScored)
        #expect(result.falsePositives == 0)
    }

    // MARK: - Counts and kinds only

    @Test func countedSessionsCompareCounts() {
        let truth = RecordingTruth(mode: .count, count: 3, type: "uppercut")
        let tooFew = tally(detections(1, 2, kind: .uppercut), truth)
        #expect(tooFew.truePositives == 2 && tooFew.falseNegatives == 1 && tooFew.falsePositives == 0)
        let tooMany = tally(detections(1, 2, 3, 4, 5), truth)
        #expect(tooMany.truePositives == 3 && tooMany.falseNegatives == 0 && tooMany.falsePositives == 2)
        // Kinds of the first `count` detections only.
        #expect(tooMany.typed == 3 && tooMany.typedRight == 0)
        #expect(tooFew.typed == 2 && tooFew.typedRight == 2)
    }

    @Test func aSingleClipIsACountOfOneAndAHookCountsNoKind() {
        let result = tally(detections(1, 2), RecordingTruth(mode: .single, count: 1, type: "hook"))
        #expect(result.truePositives == 1 && result.falsePositives == 1)
        #expect(result.typed == 0)
    }

    @Test func typeSessionsCountOnlyKinds() {
        let found = [Detection(time: 1, kind: .jab), Detection(time: 2, kind: .uppercut)]
        let result = tally(found, RecordingTruth(mode: .type, type: "jab"))
        #expect(!result.isScored)
        #expect(result.typed == 2 && result.typedRight == 1)
        #expect(tally(found, RecordingTruth(mode: .type, type: "hook")).typed == 0)
    }

    @Test func aRecordingThatCannotBeReadMissesAllItsPunches() {
        var result = DatasetTally()
        result.addFailure(truth: windows((1, 2, "jab"), (3, 4, "jab")))
        result.addFailure(truth: RecordingTruth(mode: .count, count: 10, type: "jab"))
        #expect(result.cases == 2 && result.failed == 2 && result.falseNegatives == 12)
    }

    // MARK: - Figures

    @Test func precisionRecallAndF1() {
        let result = tally(detections(1, 3, 9), windows((1, 1, "jab"), (3, 3, "jab"), (5, 5, "jab"), (7, 7, "jab")))
        #expect(result.precision == 2.0 / 3)
        #expect(result.recall == 0.5)
        #expect(abs(result.f1 - 4.0 / 7) < 1e-12)
    }

    @Test func macroAveragesWeighEachScoredDatasetTheSame() {
        var score = RecordingScore()
        // One dataset perfect on one punch, another at F1 0.5 on many: the mean is 0.75.
        score.add(detections(1), truth: windows((1, 1, "jab")), dataset: "a")
        score.add(detections(1, 3), truth: RecordingTruth(mode: .count, count: 1, type: "hook"), dataset: "b")
        score.add(detections(), truth: RecordingTruth(mode: .count, count: 1, type: "hook"), dataset: "b")
        // Kinds only, and no punch at all: neither counts towards the macro F1.
        score.add(detections(1, kind: .uppercut), truth: RecordingTruth(mode: .type, type: "jab"), dataset: "c")
        score.add(detections(1), truth: RecordingTruth(mode: .windows, punches: [], duration: 60), dataset: "c")
        #expect(score.macroF1 == 0.75)
        // Kind accuracy: "a" 1 of 1, "c" 0 of 1; "b" has no jab or uppercut.
        #expect(score.macroKindAccuracy == 0.5)
        #expect(score.total.restFalse == 1)
        #expect(score.table.contains("macro (each dataset weighs the same): F1 0.750, type accuracy 0.500"))
        #expect(score.table.contains("no-punch sessions: 1 false punches in 1.0 minutes"))
    }
}
