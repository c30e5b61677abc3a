import ArgumentParser
import MotionInput
import PunchKit

// MARK: - DetectorOptions

/// The detector's settings, shared by every command that detects punches.
package struct DetectorOptions: ParsableArguments {
    package init() {}

    // Accepted for the scripts that pass it (the recordings' scorer does), and checked; the rule
    // is the same for either hand, hooks being reported as jabs, so it goes no further.
    @Option(help: "The hand holding the sensor: left or right. The rule is the same for either.")
    var hand: Hand = .right

    @Option(
        help: "The trigger's floor: the least strength of motion, in g with gravity removed, that can be a punch.")
    var trigger: Double = DetectorConfiguration().trigger

    @Option(name: .customLong("damage-per-g"), help: "Hit points per g of the stop's peak.")
    var damagePerG: Double = DetectorConfiguration().damagePerG

    @Option(
        name: .customLong("uppercut-score"),
        help:
            "The score above which a punch is an uppercut: its motion's signed share along up, plus 6 × its stop's width in s, plus 0.5 × the cosine between its thrust and its stop."
    )
    var uppercutScore: Double = DetectorConfiguration().uppercutScore

    @Option(help: "A player's profile (from `hitthat calibrate`): their punches are typed by it.")
    var profile: String?

    /// The detector configuration these options describe, with the profile read.
    /// - Throws: `Reported` after saying why, when the profile cannot be read or used.
    func configuration() throws -> DetectorConfiguration {
        var configuration = DetectorConfiguration()
        configuration.trigger = trigger
        configuration.damagePerG = damagePerG
        configuration.uppercutScore = uppercutScore
        if let profile {
            do {
                configuration.profile = try PunchProfile.read(from: profile)
            } catch {
                printError("\(error)")
                throw Reported(status: error.cause == .cannotOpen ? .noInput : .dataError)
            }
        }
        return configuration
    }

    package func validate() throws {
        guard trigger > 0, trigger.isFinite else { throw ValidationError("--trigger must be a positive number of g.") }
        guard damagePerG > 0, damagePerG.isFinite else { throw ValidationError("--damage-per-g must be positive.") }
        guard uppercutScore.isFinite else { throw ValidationError("--uppercut-score must be a number.") }
    }
}

// MARK: - TraceOptions

/// How to read a trace, shared by the commands that read traces.
package struct TraceOptions: ParsableArguments {
    package init() {}

    @Option(
        help:
            "The trace format, instead of recognising it from the header: \(TraceFormat.allValueStrings.joined(separator: ", "))."
    )
    var format: TraceFormat?

    @Option(help: "The acceleration unit, instead of the header's or the data's: g or ms2.")
    var units: AccelerationUnit?

    @Flag(help: "Skip malformed rows, and report how many, instead of stopping at the first.")
    var lenient = false

    /// The settings these options give.
    package var settings: TraceSettings { TraceSettings(format: format, units: units, lenient: lenient) }
}

extension Hand: ExpressibleByArgument {}
extension TraceFormat: ExpressibleByArgument {}
extension AccelerationUnit: ExpressibleByArgument {}
