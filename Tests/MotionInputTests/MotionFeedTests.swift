import Dispatch
import Foundation
import InputDevices
import MotionInput
import PunchKit
import Testing

/// Samples that arrive as a test lets them: each `release` hands one batch to the reader, which
/// waits for the next as a sensor waits for the player's next move.
final class GatedSamples: SampleSource, @unchecked Sendable {
    private let lock = NSLock()
    private let arrived = DispatchSemaphore(value: 0)
    private let read = DispatchSemaphore(value: 0)
    /// Batches released and not read yet; `nil` marks the end.
    private var batches: [[MotionSample]?] = []
    private let failure: (any Error)?

    init(failure: (any Error)? = nil) {
        self.failure = failure
    }

    func release(_ samples: [MotionSample]) { push(samples) }
    func end() { push(nil) }

    /// Waits until the reader has taken in every sample of the next batch released.
    func batchRead() async {
        await Task.detached { [read] in read.wait() }.value
    }

    private func push(_ batch: [MotionSample]?) {
        lock.withLock { batches.append(batch) }
        arrived.signal()
    }

    func forEachSample(_ body: (MotionSample) throws -> Void) throws {
        // The feed reads a live source on a thread of its own, so it may block here.
        while true {
            arrived.wait()
            guard let batch = lock.withLock({ batches.removeFirst() }) else { break }
            for sample in batch { try body(sample) }
            read.signal()
        }
        if let failure { throw failure }
    }
}

@Suite struct MotionFeedTests {
    /// A pace for tests: no wait to speak of, and no batch or rate limit a session reaches.
    static let fast = MotionFeed.Pace(batchInterval: .milliseconds(1), speed: 100_000, maximumRate: 1_000_000)

    /// The samples of the session up to just before `time`, and from then on.
    func split(at time: Double) -> ([MotionSample], [MotionSample]) {
        (session.filter { $0.time < time }, session.filter { $0.time >= time })
    }

    /// A recording hands out every sample, in order, whenever they are asked for.
    @Test func aRecordingHandsOutEverySampleInOrder() async throws {
        let feed = try MotionFeed(recording: FrameSamples(ListedFrames(frames: frames(session))), pace: Self.fast)
        #expect(!feed.isLive)
        var handed: [MotionSample] = []
        while let samples = await feed.next(since: .now) { handed += samples }
        #expect(handed.map(\.time) == session.map(\.time))
        #expect(await feed.stopped() == nil)
    }

    /// At `play`'s pace a recording goes twice as fast as it was made at most, in batches of 50 ms
    /// of wall time of at most 14 samples (200 a second at 15 batches a second); one made at 400 Hz
    /// is thinned to 200.
    @Test func aRecordingIsPacedAndThinnedToASensorsRate() async throws {
        let fast = (0..<200).map { MotionSample(time: Double($0) / 400, acceleration: Vector3(0, 1, 0)) }
        let feed = try MotionFeed(recording: FrameSamples(ListedFrames(frames: frames(fast))))
        #expect(feed.pace == .standard)
        let started = ContinuousClock.now
        var batches: [[MotionSample]] = []
        while let samples = await feed.next(since: .now) { batches.append(samples) }
        let elapsed = ContinuousClock.now - started
        let times = batches.flatMap { $0 }.map(\.time)
        #expect(batches.allSatisfy { $0.count <= 14 })
        #expect(times.count == 100, "every other sample of 400 Hz")
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 0.0049 })
        // 100 samples at 14 a batch are 8 batches of 50 ms at the least.
        #expect(elapsed >= .milliseconds(400))
    }

    /// While a punch may be under way (a sample far from 1 g), a recording's samples go out every
    /// 10 ms rather than every 50, so that the server sees the stop a blink after it; the batches
    /// stay within 15 a second and bursts of 25, whatever the motion.
    @Test func aSwingGoesOutAsItComesWithinTheMessageLimit() async throws {
        // 1 s at rest, then 2 s of hard motion, at 100 Hz.
        let recording = (0..<300).map { index in
            let t = Double(index) / 100
            return MotionSample(time: t, acceleration: Vector3(t < 1 ? 0.001 * Double(index % 2) : 3, 1, 0))
        }
        let feed = try MotionFeed(recording: FrameSamples(ListedFrames(frames: frames(recording))))
        let started = ContinuousClock.now
        var batches: [[MotionSample]] = []
        while let samples = await feed.next(since: .now) { batches.append(samples) }
        let elapsed = ContinuousClock.now - started
        let atRest = batches.filter { $0.last!.time < 0.69 }
        let moving = batches.filter { $0.first!.time >= 1 }
        // At rest a batch is 50 ms of wall time, 0.1 s of the recording; moving, 10 ms (0.02 s) at first.
        #expect(atRest.allSatisfy { $0.count >= 9 }, "\(atRest.map(\.count))")
        #expect(moving.prefix(10).allSatisfy { $0.count <= 3 }, "\(moving.prefix(10).map(\.count))")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        #expect(Double(batches.count) <= 25 + 15 * seconds + 1)
        #expect(batches.flatMap { $0 }.count == recording.count)
    }

    /// A recording that cannot be read fails when the feed is made, not later.
    @Test func aBrokenRecordingFailsAtOnce() {
        #expect(throws: Unplugged.self) {
            _ = try MotionFeed(recording: FrameSamples(ListedFrames(frames: frames(session), failure: Unplugged())))
        }
    }

    /// A live source is the player moving now: motion that arrived before the moment asked for
    /// (out of turn) is dropped, what came after is handed out, each sample once.
    @Test func aLiveSourceDropsMotionFromBeforeTheTurn() async throws {
        let gated = GatedSamples()
        let feed = MotionFeed(live: gated, pace: Self.fast)
        #expect(feed.isLive)
        let (early, rest) = split(at: session[100].time)
        gated.release(Array(early))
        await gated.batchRead()
        let turn = ContinuousClock.now
        gated.release(Array(rest.prefix(30)))
        await gated.batchRead()
        let first = await feed.next(since: turn)
        #expect(first == Array(rest.prefix(30)))
        // What came before the turn is no motion of the turn's, but its lead-in: up to 2 s of it.
        let lead = feed.samples(before: turn, seconds: 60)
        #expect(lead == early)
        #expect(feed.samples(before: turn, seconds: 0).isEmpty)
        gated.release(Array(rest.dropFirst(30).prefix(100)))
        await gated.batchRead()
        let second = await feed.next(since: turn)
        #expect(second == Array(rest.dropFirst(30).prefix(100)), "none handed out twice")
        gated.end()
        #expect(await feed.stopped() == nil)
    }

    /// A live source that fails says why, to whoever waits for it to stop and afterwards.
    @Test func aLiveSourceThatFailsSaysWhy() async throws {
        let gated = GatedSamples(failure: Unplugged())
        let feed = MotionFeed(live: gated, pace: Self.fast)
        gated.release(Array(session.prefix(100)))
        gated.end()
        let stopped = await feed.stopped()
        #expect(stopped is Unplugged)
        #expect(feed.failure is Unplugged)
        #expect(await feed.next(since: .now) == nil)
    }
}
