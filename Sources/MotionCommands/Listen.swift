import ArgumentParser
import InputDevices
import MotionInput
import PunchKit

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - listen

/// `hitthat listen`: punches from a live motion sensor, a pipe of raw events, or a recording.
package struct Listen: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        abstract: "Detect punches live from a motion sensor.",
        discussion: """
            Reads an evdev node (/dev/input/eventN), a joystick node (/dev/input/jsN), raw input_event \
            records on standard input (-, with --resolution or --device-info), or an evemu-record \
            capture (--evemu), turns each SYN_REPORT frame into a sample and prints punches as \
            `detect` does, with latency_ms: from reading the frame that decided a punch to writing \
            its line. Ctrl-C stops and prints a summary.
            """
    )

    @Argument(help: "The node to read: /dev/input/eventN, /dev/input/jsN, or - for raw events on standard input.")
    var node: String?

    @Option(help: "Replay an evemu-record capture instead of reading a node.")
    var evemu: String?

    @Flag(help: "One JSON object a punch, a line each.")
    var json = false

    @OptionGroup var motionOptions: MotionSourceOptions

    @OptionGroup var detectorOptions: DetectorOptions

    package func validate() throws {
        switch (node, evemu) {
        case (nil, nil):
            throw ValidationError(
                "Give what to read: a node (/dev/input/eventN or jsN), - for raw events on standard input, or --evemu FILE."
            )
        case (.some, .some):
            throw ValidationError("Give a node (or -) or --evemu FILE, not both.")
        default:
            break
        }
    }

    package func run() throws {
        let source: any MotionFrameSource
        do {
            source = try openSource()
        } catch let error as EvemuSyntaxError {
            // A malformed capture is malformed input, as a malformed trace is to `detect`.
            printError("\(error)")
            throw ExitCode.dataError
        } catch let error as InputDeviceError {
            printError("\(error)")
            throw ExitCode.status(for: error)
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        let configuration: DetectorConfiguration
        do { configuration = try detectorOptions.configuration() } catch let failure as Reported { throw failure.status }
        let interrupt = InterruptFlag.install()
        var output = PunchPrinter(json: json, showsLatency: true)
        var tally = PunchTally()
        var samples = FrameSamples(source, until: { interrupt.isRaised })
        var received = 0.0
        var failure: Error?
        do {
            try samples.punches(
                configuration: configuration,
                seeing: { sample in
                    received = monotonicSeconds()
                    tally.see(sample)
                }
            ) { punch in
                tally.count(punch)
                // The last punch is decided by the end of the stream, not by a frame read.
                let latency = interrupt.isRaised ? 0 : (monotonicSeconds() - received) * 1000
                output.write(punch, since: tally.firstTime, latencyMs: latency)
            }
        } catch {
            failure = error
        }
        printError(tally.summary(of: node ?? evemu ?? "-", detail: interrupt.isRaised ? "stopped by Ctrl-C" : nil))
        if let failure {
            printError("\(failure)")
            throw (failure as? InputDeviceError).map(ExitCode.status(for:)) ?? ExitCode.failure
        }
    }

    // MARK: - Sources

    /// The frame source the arguments name. Nodes and pipes are read through an
    /// `InterruptibleDescriptor`, so that Ctrl-C ends a blocked read and the summary is printed.
    private func openSource() throws -> any MotionFrameSource {
        if let evemu {
            return try EvemuMotionReader(
                recording: try EvemuRecording.load(path: evemu), overrides: motionOptions.settings().overrides)
        }
        let path = node ?? "-"
        return try motionOptions.settings().open(path, rawEvents: path == "-")
    }
}

// MARK: - Interrupts

/// Set by SIGINT and SIGTERM. Installed without SA_RESTART, so a blocked read returns EINTR and
/// the loop ends with a summary instead of the process dying mid-line.
package final class InterruptFlag: Sendable {
    nonisolated(unsafe) private static var raised: sig_atomic_t = 0

    var isRaised: Bool { Self.raised != 0 }

    static func install() -> InterruptFlag {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in InterruptFlag.raised = 1 }
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have left them blocked (test runners and some shells do): then they would
        // never arrive, and Ctrl-C would hang.
        var wanted = sigset_t()
        sigemptyset(&wanted)
        sigaddset(&wanted, SIGINT)
        sigaddset(&wanted, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
        return InterruptFlag()
    }
}

/// Seconds on the monotonic clock.
package func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
