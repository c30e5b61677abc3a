import ArgumentParser
import FightClient
import MotionCommands
import MotionInput

// MARK: - PlayFailure

/// Why `hitthat play` gave up: what to tell the player, and the exit status.
struct PlayFailure: Error, CustomStringConvertible {
    var description: String
    var status: ExitCode

    init(_ description: String, status: ExitCode = .failure) {
        self.description = description
        self.status = status
    }

    /// A sensor that could not be opened or read: a trace's problem is data (65, as `detect`
    /// exits; 66 for one that is not there), a device's or raw events' is not (1, as `listen`
    /// exits).
    init(sensor error: any Error) {
        switch error {
        case let sensor as SensorFailure: self.init(sensor: sensor.error)
        case let trace as TraceInputError:
            self.init(trace.description, status: trace.cause == .cannotOpen ? .noInput : .dataError)
        default: self.init("\(error)")
        }
    }
}
