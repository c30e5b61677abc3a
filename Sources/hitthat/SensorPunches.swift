import FightClient
import FightEngine
import InputDevices
import MotionInput
import PunchKit

// MARK: - SensorPunches

/// The punches of `play --sensor`: a `PunchFeed` of the sensor, each punch brought into the
/// fight's damage range, and a failure told as `play` tells it.
struct SensorPunches: PunchSource {
    private let feed: PunchFeed

    /// Where a sensor's punches come from.
    enum Source {
        /// A trace (CSV and the other formats `detect` reads) in a file, or `-` for standard input.
        case trace(String, TraceOptions)
        /// An input device, or raw events in a file or on standard input, read as `listen` does.
        case motion(String, rawEvents: Bool, MotionSourceOptions)
    }

    /// Opens `source` now, so that a missing file or device fails before the client connects; a
    /// recording is read whole now too (a malformed one fails as `detect` fails on it).
    ///
    /// - Throws: `PlayFailure` saying what is wrong: for a trace as `detect` says it (exit status
    ///   65), for a device or raw events as `listen` does; `Reported` when already said.
    init(_ source: Source, detector configuration: DetectorConfiguration) throws {
        do {
            switch source {
            case .trace(let path, let options):
                let trace = try TraceFile(
                    path: path, format: options.format, units: options.units, lenient: options.lenient)
                feed =
                    trace.isRecording
                    ? try PunchFeed(recording: trace, configuration: configuration)
                    : PunchFeed(live: trace, configuration: configuration)
            case .motion(let path, let rawEvents, let options):
                let frames = FrameSamples(try options.open(path, rawEvents: rawEvents))
                feed =
                    rawEvents && isRegularFile(path)
                    ? try PunchFeed(recording: frames, configuration: configuration)
                    : PunchFeed(live: frames, configuration: configuration)
            }
        } catch let reported as Reported {
            throw reported
        } catch {
            throw PlayFailure(sensor: error)
        }
    }

    func next(since start: ContinuousClock.Instant) async -> DetectedPunch? {
        while let detected = await feed.next(since: start) {
            guard let kind = PunchType(rawValue: detected.punch.kind.rawValue) else { continue }
            return DetectedPunch(
                kind: kind, damage: Rules.clampedDamage(detected.punch.damage), detectedAt: detected.detectedAt)
        }
        return nil
    }

    /// Why the sensor stopped, when it failed rather than ended, with the exit status it gives.
    var failureReason: PlayFailure? { feed.failure.map(PlayFailure.init(sensor:)) }

    var failure: String? { failureReason?.description }

    func stopped() async -> String? {
        await feed.stopped().map { PlayFailure(sensor: $0).description }
    }
}
