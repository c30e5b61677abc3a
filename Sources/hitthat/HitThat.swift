import ArgumentParser
import MotionCommands

/// The `hitthat` command: punches from motion, fights from punches.
@main
struct HitThat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hitthat",
        abstract: "Turn arm motion into punches, and punches into fights.",
        subcommands: motionCommands + [Serve.self, Play.self, Audit.self]
    )
}
