import FightClient
import FightEngine
import MotionInput
import PunchKit

// MARK: - SensorPunches

/// The punches of `play --sensor`, for the fight client: `MotionInput`'s `PunchFeed` of the
/// sensor, each punch as a fight takes it, and a failure as the error the sensor threw.
struct SensorPunches: PunchSource {
    private let feed: PunchFeed

    /// Opens `sensor` now, so that a missing file or device fails before the client connects; a
    /// recording is read whole now too (a malformed one fails as `detect` fails on it).
    ///
    /// - Throws: what `PunchFeed.opening` throws: `TraceInputError` for a trace, the input
    ///   device's errors for a node or raw events.
    init(
        _ sensor: SensorInput, trace: TraceSettings, motion: MotionSourceSettings,
        detector configuration: DetectorConfiguration
    ) throws {
        feed = try PunchFeed.opening(sensor, trace: trace, motion: motion, configuration: configuration)
    }

    func next(since start: ContinuousClock.Instant) async -> DetectedPunch? {
        while let detected = await feed.next(since: start) {
            guard let kind = PunchType(rawValue: detected.punch.kind.rawValue) else { continue }
            return DetectedPunch(kind: kind, damage: detected.punch.damage, detectedAt: detected.detectedAt)
        }
        return nil
    }

    var failure: (any Error)? { feed.failure }

    func stopped() async -> (any Error)? { await feed.stopped() }
}
