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

@Suite struct PunchFeedTests {
    /// The samples of the session up to just before `time`, and from then on.
    func split(at time: Double) -> ([MotionSample], [MotionSample]) {
        (session.filter { $0.time < time }, session.filter { $0.time >= time })
    }

    /// A recording hands out every punch, in order, whenever they are asked for.
    @Test func aRecordingHandsOutEveryPunchInOrder() async throws {
        let feed = try PunchFeed(recording: FrameSamples(ListedFrames(frames: frames(session))), configuration: .init())
        #expect(!feed.isLive)
        var times: [Double] = []
        while let detected = await feed.next(since: .now) { times.append(detected.punch.time) }
        #expect(times == punchesFed(session).map(\.time))
        #expect(await feed.stopped() == nil)
    }

    /// A recording that cannot be read fails when the feed is made, not later.
    @Test func aBrokenRecordingFailsAtOnce() {
        #expect(throws: Unplugged.self) {
            _ = try PunchFeed(
                recording: FrameSamples(ListedFrames(frames: frames(session), failure: Unplugged())),
                configuration: .init())
        }
    }

    /// A live source is the player punching now: a punch detected before the moment asked for
    /// (thrown out of turn) is dropped, the next one is handed out.
    @Test func aLiveSourceDropsPunchesFromBeforeTheTurn() async throws {
        let expected = punchesFed(session)
        try #require(expected.count >= 3)
        let gated = GatedSamples()
        let feed = PunchFeed(live: gated, configuration: .init())
        #expect(feed.isLive)
        // The first two punches are decided before the turn begins, the third after it.
        let (early, rest) = split(at: expected[1].decidedAt + 0.01)
        gated.release(early)
        await gated.batchRead()
        let turn = ContinuousClock.now
        gated.release(rest.filter { $0.time < expected[2].decidedAt + 0.01 })
        let first = await feed.next(since: turn)
        #expect(first?.punch.time == expected[2].time)
        gated.end()
        #expect(await feed.stopped() == nil)
    }

    /// A live source that fails says why, to whoever waits for it to stop and afterwards.
    @Test func aLiveSourceThatFailsSaysWhy() async throws {
        let gated = GatedSamples(failure: Unplugged())
        let feed = PunchFeed(live: gated, configuration: .init())
        gated.release(Array(session.prefix(100)))
        gated.end()
        let stopped = await feed.stopped()
        #expect(stopped is Unplugged)
        #expect(feed.failure is Unplugged)
        #expect(await feed.next(since: .now) == nil)
    }
}
