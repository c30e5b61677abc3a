import Foundation
import PunchKit

// MARK: - MotionFeed

/// A player's sensor in a fight: its samples handed out in batches, each sample once, to be
/// streamed to the server while the punch button is held (the server's detector finds the punch).
///
/// A recording (a file) is read whole when the feed is made (a malformed one fails then), and
/// played back from where it left off, at a pace (`Pace`): a little faster than it was made, never
/// faster than a sensor streams. A live source (a device, a pipe, a terminal) is the player moving
/// now: it is read on a thread of its own as it comes, and only samples that arrived since the
/// moment asked for are handed out, so that motion out of turn is dropped.
public final class MotionFeed: Sendable {
    /// How fast samples are handed out.
    public struct Pace: Hashable, Sendable {
        /// How long each batch gathers: the wait before each is handed out.
        public var batchInterval: Duration
        /// The wait while a punch may be under way (`mayBeUnderWay`): the server decides a punch
        /// a blink after its stop, and a sample held back for a whole batch keeps it waiting.
        public var urgentInterval: Duration
        /// How many times faster than it was made a recording is played back, at most.
        public var speed: Double
        /// The most samples a second handed out; a recording sampled faster is thinned to this
        /// rate (every other sample of a 400 Hz one, say), as no sensor streams faster.
        public var maximumRate: Double
        /// The most batches handed out, a second on average and at once: each is a message, and
        /// the server takes 20 a second, in bursts of up to 40, of every kind (a hold's last
        /// batch, the commands, the answers to the server's questions share the rest).
        public var batchesPerSecond: Double
        /// See `batchesPerSecond`.
        public var batchBurst: Double

        /// Creates a pace; `urgentInterval` is `batchInterval` unless given.
        public init(
            batchInterval: Duration, urgentInterval: Duration? = nil, speed: Double, maximumRate: Double,
            batchesPerSecond: Double = 15, batchBurst: Double = 25
        ) {
            self.batchInterval = batchInterval
            self.urgentInterval = urgentInterval ?? batchInterval
            self.speed = speed
            self.maximumRate = maximumRate
            self.batchesPerSecond = batchesPerSecond
            self.batchBurst = batchBurst
        }

        /// `play --sensor`'s: a batch every 50 ms, every 10 ms while a punch may be under way; a
        /// recording twice as fast as it was made, at most 200 samples a second (so within the
        /// server's 250), a live sensor as it comes.
        public static let standard = Pace(
            batchInterval: .milliseconds(50), urgentInterval: .milliseconds(10), speed: 2, maximumRate: 200)

        /// The most samples of one batch: a batch interval's at the most rate, or more where the
        /// batches a second could not carry the most rate otherwise; at least one.
        var samplesPerBatch: Int {
            max(1, Int((maximumRate * max(seconds(batchInterval), 1 / batchesPerSecond)).rounded(.up)))
        }
    }

    /// A punch may be under way while a sample reads this far from 1 g, in g, and for
    /// `underWaySeconds` after it: a hand at rest, or walking, stays within it.
    static let underWayDeparture = 0.4
    /// See `underWayDeparture`.
    static let underWaySeconds = 0.3

    /// Whether the source is the player moving now rather than a recording.
    public let isLive: Bool
    /// The pace samples are handed out at.
    public let pace: Pace
    private let state: StateBox
    /// Why a live source stopped, when it failed (a device unplugged, a malformed pipe).
    private let failed = FailureBox()
    /// Gets the failure, if any, once the source has stopped: `stopped()` waits on it.
    private let stops = AsyncStream.makeStream(of: (any Error).self)

    /// The most samples a live source keeps that nobody has asked for: a few seconds of a sensor.
    static let liveBacklog = 1024

    private init(state: StateBox, isLive: Bool, pace: Pace) {
        self.state = state
        self.isLive = isLive
        self.pace = pace
    }

    /// Reads a recording whole now, to hand out from its start.
    /// - Throws: what the source throws when it cannot be read or is malformed.
    public convenience init(recording source: some SampleSource, pace: Pace = .standard) throws {
        var source = source
        var samples: [MotionSample] = []
        try source.forEachSample { samples.append($0) }
        self.init(state: StateBox(recorded: samples), isLive: false, pace: pace)
        stops.continuation.finish()
    }

    /// Starts reading a live source on a thread of its own, which the source is handed to.
    public convenience init(live source: sending any SampleSource, pace: Pace = .standard) {
        self.init(state: StateBox(recorded: []), isLive: true, pace: pace)
        nonisolated(unsafe) var source = source
        Thread.detachNewThread { [self] in
            do {
                try source.forEachSample { sample in state.arrive(sample, at: .now) }
            } catch {
                // Set before the samples end, so that whoever sees them end can tell why.
                failed.set(error)
                stops.continuation.yield(error)
            }
            state.end()
            stops.continuation.finish()
        }
    }

    /// The next batch, after the pace's interval (its urgent one while a punch may be under way,
    /// within `batchesPerSecond`): from a recording, the next samples where it left off (the
    /// interval × `speed` of it, at most `maximumRate`); from a live source, the samples that
    /// arrived at `start` or later and were not handed out yet (at most `maximumRate` too),
    /// waiting until there is one. `nil` when the source has no more, or the wait was cancelled.
    public func next(since start: ContinuousClock.Instant) async -> [MotionSample]? {
        while true {
            let interval =
                state.mayBeUnderWay(at: .now, pace: pace) && state.batchesLeft(at: .now, pace: pace) >= 2
                ? pace.urgentInterval : pace.batchInterval
            guard (try? await Task.sleep(for: interval)) != nil else { return nil }
            guard state.batchesLeft(at: .now, pace: pace) >= 1 else { continue }
            let taken =
                isLive ? state.takeLive(since: start, pace: pace) : state.takeRecorded(pace: pace, over: interval)
            switch taken {
            case .samples(let samples):
                state.spendBatch()
                return samples
            case .ended: return nil
            case .none: continue
            }
        }
    }

    /// A live source's samples that arrived in the `seconds` before `start` (none from a
    /// recording): what `next(since:)` leaves out, a hold's lead-in.
    public func samples(before start: ContinuousClock.Instant, seconds: Double) -> [MotionSample] {
        isLive ? state.samples(before: start, seconds: seconds, pace: pace) : []
    }

    /// Why the source stopped, once it has, when it failed rather than ended.
    public var failure: (any Error)? { failed.get() }

    /// Waits until the source has stopped, and returns why when it failed; `nil` when it just
    /// ended (a recording, read whole, has). For one caller.
    public func stopped() async -> (any Error)? {
        for await failure in stops.stream { return failure }
        return nil
    }

    /// What a look at the samples found.
    enum Taken {
        case samples([MotionSample])
        case none
        case ended
    }

    /// The samples and where the handing out stands, shared by the reading thread and the asker.
    private final class StateBox: @unchecked Sendable {
        private let lock = NSLock()
        /// A recording's samples and the next to hand out.
        private let recorded: [MotionSample]
        private var cursor = 0
        /// The time of the last sample handed out, which a thinned recording counts from.
        private var lastHanded: Double?
        /// A live source's samples not handed out yet, with when each arrived, oldest first.
        private var arrived: [(sample: MotionSample, at: ContinuousClock.Instant)] = []
        /// A live source's samples that arrived before a turn asked for motion: never handed
        /// out, but a hold's lead-in.
        private var before: [(sample: MotionSample, at: ContinuousClock.Instant)] = []
        /// When a live source's samples were last handed out.
        private var lastTaken: ContinuousClock.Instant?
        private var ended = false
        /// Until when a punch may be under way in a live source's samples.
        private var underWayUntil: ContinuousClock.Instant?
        /// The batches that may be handed out now (`Pace.batchesPerSecond`), when last counted.
        private var batches: (left: Double, at: ContinuousClock.Instant)?

        init(recorded: [MotionSample]) { self.recorded = recorded }

        /// Whether a punch may be under way: a sample far from 1 g arrived (live) or is handed out
        /// next (a recording) within `underWaySeconds`.
        func mayBeUnderWay(at now: ContinuousClock.Instant, pace: Pace) -> Bool {
            lock.withLock {
                if let until = underWayUntil { return now < until }
                guard cursor < recorded.count else { return false }
                let from = recorded[cursor].time - MotionFeed.underWaySeconds
                let to = recorded[cursor].time + seconds(pace.batchInterval) * pace.speed
                var index = cursor
                while index > 0, recorded[index - 1].time >= from { index -= 1 }
                while index < recorded.count, recorded[index].time < to {
                    if MotionFeed.isStrong(recorded[index]) { return true }
                    index += 1
                }
                return false
            }
        }

        /// How many batches may be handed out now.
        func batchesLeft(at now: ContinuousClock.Instant, pace: Pace) -> Double {
            lock.withLock {
                let refilled = batches.map { $0.left + seconds($0.at.duration(to: now)) * pace.batchesPerSecond }
                let left = min(pace.batchBurst, refilled ?? pace.batchBurst)
                batches = (left, now)
                return left
            }
        }

        /// Counts a batch handed out.
        func spendBatch() { lock.withLock { batches?.left -= 1 } }

        func arrive(_ sample: MotionSample, at instant: ContinuousClock.Instant) {
            lock.withLock {
                if MotionFeed.isStrong(sample) { underWayUntil = instant + .seconds(MotionFeed.underWaySeconds) }
                arrived.append((sample, instant))
                // Motion nobody asked for is out of turn: the oldest goes first.
                if arrived.count > MotionFeed.liveBacklog { arrived.removeFirst(arrived.count - MotionFeed.liveBacklog) }
            }
        }

        func end() { lock.withLock { ended = true } }

        func takeLive(since start: ContinuousClock.Instant, pace: Pace) -> Taken {
            lock.withLock {
                keepBefore(start)
                guard !arrived.isEmpty else { return ended ? .ended : .none }
                // A sensor streams at its rate; what came at once (a node that was blocked, a pipe
                // written in a burst) goes out at the pace's most rate, however often it is asked.
                let now = ContinuousClock.now
                let due = lastTaken.map { max(1, Int(pace.maximumRate * seconds($0.duration(to: now)))) }
                let count = min(arrived.count, pace.samplesPerBatch, due ?? pace.samplesPerBatch)
                lastTaken = now
                defer { arrived.removeFirst(count) }
                return .samples(arrived.prefix(count).map(\.sample))
            }
        }

        /// Moves the samples that arrived before `start` (out of turn: never handed out) to
        /// `before`, where a hold's lead-in is looked for; a few seconds of them at most.
        private func keepBefore(_ start: ContinuousClock.Instant) {
            let early = arrived.prefix { $0.at < start }
            guard !early.isEmpty else { return }
            before += early
            arrived.removeFirst(early.count)
            if before.count > MotionFeed.liveBacklog { before.removeFirst(before.count - MotionFeed.liveBacklog) }
        }

        func samples(before start: ContinuousClock.Instant, seconds: Double, pace: Pace) -> [MotionSample] {
            lock.withLock {
                keepBefore(start)
                let since = start - .seconds(seconds)
                // Thinned to the pace's most rate, as a recording is.
                var kept: [MotionSample] = []
                for (sample, at) in before where at >= since && at < start {
                    if let last = kept.last, sample.time - last.time < 0.95 / pace.maximumRate { continue }
                    kept.append(sample)
                }
                return kept
            }
        }

        func takeRecorded(pace: Pace, over interval: Duration) -> Taken {
            lock.withLock {
                guard cursor < recorded.count else { return .ended }
                let until = recorded[cursor].time + seconds(interval) * pace.speed
                // A shade under the interval at the rate: a recording made at exactly that rate,
                // with jitter, is not thinned.
                let closest = 0.95 / pace.maximumRate
                var batch: [MotionSample] = []
                while cursor < recorded.count, batch.count < pace.samplesPerBatch, recorded[cursor].time < until {
                    let sample = recorded[cursor]
                    cursor += 1
                    if let last = lastHanded, sample.time - last < closest { continue }
                    lastHanded = sample.time
                    batch.append(sample)
                }
                return batch.isEmpty ? .none : .samples(batch)
            }
        }
    }

    /// The failure, written by the reading thread and read by any.
    private final class FailureBox: @unchecked Sendable {
        private let lock = NSLock()
        private var error: (any Error)?
        func set(_ error: any Error) { lock.withLock { self.error = error } }
        func get() -> (any Error)? { lock.withLock { error } }
    }
}

extension MotionFeed {
    /// Whether `sample` reads far enough from 1 g that a punch may be under way.
    static func isStrong(_ sample: MotionSample) -> Bool {
        abs(sample.acceleration.length - 1) > underWayDeparture
    }
}

/// A duration in seconds.
private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
