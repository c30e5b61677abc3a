import InputDevices
import PunchKit

// MARK: - SampleSource

/// Anything that yields accelerometer samples in order: a trace file, standard input, or a
/// motion sensor's frames (an evdev or joystick node, a pipe of raw events, an evemu recording).
///
/// Every consumer of punches reads its source through ``punches(configuration:seeing:found:)``,
/// the one loop that feeds a detector.
public protocol SampleSource {
    /// Hands every sample to `body` in order, until the source ends.
    /// - Throws: what the source throws when it cannot be read or is malformed; what `body` throws.
    mutating func forEachSample(_ body: (MotionSample) throws -> Void) throws
}

// MARK: - The pump

extension SampleSource {
    /// Feeds every sample through one detector and hands each punch to `found` as soon as it is
    /// decided, with the punch still waiting at the end of the stream last. When the source
    /// fails, the punch still waiting is not decided: the motion after it is unknown.
    ///
    /// - Parameters:
    ///   - configuration: the detector's thresholds.
    ///   - seeing: called with each sample before the detector takes it (to count samples, or
    ///     to note when it arrived).
    ///   - found: called with each punch.
    public mutating func punches(
        configuration: DetectorConfiguration = DetectorConfiguration(),
        seeing: (MotionSample) throws -> Void = { _ in },
        found: (Punch) throws -> Void
    ) throws {
        var detector = PunchDetector(configuration: configuration)
        try forEachSample { sample in
            try seeing(sample)
            try detector.process(sample, found: found)
        }
        if let punch = detector.finish() { try found(punch) }
    }
}

// MARK: - Frames as samples

/// The samples of a motion sensor's frames. A read interrupted by a signal (Ctrl-C on a
/// `listen`) ends the stream, as the sensor's end would, and so does `isStopped` turning true.
public struct FrameSamples: SampleSource {
    /// The frames' source.
    public private(set) var frames: any MotionFrameSource
    private let isStopped: () -> Bool

    /// Reads the samples of `frames`, until they end or `isStopped` (asked before each frame)
    /// says to stop: a signal that came between two reads interrupts neither.
    public init(_ frames: any MotionFrameSource, until isStopped: @escaping () -> Bool = { false }) {
        self.frames = frames
        self.isStopped = isStopped
    }

    public mutating func forEachSample(_ body: (MotionSample) throws -> Void) throws {
        do {
            while !isStopped(), let frame = try frames.nextFrame() { try body(MotionSample(frame)) }
        } catch InputDeviceError.interrupted {
            return
        }
    }
}

extension MotionSample {
    /// The detector's view of a frame: its time, acceleration and, where the device has a
    /// gyroscope, rotation rate (the frame's degrees per second in radians per second).
    public init(_ frame: MotionFrame) {
        let radiansPerDegree = Double.pi / 180
        self.init(
            time: frame.time,
            acceleration: Vector3(frame.acceleration.x, frame.acceleration.y, frame.acceleration.z),
            rotationRate: frame.rotation.map {
                Vector3($0.x * radiansPerDegree, $0.y * radiansPerDegree, $0.z * radiansPerDegree)
            })
    }
}
