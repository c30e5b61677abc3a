import Foundation
import PunchKit

// MARK: - PunchFeed

/// Punches detected from a sample source, handed out one at a time as they are wanted: a
/// player's sensor in a fight, where a punch is thrown once a turn.
///
/// A recording (a file) is read whole when the feed is made, and every punch in it is handed out
/// in order. A live source (a device, a pipe, a terminal) is the player punching now: it is read
/// on a thread of its own as it comes, only its newest punch is kept, and only one detected
/// since the moment asked for counts, so a punch thrown out of turn is dropped.
public final class PunchFeed: Sendable {
    /// A punch and when it was detected.
    public struct Detected: Sendable {
        /// The punch.
        public var punch: Punch
        /// When the detector decided it.
        public var detectedAt: ContinuousClock.Instant
    }

    /// Whether the source is the player punching now rather than a recording.
    public let isLive: Bool
    private let punches: AsyncStream<Detected>
    private let iterator: IteratorBox
    /// Why a live source stopped, when it failed (a device unplugged, a malformed pipe).
    private let failed = FailureBox()
    /// Gets the failure, if any, once the source has stopped: `stopped()` waits on it.
    private let stops = AsyncStream.makeStream(of: (any Error).self)

    private init(punches: AsyncStream<Detected>, isLive: Bool) {
        self.isLive = isLive
        self.punches = punches
        iterator = IteratorBox(punches.makeAsyncIterator())
    }

    /// Detects the punches of a recording now, to hand out in order.
    /// - Throws: what the source throws when it cannot be read or is malformed.
    public convenience init(recording source: some SampleSource, configuration: DetectorConfiguration) throws {
        var source = source
        let (stream, continuation) = AsyncStream.makeStream(of: Detected.self)
        self.init(punches: stream, isLive: false)
        defer {
            continuation.finish()
            stops.continuation.finish()
        }
        try source.punches(configuration: configuration) { continuation.yield(Detected(punch: $0, detectedAt: .now)) }
    }

    /// Starts detecting the punches of a live source on a thread of its own, which the source
    /// is handed to.
    public convenience init(live source: sending any SampleSource, configuration: DetectorConfiguration) {
        // The newest punch is kept: the turn may have begun an instant before the player's
        // client asks, and `next(since:)` drops it if it came before the turn.
        let (stream, continuation) = AsyncStream.makeStream(of: Detected.self, bufferingPolicy: .bufferingNewest(1))
        self.init(punches: stream, isLive: true)
        nonisolated(unsafe) var source = source
        Thread.detachNewThread { [self] in
            do {
                try source.punches(configuration: configuration) {
                    continuation.yield(Detected(punch: $0, detectedAt: .now))
                }
            } catch {
                // Set before the punches end, so that whoever sees them end can tell why.
                failed.set(error)
                stops.continuation.yield(error)
            }
            continuation.finish()
            stops.continuation.finish()
        }
    }

    /// The next punch; from a live source one detected at `start` or later. `nil` when the source
    /// has no more.
    public func next(since start: ContinuousClock.Instant) async -> Detected? {
        while let detected = await iterator.next() {
            if !isLive || detected.detectedAt >= start { return detected }
        }
        return nil
    }

    /// Why the source stopped, once it has, when it failed rather than ended.
    public var failure: (any Error)? { failed.get() }

    /// Waits until the source has stopped, and returns why when it failed; `nil` when it just
    /// ended. For one caller.
    public func stopped() async -> (any Error)? {
        for await failure in stops.stream { return failure }
        return nil
    }

    /// The failure, written by the reading thread and read by any.
    private final class FailureBox: @unchecked Sendable {
        private let lock = NSLock()
        private var error: (any Error)?
        func set(_ error: any Error) { lock.withLock { self.error = error } }
        func get() -> (any Error)? { lock.withLock { error } }
    }

    /// The stream's iterator, used by one caller at a time (one punch is thrown at a time).
    private actor IteratorBox {
        var iterator: AsyncStream<Detected>.Iterator
        init(_ iterator: AsyncStream<Detected>.Iterator) { self.iterator = iterator }
        func next() async -> Detected? {
            var current = iterator  // an iterator is a handle on the stream's shared storage
            let detected = await current.next(isolation: self)
            iterator = current
            return detected
        }
    }
}
