import ArgumentParser
import MotionCommands

/// The `punches` command: `hitthat`'s commands for motion and punches alone, without the fights'
/// server and client, so that it builds in a fraction of the time.
@main
struct Punches: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "punches",
        abstract: "Turn arm motion into punches: hitthat's detection commands, built without the game.",
        subcommands: motionCommands
    )
}
