import ArgumentParser
import Foundation
import MotionInput
import PunchKit

// MARK: - calibrate

/// `hitthat calibrate`: a player's profile, learned from a few punches of each kind they labelled.
package struct Calibrate: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        abstract: "Learn a player's punches from a few labelled ones, into a profile.",
        discussion: """
            Each recording (a trace file, or an app's export as a folder or .zip) has its labels beside \
            it, NAME.labels.csv (header start,end,type; seconds since the first sample), naming the \
            punches to learn from; any other motion in the recording is ignored. A profile needs at \
            least \(PunchProfile.punchesPerKind) punches of each kind it knows, and may know one, two \
            or three kinds (the others are typed by the default rule). Give the profile to detect, \
            evaluate, plot or listen with --profile.
            """
    )

    @Argument(help: "The recordings, each with NAME.labels.csv beside it.")
    var recordings: [String]

    @Option(name: [.short, .long], help: "Where to write the profile (JSON).")
    var output: String

    @OptionGroup var traceOptions: TraceOptions
    @OptionGroup var detectorOptions: DetectorOptions

    package func validate() throws {
        guard !recordings.isEmpty else { throw ValidationError("Name at least one recording.") }
        guard detectorOptions.profile == nil else {
            throw ValidationError("--profile has no place here: calibrate learns one from the default rule's findings.")
        }
    }

    package func run() throws {
        try reportingFailures {
            var taught: [(kind: PunchKind, punch: Punch)] = []
            for recording in recordings {
                taught += try teachingPunches(in: recording)
            }
            let profile: PunchProfile
            do throws(ProfileError) {
                profile = try PunchProfile.learn(from: taught, hand: detectorOptions.hand)
            } catch {
                printError("calibrate: \(describe(error))")
                throw Reported(status: .dataError)
            }
            try FileSink(path: output).write(profile.json)
            printError(summary(of: profile))
        }
    }

    /// The labelled punches of one recording, each the punch the default rule finds in its span.
    private func teachingPunches(in recording: String) throws -> [(kind: PunchKind, punch: Punch)] {
        let labelsPath = PunchLabel.labelsPath(forTrace: recording)
        guard FileManager.default.fileExists(atPath: labelsPath) else {
            printError("\(recording): no labels file \(labelsPath) (start,end,type) naming the punches to learn")
            throw Reported(status: .noInput)
        }
        let labels = try readLabels(labelsPath)
        var tally = PunchTally()
        var found: [Punch] = []
        var source = try openTrace(recording, options: traceOptions)
        try reportingTraceErrors {
            try source.punches(configuration: detectorOptions.configuration(), seeing: { tally.see($0) }) {
                found.append($0)
            }
        }
        return try labels.map { label in
            guard let punch = PunchProfile.punch(for: label, among: found, origin: tally.firstTime) else {
                printError(
                    "\(labelsPath): the \(label.kind.rawValue) from \(formatted(label.start, decimals: 3)) s to "
                        + "\(formatted(label.end, decimals: 3)) s: no punch found there in \(recording); "
                        + "label a punch thrown hard enough to find, or leave it out")
                throw Reported(status: .dataError)
            }
            return (label.kind, punch)
        }
    }

    private func describe(_ error: ProfileError) -> String {
        switch error {
        case .noPunches:
            "the labels name no punch: a profile needs \(PunchProfile.punchesPerKind) of each kind it is to know"
        case .tooFew(let kind, let punches, let needed):
            "only \(punches) \(kind.rawValue)\(punches == 1 ? "" : "s") labelled: a kind needs \(needed) or more "
                + "(or none, and the default rule types it)"
        }
    }

    /// What was learned, in words: each kind, how many punches taught it and how many of them it
    /// types right when each is left out.
    private func summary(of profile: PunchProfile) -> String {
        let kinds = profile.kinds.map { "\($0.kind.rawValue) \($0.recognised) of \($0.punches) typed back" }
        return "\(output): learned \(kinds.joined(separator: ", "))"
            + (profile.gyroscope ? ", with the gyroscope" : ", without a gyroscope")
            + "; usual peak \(formatted(profile.typicalPeakG, decimals: 1)) g"
    }
}
