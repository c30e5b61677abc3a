import Foundation
import MotionInput
import PunchKit
import Testing

// MARK: - Floors

// What the detector reached on ../shared/recordings, minus 0.01: the detector rebuilt on them,
// 24 Nov 2026, macro F1 0.951 and kind accuracy 0.914 (0.888 before the bend joined the kind),
// no punch in the no-punch sessions (as score.py scores it; before the rebuild: 0.565 and
// 0.555). Falling below is a regression; whoever makes the detector do better raises them.
/// The least macro F1 of detection, each dataset weighing the same.
let macroF1Floor = 0.941
/// The least macro share of jabs and uppercuts given the right kind.
let macroKindAccuracyFloor = 0.904
/// The most punches found in the sessions with no punch at all (what the detector found there).
let noPunchFalsePunchesCeiling = 0
// The whole exports of `motion/`, read with their gyroscope and typed with the turn's axis and
// the path's sideways bend, 26 Nov 2026: macro F1 0.951, jab-vs-uppercut 0.907 (the Joy-Con's
// 0.707, which has no gyroscope, among them), three kinds over the sets with a gyroscope 0.900
// (before they were read: 22 of 143 cases unreadable, F1 0.483). On 29 Nov the hook's thresholds
// were chosen by leaving one person out (docs/DETECTOR.md): three kinds 0.910 and jab-vs-uppercut
// 0.888 here (jabs that bend sideways now count as hooks), better for a person left out on both.
// Minus 0.01, as above.
/// The least macro F1 on the whole exports.
let exportsMacroF1Floor = 0.941
/// The least macro jab-vs-uppercut accuracy on the whole exports.
let exportsKindAccuracyFloor = 0.878
/// The least three-kind accuracy over the exports with a gyroscope.
let exportsThreeKindsFloor = 0.900

// MARK: - The recordings

/// The real recordings beside the package, when this machine has them (they have no licence,
/// so they are never in the repository): `../shared/recordings/cases/DATASET/NAME.csv`, each with
/// its `NAME.csv.truth.json`.
enum RealRecordings {
    /// The package's root, found from this file's path (Tests/RealRecordingsTests/…).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/recordings/cases` beside the package root.
    static let cases = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/recordings/cases")
    /// `../shared/recordings/motion`: the same recordings as their apps export them.
    static let exports = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/recordings/motion")

    static var arePresent: Bool { isFolder(cases) }
    static var exportsArePresent: Bool { isFolder(exports) }

    private static func isFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// One recording: its dataset (folder), its trace and its truth.
    struct Case {
        var dataset: String
        var trace: String
        var truth: RecordingTruth
    }

    /// Every recording that has a truth file, by dataset and name.
    static func all(in root: URL = cases) throws -> [Case] {
        let suffix = ".truth.json"
        let datasets = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        return try datasets.flatMap { dataset in
            let folder = root.appendingPathComponent(dataset)
            // A file beside the folders is no dataset; score.py's `*/*.truth.json` passes it over too.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return try names.filter { $0.hasSuffix(suffix) }.sorted().map { name in
                let truthFile = folder.appendingPathComponent(name)
                let truth = try JSONDecoder().decode(RecordingTruth.self, from: Data(contentsOf: truthFile))
                return Case(
                    dataset: dataset, trace: folder.appendingPathComponent(String(name.dropLast(suffix.count))).path,
                    truth: truth)
            }
        }
    }

    /// The punches `hitthat detect --json --hand HAND FILE` prints for a trace or a whole export:
    /// read through `TraceFile` as the command reads it (an export's gyroscope lined up with its
    /// acceleration), fed in order to the default detector (the rule is the same for either hand).
    static func detect(_ path: String) throws -> [Detection] {
        var file = try TraceFile(path: path)
        var origin: Double?
        var punches: [Punch] = []
        try file.punches(seeing: { if origin == nil { origin = $0.time } }) { punches.append($0) }
        return detections(punches, since: origin ?? 0)
    }

    /// `t` as the command prints it, to four decimals, so that a punch at a window's very edge
    /// is judged the same here and by score.py.
    private static func detections(_ punches: [Punch], since origin: Double) -> [Detection] {
        punches.map { Detection(time: Double(String(format: "%.4f", $0.time - origin))!, kind: $0.kind) }
    }
}

// MARK: - The guard

@Suite struct RealRecordingsTests {
    @Test(
        .enabled(
            if: RealRecordings.arePresent,
            "no real recordings at \(RealRecordings.cases.path) (they are not in the repository)"))
    func theDetectorScoresAtLeastWhatItDidOnRealRecordings() throws {
        var score = RecordingScore()
        var failures: [String] = []
        for recording in try RealRecordings.all() {
            do {
                let detections = try RealRecordings.detect(recording.trace)
                score.add(detections, truth: recording.truth, dataset: recording.dataset)
            } catch {
                // score.py counts a command that fails as a case whose punches were all missed.
                score.addFailure(truth: recording.truth, dataset: recording.dataset)
                failures.append("\(error)")
            }
        }
        print(score.table)
        print("unrounded, as in score.py --json: macro F1 \(score.macroF1), type accuracy \(score.macroKindAccuracy)")
        for failure in failures { print("error: \(failure)") }

        #expect(!score.datasets.isEmpty, "no recordings in \(RealRecordings.cases.path)")
        #expect(failures.isEmpty, "every recording is one the reader reads")
        #expect(score.macroF1 >= macroF1Floor, "macro F1 \(score.macroF1) fell below \(macroF1Floor)")
        #expect(
            score.macroKindAccuracy >= macroKindAccuracyFloor,
            "macro kind accuracy \(score.macroKindAccuracy) fell below \(macroKindAccuracyFloor)")
        #expect(
            score.total.restFalse <= noPunchFalsePunchesCeiling,
            "\(score.total.restFalse) false punches in the no-punch sessions, more than \(noPunchFalsePunchesCeiling)")
    }

    @Test(
        .enabled(
            if: RealRecordings.exportsArePresent,
            "no whole exports at \(RealRecordings.exports.path) (they are not in the repository)"))
    func wholeExportsAreReadWithTheirGyroscopeAndScoreAtLeastWhatTheyDid() throws {
        var score = RecordingScore()
        var failures: [String] = []
        for recording in try RealRecordings.all(in: RealRecordings.exports) {
            do {
                score.add(try RealRecordings.detect(recording.trace), truth: recording.truth, dataset: recording.dataset)
            } catch {
                score.addFailure(truth: recording.truth, dataset: recording.dataset)
                failures.append("\(error)")
            }
        }
        print(score.table)
        #expect(failures.isEmpty, "every export is one the reader reads: \(failures.prefix(3))")
        #expect(score.total.withGyroscope > 0, "the gyroscope sets are marked in their truth")
        #expect(score.macroF1 >= exportsMacroF1Floor, "macro F1 \(score.macroF1) fell below \(exportsMacroF1Floor)")
        #expect(
            score.macroKindAccuracy >= exportsKindAccuracyFloor,
            "jab-vs-uppercut \(score.macroKindAccuracy) fell below \(exportsKindAccuracyFloor)")
        #expect(
            score.macroKind3AccuracyWithGyroscope >= exportsThreeKindsFloor,
            "three kinds \(score.macroKind3AccuracyWithGyroscope) fell below \(exportsThreeKindsFloor)")
        #expect(score.total.restFalse <= noPunchFalsePunchesCeiling)
    }
}

// MARK: - The orientation filter on real turns

@Suite struct RealOrientationTests {
    /// Across each burst of motion in the exports with a gyroscope (a punch, a turn of the
    /// wrist), up followed from the gyroscope alone, from the calm before to the calm after,
    /// agrees with the gravity measured there: far closer than the device's own turn, which an
    /// up frozen at the start would be off by.
    @Test(
        .enabled(
            if: RealRecordings.exportsArePresent,
            "no whole exports at \(RealRecordings.exports.path) (they are not in the repository)"))
    func upFollowedThroughAMotionAgreesWithTheGravityAfterIt() throws {
        var errors: [Double] = []
        var turns: [Double] = []
        var bySet: [String: [Double]] = [:]
        // The no-punch sessions are left out: jogging is never at rest long enough to say where
        // gravity is.
        for recording in try RealRecordings.all(in: RealRecordings.exports)
        where recording.truth.gyroscope == true && !(recording.truth.mode == .windows && recording.truth.punches?.isEmpty != false) {
            var samples: [MotionSample] = []
            try TraceFile(path: recording.trace).forEachSample { samples.append($0) }
            func isCalm(_ sample: MotionSample) -> Bool {
                guard let rate = sample.rotationRate else { return false }
                return abs(sample.acceleration.length - 1) < 0.05 && rate.length < 0.5
            }
            // Calm for a tenth of a second from `index` on (or up to it): at rest, not a swing
            // passing through 1 g.
            func staysCalm(from index: Int, forward: Bool) -> Bool {
                var step = index
                while step >= 0 && step < samples.count && abs(samples[step].time - samples[index].time) < 0.1 {
                    guard isCalm(samples[step]) else { return false }
                    step += forward ? 1 : -1
                }
                return step >= 0 && step < samples.count
            }
            var index = 0
            while index + 1 < samples.count {
                // The last calm sample before a burst, and the first calm one after it.
                guard isCalm(samples[index]), !isCalm(samples[index + 1]), staysCalm(from: index, forward: false) else {
                    index += 1
                    continue
                }
                guard let end = samples[(index + 1)...].indices.first(where: { staysCalm(from: $0, forward: true) })
                else { break }
                let span = samples[end].time - samples[index].time
                if (0.3...1.5).contains(span) {
                    var filter = OrientationFilter(correctionTime: .infinity, calmTolerance: 0)
                    filter.warmUp = 0  // the gyroscope alone
                    filter.update(reading: samples[index].acceleration, rotationRate: .zero, interval: 0)
                    for step in (index + 1)...end {
                        let rate = ((samples[step].rotationRate ?? .zero) + (samples[step - 1].rotationRate ?? .zero)) * 0.5
                        filter.update(
                            reading: samples[step].acceleration, rotationRate: rate,
                            interval: samples[step].time - samples[step - 1].time)
                    }
                    let after = samples[end].acceleration.normalized
                    errors.append(degrees(filter.up, after))
                    bySet[recording.dataset, default: []].append(errors.last!)
                    turns.append(degrees(samples[index].acceleration.normalized, after))
                }
                index = end
            }
        }
        let error = median(errors)
        let turn = median(turns)
        // Where the device turned by more than 20°, how often the followed up is the nearer.
        let turned = zip(errors, turns).filter { $0.1 > 20 }
        let better = Double(turned.count(where: { $0.0 < $0.1 })) / Double(max(turned.count, 1))
        for (set, values) in bySet.sorted(by: { $0.key < $1.key }) {
            print("\(set): \(values.count) bursts, up followed off by \(median(values))° in the median")
        }
        print(
            "bursts \(errors.count): up followed off by \(error)° in the median, the device turned \(turn)°; "
                + "of \(turned.count) turns over 20°, the followed up nearer in \(better)")
        #expect(errors.count >= 20, "enough bursts to judge by")
        #expect(error < 12, "up followed through a burst is off by \(error)° in the median")
        #expect(turned.count >= 5 && better >= 0.8, "the gyroscope's up beats a frozen one where the device turned")
    }

    func degrees(_ a: Vector3, _ b: Vector3) -> Double {
        acos(max(-1, min(1, a.normalized.dot(b.normalized)))) * 180 / .pi
    }

    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
}
