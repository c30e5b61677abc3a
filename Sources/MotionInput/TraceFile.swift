import Dispatch
import PunchKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - TraceFile

/// A trace (CSV in any format `TraceReader` reads) in a file or on standard input, read in
/// chunks so that memory stays flat however long it is.
///
/// A regular file is read in large chunks, half of each on a second core; a pipe as it comes,
/// so that each punch is out as soon as the sample that decides it is in.
public final class TraceFile: SampleSource {
    /// The path, or `-` for standard input.
    public let path: String
    /// Whether the trace is a file on disk (a recording) rather than a pipe or a terminal.
    public let isRecording: Bool
    /// What the reader has found out about the trace so far; complete once it has been read.
    public private(set) var summary: TraceSummary

    private let descriptor: Int32
    private var reader: TraceReader

    /// Opens the trace at `path` (standard input for `-`).
    /// - Parameters:
    ///   - format: the format to read, or nil to recognise it from the header.
    ///   - units: the acceleration's unit, or nil to take it from the header, format or data.
    ///   - lenient: whether malformed rows are skipped and counted instead of stopping the read.
    /// - Throws: ``TraceInputError`` when the file cannot be opened.
    public init(
        path: String, format: TraceFormat? = nil, units: AccelerationUnit? = nil, lenient: Bool = false
    ) throws(TraceInputError) {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TraceInputError(description: "\(path): cannot open: \(String(cString: strerror(errno)))")
        }
        isRecording = isRegularFile(path)
        self.path = path
        self.descriptor = descriptor
        reader = TraceReader(source: path, format: format, units: units, lenient: lenient)
        summary = reader.summary
    }

    deinit {
        if descriptor != STDIN_FILENO { close(descriptor) }
    }

    /// Reads the trace to its end.
    /// - Throws: ``TraceInputError`` for a read that fails or malformed data (file, line and
    ///   column); what `body` throws.
    public func forEachSample(_ body: (MotionSample) throws -> Void) throws {
        defer { summary = reader.summary }
        let inHalves = isRecording && sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: inHalves ? 1 << 22 : 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        // The first chunk is small: the header and the rows that decide the units are read in
        // order anyway.
        var chunkSize = 1 << 16
        do {
            while true {
                let count = read(descriptor, buffer.baseAddress, chunkSize)
                if count < 0 {
                    if errno == EINTR { continue }
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
            try reader.finish(body)
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
    /// What went wrong, and where.
    public var description: String

    /// An error that says `description`.
    public init(description: String) {
        self.description = description
    }
}

/// Whether `path` (or standard input for `-`) is a regular file: a recording, read as fast as it
/// can be, rather than a pipe, a device or a terminal, whose samples come as they happen.
public func isRegularFile(_ path: String) -> Bool {
    var status = stat()
    let found = path == "-" ? fstat(STDIN_FILENO, &status) : stat(path, &status)
    return found == 0 && (status.st_mode & S_IFMT) == S_IFREG
}
