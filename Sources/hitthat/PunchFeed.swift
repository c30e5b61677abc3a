import FightEngine
import FightServer
import Foundation
import InputDevices
import PunchKit

// MARK: - PunchFeed

/// A punch as the fight needs it: kind and damage.
struct DetectedPunch: Sendable {
    var kind: PunchType
    var damage: Int
}

/// Punches detected from a sensor, handed out one at a time as turns come.
///
/// A trace file is a recording: its punches queue up and one is thrown per turn. A live source
/// (standard input, an input device) is the player punching now: a punch detected while nobody
/// waits for one (out of turn) is dropped.
final class PunchFeed: Sendable {
    private let punches: AsyncStream<DetectedPunch>
    private let iterator: IteratorBox

    private init(punches: AsyncStream<DetectedPunch>) {
        self.punches = punches
        iterator = IteratorBox(punches.makeAsyncIterator())
    }

    /// The next punch; `nil` when the sensor has no more.
    func next() async -> DetectedPunch? {
        await iterator.next()
    }

    /// Reads `sensor` (a trace file, `-`, or `/dev/input/eventN`) on a thread of its own.
    static func open(
        _ sensor: String, traceOptions: TraceOptions, detector configuration: DetectorConfiguration
    ) throws -> PunchFeed {
        let live = sensor == "-" || sensor.hasPrefix("/dev/")
        let (stream, continuation) = AsyncStream.makeStream(
            of: DetectedPunch.self, bufferingPolicy: live ? .bufferingNewest(0) : .unbounded)
        @Sendable func yield(_ punch: Punch) {
            guard let kind = PunchType(rawValue: punch.kind.rawValue) else { return }
            continuation.yield(DetectedPunch(kind: kind, damage: min(punch.damage, ProtocolLimits.maxDamage)))
        }
        if sensor.hasPrefix("/dev/") {
            // Only the reading thread touches the reader once it is open.
            nonisolated(unsafe) var source = try EvdevNode.open(sensor).motionReader()
            Thread.detachNewThread {
                var detector = PunchDetector(configuration: configuration)
                while let frame = try? source.nextFrame() {
                    let acceleration = Vector3(frame.acceleration.x, frame.acceleration.y, frame.acceleration.z)
                    if let punch = detector.process(MotionSample(time: frame.time, acceleration: acceleration)) {
                        yield(punch)
                    }
                }
                continuation.finish()
            }
        } else {
            Thread.detachNewThread {
                var detector = PunchDetector(configuration: configuration)
                // readTrace prints what is wrong with a malformed trace; the feed then just ends.
                _ = try? readTrace(sensor, options: traceOptions) { sample in
                    if let punch = detector.process(sample) { yield(punch) }
                }
                if let punch = detector.finish() { yield(punch) }
                continuation.finish()
            }
        }
        return PunchFeed(punches: stream)
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
