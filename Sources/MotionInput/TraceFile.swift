import Dispatch
import PunchKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - TraceFile

/// A trace (CSV in any format `TraceReader` reads) in a file or on standard input, or a
/// recording as its app exports it (a folder or a `.zip`: see ``MotionExport``), read in chunks
/// so that memory stays flat however long it is.
///
/// A regular file is read in large chunks, most of each on a second core; a pipe as it comes,
/// so that each punch is out as soon as the sample that decides it is in. An export's gyroscope
/// is read alongside its acceleration, a chunk at a time, and its rotation rate interpolated to
/// each acceleration sample's time.
public final class TraceFile: SampleSource {
    /// The path, or `-` for standard input.
    public let path: String
    /// Whether the trace is a file on disk (a recording) rather than a pipe or a terminal.
    public let isRecording: Bool
    /// What the reader has found out about the trace (an export's acceleration) so far;
    /// complete once it has been read.
    public private(set) var summary: TraceSummary
    /// The files an export's sensors were read from; nil for a single file.
    public let export: MotionExport?
    /// The acceleration's samples so far: how many, and the first and last times.
    public private(set) var accelerationSpan = SampleSpan()
    /// An export's gyroscope: what its reader found out and the span of its samples so far;
    /// nil where there is none.
    public var rotation: (summary: TraceSummary, span: SampleSpan)? {
        rotationStream.map { ($0.reader.summary, $0.span) }
    }

    private let descriptor: Int32
    private var reader: TraceReader
    private let rotationStream: RotationStream?
    /// Asked when a read is interrupted by a signal: true ends the stream there, as its end
    /// would (the punch still waiting is decided), so that Ctrl-C on a pipe still gives a summary.
    public var stopsOnInterrupt: (@Sendable () -> Bool)?

    /// Opens the trace at `path` (standard input for `-`).
    /// - Parameters:
    ///   - format: the format to read, or nil to recognise it from the header.
    ///   - units: the acceleration's unit, or nil to take it from the header, format or data.
    ///   - lenient: whether malformed rows are skipped and counted instead of stopping the read.
    /// - Throws: ``TraceInputError`` when the file cannot be opened.
    public init(
        path: String, format: TraceFormat? = nil, units: AccelerationUnit? = nil, lenient: Bool = false
    ) throws(TraceInputError) {
        let export = MotionExport.isExport(path) ? try MotionExport(path: path) : nil
        let file = export?.acceleration ?? path
        let descriptor = path == "-" ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            export?.removeTemporaryFiles()
            throw TraceInputError(
                description: "\(file): cannot open: \(String(cString: strerror(errno)))", cause: .cannotOpen)
        }
        isRecording = isRegularFile(file)
        self.path = path
        self.export = export
        self.descriptor = descriptor
        // The files of one export share a clock only where it is read from a column they share.
        reader = TraceReader(
            source: file, format: export == nil ? format : nil, units: units, lenient: lenient,
            sharedClock: export != nil)
        summary = reader.summary
        do {
            rotationStream = try export?.gyroscope.map { gyroscope throws(TraceInputError) in
                let stream = try RotationStream(path: gyroscope, lenient: lenient)
                try Self.checkOverlap(acceleration: file, gyroscope: stream)
                return stream
            }
        } catch {
            close(descriptor)
            export?.removeTemporaryFiles()
            throw error
        }
    }

    deinit {
        if descriptor != STDIN_FILENO { close(descriptor) }
        export?.removeTemporaryFiles()
    }

    /// Refuses an export whose acceleration and gyroscope were recorded at different times.
    private static func checkOverlap(
        acceleration: String, gyroscope: RotationStream
    ) throws(TraceInputError) {
        guard let moving = try timeRange(of: acceleration, sensor: .accelerometer),
            let turning = try timeRange(of: gyroscope.path, sensor: .gyroscope)
        else { return }
        guard moving.first <= turning.last && turning.first <= moving.last else {
            func seconds(_ range: (first: Double, last: Double)) -> String {
                "\((range.first * 100).rounded() / 100)–\((range.last * 100).rounded() / 100) s"
            }
            throw TraceInputError(
                description: "\(acceleration) (\(seconds(moving))) and \(gyroscope.path) (\(seconds(turning))): "
                    + "expected a gyroscope recorded over the same time as the acceleration; these do not overlap")
        }
    }

    /// The times of a file's first and last samples, from its first rows and its last line; nil
    /// for a file with no rows.
    static func timeRange(
        of path: String, sensor: MotionSensor
    ) throws(TraceInputError) -> (first: Double, last: Double)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TraceInputError(
                description: "\(path): cannot open: \(String(cString: strerror(errno)))", cause: .cannotOpen)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        let headLength = min(size, 1 << 16)
        var head = [UInt8](repeating: 0, count: headLength)
        var tail = [UInt8](repeating: 0, count: min(size, 1 << 12))
        guard pread(descriptor, &head, headLength, 0) == headLength,
            pread(descriptor, &tail, tail.count, off_t(size - tail.count)) == tail.count
        else { return nil }
        // The head up to its last whole line, then the tail's last line.
        head = Array(head[...(head.lastIndex(of: UInt8(ascii: "\n")) ?? head.count - 1)])
        while let last = tail.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { tail.removeLast() }
        let lastLine = Array(tail[(tail.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0)...]) + [UInt8(ascii: "\n")]
        // Leniently: a broken row here is the full read's to report, where it is.
        var reader = TraceReader(source: path, lenient: true, sensor: sensor, sharedClock: true)
        var first: Double?
        var last: Double?
        do {
            let take: (MotionSample) -> Void = { sample in
                if first == nil { first = sample.time }
                last = sample.time
            }
            try head.withUnsafeBytes { try reader.feed($0, take) }
            if size > headLength { try lastLine.withUnsafeBytes { try reader.feed($0, take) } }
            try reader.finish(take)
        } catch {
            throw TraceInputError(description: "\(error)")
        }
        guard let first, let last else { return nil }
        return (first, last)
    }

    /// Reads the trace to its end.
    /// - Throws: ``TraceInputError`` for a read that fails or malformed data (file, line and
    ///   column); what `body` throws.
    public func forEachSample(_ body: (MotionSample) throws -> Void) throws {
        defer { summary = reader.summary }
        if let rotationStream {
            var aligned = RotationAlignment(stream: rotationStream)
            try readAcceleration { sample in
                var sample = sample
                sample.rotationRate = try aligned.rate(at: sample.time)
                accelerationSpan.see(sample.time)
                try body(sample)
            }
        } else {
            try readAcceleration { sample in
                accelerationSpan.see(sample.time)
                try body(sample)
            }
        }
    }

    /// Reads the acceleration's file to its end.
    private func readAcceleration(_ body: (MotionSample) throws -> Void) throws {
        let inHalves = isRecording && sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: inHalves ? 1 << 22 : 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        // The first chunk is small: the header and the rows that decide the units are read in
        // order anyway.
        var chunkSize = 1 << 16
        var stopped = false
        do {
            while true {
                // A signal that came while the last chunk was being read interrupted no read.
                stopped = stopsOnInterrupt?() == true
                if stopped { break }
                let count = read(descriptor, buffer.baseAddress, chunkSize)
                if count < 0 {
                    if errno == EINTR {
                        stopped = stopsOnInterrupt?() == true
                        if stopped { break }
                        continue
                    }
                    throw TraceInputError(description: "\(path): cannot read: \(String(cString: strerror(errno)))")
                }
                if count == 0 { break }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                chunkSize = buffer.count
                if inHalves {
                    try reader.feed(chunk, inBackground: Self.inBackground, body)
                } else {
                    try reader.feed(chunk, body)
                }
            }
            try reader.finish(droppingUnfinishedLine: stopped, body)
        } catch let error as TraceError {
            throw TraceInputError(description: "\(error)")
        }
    }

    /// Starts `job` on another thread; the function returned waits for it to end (at once, once
    /// it has).
    private static func inBackground(_ job: @escaping @Sendable () -> Void) -> () -> Void {
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group, execute: job)
        return { group.wait() }
    }
}

/// A trace that cannot be opened or read, or is malformed. `description` says where and why
/// (`path: cannot open: …`, `path:line:column: expected …, found …`).
public struct TraceInputError: Error, CustomStringConvertible {
    /// Whether the input was not there to read, or was there and could not be read.
    public enum Cause: Sendable {
        /// The file or folder does not exist or cannot be opened (sysexits' EX_NOINPUT).
        case cannotOpen
        /// It was opened, and reading it failed or found malformed data (EX_DATAERR).
        case unreadable
    }

    /// What went wrong, and where.
    public var description: String
    /// Whether the input could not be opened or could not be read.
    public var cause: Cause

    /// An error that says `description`.
    public init(description: String, cause: Cause = .unreadable) {
        self.description = description
        self.cause = cause
    }
}

/// Whether `path` (or standard input for `-`) is a regular file: a recording, read as fast as it
/// can be, rather than a pipe, a device or a terminal, whose samples come as they happen.
public func isRegularFile(_ path: String) -> Bool {
    var status = stat()
    let found = path == "-" ? fstat(STDIN_FILENO, &status) : stat(path, &status)
    return found == 0 && (status.st_mode & S_IFMT) == S_IFREG
}
