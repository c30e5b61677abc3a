import PunchKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - SampleSpan

/// How many samples a stream has given, and the times of the first and the last.
public struct SampleSpan: Hashable, Sendable {
    /// The samples seen.
    public private(set) var count = 0
    /// The first sample's time, in seconds; 0 before the first.
    public private(set) var first = 0.0
    /// The last sample's time, in seconds; 0 before the first.
    public private(set) var last = 0.0

    /// An empty span.
    public init() {}

    /// Counts a sample at `time`.
    public mutating func see(_ time: Double) {
        if count == 0 { first = time }
        last = time
        count += 1
    }

    /// The mean rate, in Hz, or nil with fewer than two samples or no time between them.
    public var rate: Double? {
        count > 1 && last > first ? Double(count - 1) / (last - first) : nil
    }
}

// MARK: - RotationStream

/// An export's gyroscope file, read a chunk at a time as its samples are asked for, so that it
/// keeps pace with the acceleration it is read beside and memory stays flat.
final class RotationStream {
    let path: String
    private(set) var reader: TraceReader
    private(set) var span = SampleSpan()
    private let descriptor: Int32
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    /// Samples read and not yet asked for, from `nextIndex` on.
    private var queue: [MotionSample] = []
    private var nextIndex = 0
    private var isAtEnd = false

    /// Opens the gyroscope's file at `path`.
    init(path: String, lenient: Bool) throws(TraceInputError) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TraceInputError(
                description: "\(path): cannot open: \(String(cString: strerror(errno)))", cause: .cannotOpen)
        }
        self.path = path
        reader = TraceReader(source: path, lenient: lenient, sensor: .gyroscope, sharedClock: true)
    }

    deinit { close(descriptor) }

    /// The next sample, or nil at the end of the file.
    /// - Throws: ``TraceInputError`` for a read that fails or malformed data.
    func next() throws(TraceInputError) -> MotionSample? {
        while nextIndex == queue.count {
            guard !isAtEnd else { return nil }
            queue.removeAll(keepingCapacity: true)
            nextIndex = 0
            try refill()
        }
        defer { nextIndex += 1 }
        span.see(queue[nextIndex].time)
        return queue[nextIndex]
    }

    /// Reads the next chunk into the queue (it may give no sample: a header, held rows).
    private func refill() throws(TraceInputError) {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        do {
            if count < 0 {
                if errno == EINTR { return }
                throw TraceInputError(description: "\(path): cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 {
                isAtEnd = true
                try reader.finish { queue.append($0) }
            } else {
                try chunk.withUnsafeBytes { bytes in
                    try reader.feed(UnsafeRawBufferPointer(rebasing: bytes[..<count])) { queue.append($0) }
                }
            }
        } catch let error as TraceInputError {
            throw error
        } catch {
            throw TraceInputError(description: "\(error)")
        }
    }
}

// MARK: - RotationAlignment

/// The gyroscope's rate at each acceleration sample's time: interpolated between the two
/// gyroscope samples either side of it, each sensor having its own times.
struct RotationAlignment {
    /// The widest gap between two gyroscope samples that is interpolated across, and how far
    /// before the first or after the last sample its rate is still taken, in seconds: a sensor
    /// that stopped for longer tells nothing of the turn in between.
    static let longestGap = 0.25
    static let nearestEnd = 0.05

    private let stream: RotationStream
    private var before: MotionSample?
    private var after: MotionSample?
    private var isStarted = false

    init(stream: RotationStream) {
        self.stream = stream
    }

    /// The rotation rate at `time`, or nil where the gyroscope has none (before it began, after
    /// it ended, or in a gap). Times must not decrease from call to call.
    mutating func rate(at time: Double) throws(TraceInputError) -> Vector3? {
        if !isStarted {
            isStarted = true
            after = try stream.next()
        }
        while let next = after, next.time < time {
            before = next
            after = try stream.next()
        }
        switch (before, after) {
        case (let before?, let after?):
            guard after.time - before.time <= Self.longestGap, let from = before.rotationRate,
                let to = after.rotationRate
            else { return nil }
            let share = after.time > before.time ? (time - before.time) / (after.time - before.time) : 0
            return from + (to - from) * share
        case (nil, let after?):
            return after.time - time <= Self.nearestEnd ? after.rotationRate : nil
        case (let before?, nil):
            return time - before.time <= Self.nearestEnd ? before.rotationRate : nil
        case (nil, nil):
            return nil
        }
    }
}
