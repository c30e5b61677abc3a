import ArgumentParser

/// The commands for motion and punches, in the order they are listed: `hitthat` has them and the
/// game's; `punches` has them alone.
package let motionCommands: [any ParsableCommand.Type] = [
    Detect.self, Evaluate.self, Calibrate.self, Plot.self, Simulate.self, Devices.self, Listen.self,
]
