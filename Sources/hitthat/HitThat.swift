import ArgumentParser

/// The `hitthat` command: punches from motion, fights from punches.
@main
struct HitThat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hitthat",
        abstract: "Turn arm motion into punches, and punches into fights.",
        subcommands: [
            Detect.self, Evaluate.self, Calibrate.self, Plot.self, Simulate.self, Devices.self, Listen.self, Serve.self, Play.self,
            Audit.self,
        ]
    )
}
