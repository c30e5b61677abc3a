import ArgumentParser
import PunchKit

// MARK: - DetectorOptions

/// The detector's settings, shared by every command that detects punches.
struct DetectorOptions: ParsableArguments {
    @Option(help: "The hand holding the sensor: left or right.")
    var hand: Hand = .right

    @Option(help: "The smallest stop, in g with gravity removed, that can be a punch.")
    var trigger: Double = DetectorConfiguration().trigger

    @Option(name: .customLong("damage-per-g"), help: "Hit points per g of the stop's peak.")
    var damagePerG: Double = DetectorConfiguration().damagePerG

    @Option(name: .customLong("uppercut-angle"), help: "Degrees above horizontal from which a punch is an uppercut.")
    var uppercutAngle: Double = DetectorConfiguration().uppercutElevation

    @Flag(help: "Report a level punch whose thrust curves the hand's way as a hook (off: every level punch is a jab).")
    var hooks = false

    /// The detector configuration these options describe.
    var configuration: DetectorConfiguration {
        var configuration = DetectorConfiguration()
        configuration.hand = hand
        configuration.trigger = trigger
        configuration.damagePerG = damagePerG
        configuration.uppercutElevation = uppercutAngle
        configuration.reportsHooks = hooks
        return configuration
    }

    func validate() throws {
        guard trigger > 0, trigger.isFinite else { throw ValidationError("--trigger must be a positive number of g.") }
        guard damagePerG > 0, damagePerG.isFinite else { throw ValidationError("--damage-per-g must be positive.") }
        guard (0...90).contains(uppercutAngle) else {
            throw ValidationError("--uppercut-angle must be 0 to 90 degrees.")
        }
    }
}

// MARK: - TraceOptions

/// How to read a trace, shared by the commands that read traces.
struct TraceOptions: ParsableArguments {
    @Option(
        help:
            "The trace format, instead of recognising it from the header: \(TraceFormat.allValueStrings.joined(separator: ", "))."
    )
    var format: TraceFormat?

    @Option(help: "The acceleration unit, instead of the header's or the data's: g or ms2.")
    var units: AccelerationUnit?

    @Flag(help: "Skip malformed rows, and report how many, instead of stopping at the first.")
    var lenient = false
}

extension Hand: ExpressibleByArgument {}
extension TraceFormat: ExpressibleByArgument {}
extension AccelerationUnit: ExpressibleByArgument {}
