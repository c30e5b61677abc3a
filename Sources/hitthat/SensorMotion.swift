import FightClient
import FightProtocol
import MotionCommands
import MotionInput
import PunchKit

// MARK: - SensorMotion

/// The motion of `play --sensor`, for the fight client: `MotionInput`'s `MotionFeed` of the
/// sensor, each sample in a phone's units (m/s² and °/s, as `motion` carries them), and a failure
/// as the error the sensor threw. The server's detector finds the punch in it.
struct SensorMotion: MotionSource {
    private let feed: MotionFeed

    /// Opens `sensor` now, so that a missing file or device fails before the client connects; a
    /// recording is read whole now too (a malformed one fails as `detect` fails on it).
    ///
    /// - Throws: what `MotionFeed.opening` throws: `TraceInputError` for a trace, the input
    ///   device's errors for a node or raw events.
    init(_ sensor: SensorInput, trace: TraceSettings, motion: MotionSourceSettings) throws {
        feed = try MotionFeed.opening(sensor, trace: trace, motion: motion)
    }

    func nextRows(since start: ContinuousClock.Instant) async -> [MotionRow]? {
        await feed.next(since: start)?.map(MotionRow.init)
    }

    func rows(before start: ContinuousClock.Instant, seconds: Double) -> [MotionRow] {
        feed.samples(before: start, seconds: seconds).map(MotionRow.init)
    }

    var failure: (any Error)? { feed.failure }

    func stopped() async -> (any Error)? { await feed.stopped() }
}

extension MotionRow {
    /// A detector's sample (g, rad/s) in the units `motion` carries: the inverse of the server's
    /// reading of a row, which divides by the same `perG` and `perRadianPerSecond`.
    init(_ sample: MotionSample) {
        let a = sample.acceleration * AccelerationUnit.metersPerSecondSquared.perG
        let perRadian = RotationUnit.degreesPerSecond.perRadianPerSecond
        self.init(
            time: sample.time, acceleration: SIMD3(a.x, a.y, a.z),
            rotationRate: sample.rotationRate.map { SIMD3($0.x * perRadian, $0.y * perRadian, $0.z * perRadian) })
    }
}
