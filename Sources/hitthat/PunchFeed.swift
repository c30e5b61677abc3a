import FightClient
import FightEngine
import Foundation
import InputDevices
import MotionInput
import NIOConcurrencyHelpers
import PunchKit

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - PunchFeed

/// Punches detected from a sensor, handed out one at a time as turns come.
///
/// A recording (a trace or raw events in a regular file) queues its punches and one is thrown per
/// turn. A live source (an input device, a pipe, a terminal) is the player punching now: only a
/// punch detected since the turn began counts, one from before it (out of turn) is dropped.
final class PunchFeed: PunchSource {
    /// Whether the source is the player punching now rather than a recording.
    private let isLive: Bool
    private let punches: AsyncStream<DetectedPunch>
    private let iterator: IteratorBox
    /// Why the source stopped, when it failed (a device unplugged, a malformed pipe), for the view.
    private let failed = NIOLockedValueBox<PlayFailure?>(nil)
    /// Gets the failure, if any, once the source has stopped: `stopped()` waits on it.
    private let stops = AsyncStream.makeStream(of: PlayFailure.self)

    private init(punches: AsyncStream<DetectedPunch>, isLive: Bool) {
        self.isLive = isLive
        self.punches = punches
        iterator = IteratorBox(punches.makeAsyncIterator())
    }

    /// Waits until the source has stopped, and returns why when it failed; `nil` when it just
    /// ended. For one caller: the session, which shows a failure at once, not at the next turn.
    func stopped() async -> String? {
        for await failure in stops.stream { return failure.description }
        return nil
    }

    /// The next punch, from a live source one detected at `start` or later; `nil` when the sensor
    /// has no more.
    func next(since start: ContinuousClock.Instant) async -> DetectedPunch? {
        while let punch = await iterator.next() {
            if !isLive || punch.detectedAt >= start { return punch }
        }
        return nil
    }

    /// Why the sensor stopped, when it failed rather than ended, with the exit status it gives.
    var failureReason: PlayFailure? { failed.withLockedValue { $0 } }

    /// Why the sensor stopped, when it failed rather than ended.
    var failure: String? { failureReason?.description }

    /// Where a sensor's punches come from.
    enum Source {
        /// A trace (CSV and the other formats `detect` reads) in a file, or `-` for standard input.
        case trace(String, TraceOptions)
        /// An input device, or raw events in a file or on standard input, read as `listen` does.
        case motion(String, rawEvents: Bool, MotionSourceOptions)
    }

    /// Opens `source` now, so that a missing file or device fails before the client connects. A
    /// recording is read whole now too (a malformed one fails as `detect` fails on it); a live
    /// source is read on a thread of its own as it comes.
    ///
    /// - Throws: `PlayFailure` saying what is wrong: for a trace as `detect` says it (exit status
    ///   65), for a device or raw events as `listen` does; `Reported` when already said.
    static func open(_ source: Source, detector configuration: DetectorConfiguration) throws -> PunchFeed {
        let samples: any SampleSource
        let live: Bool
        do {
            switch source {
            case .trace(let path, let options):
                let trace = try TraceFile(
                    path: path, format: options.format, units: options.units, lenient: options.lenient)
                live = !trace.isRecording
                samples = trace
            case .motion(let path, let rawEvents, let options):
                live = !rawEvents || !isRegularFile(path)
                samples = FrameSamples(try options.open(path, rawEvents: rawEvents))
            }
        } catch let reported as Reported {
            throw reported
        } catch {
            throw PlayFailure(sensor: error)
        }
        // A live source keeps its latest punch: the turn may have begun an instant before the
        // session starts to wait, and `next(since:)` drops it if it came before the turn.
        let (stream, continuation) = AsyncStream.makeStream(
            of: DetectedPunch.self, bufferingPolicy: live ? .bufferingNewest(1) : .unbounded)
        let feed = PunchFeed(punches: stream, isLive: live)
        // Only the reading thread touches the source once it is open.
        nonisolated(unsafe) var source = samples
        @Sendable func detect() throws {
            try source.punches(configuration: configuration) { punch in
                guard let kind = PunchType(rawValue: punch.kind.rawValue) else { return }
                continuation.yield(
                    DetectedPunch(
                        kind: kind, damage: Rules.clampedDamage(punch.damage), detectedAt: .now))
            }
        }
        guard live else {
            defer {
                continuation.finish()
                feed.stops.continuation.finish()
            }
            do { try detect() } catch { throw PlayFailure(sensor: error) }
            return feed
        }
        Thread.detachNewThread {
            do {
                try detect()
            } catch {
                // Set before the punches end, so that whoever sees them end can tell why.
                let failure = PlayFailure(sensor: error)
                feed.failed.withLockedValue { $0 = failure }
                feed.stops.continuation.yield(failure)
            }
            continuation.finish()
            feed.stops.continuation.finish()
        }
        return feed
    }

    /// The stream's iterator, used by one caller at a time (the session throws one punch at a time).
    private actor IteratorBox {
        var iterator: AsyncStream<DetectedPunch>.Iterator
        init(_ iterator: AsyncStream<DetectedPunch>.Iterator) { self.iterator = iterator }
        func next() async -> DetectedPunch? {
            var current = iterator  // an iterator is a handle on the stream's shared storage
            let punch = await current.next(isolation: self)
            iterator = current
            return punch
        }
    }
}
