import ArgumentParser
import Dispatch
import Foundation
import PunchKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Exit statuses

extension ExitCode {
    /// `EX_DATAERR` from sysexits.h: the input was malformed or could not be read.
    static let dataError = ExitCode(65)
}

/// A failure already explained to the user on standard error; carries the exit status.
struct Reported: Error {
    var status: ExitCode
}

/// Writes a line to standard error.
func printError(_ message: String) {
    writeLine(message, to: STDERR_FILENO)
}

/// Writes a line straight to a file descriptor, unbuffered, so that it is out when this returns.
func writeLine(_ text: String, to descriptor: Int32) {
    writeAll(text + "\n", to: descriptor)
}

/// Writes `text` straight to a file descriptor, unbuffered, retrying short and interrupted writes.
func writeAll(_ text: String, to descriptor: Int32) {
    var line = text
    line.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

// MARK: - Reading traces

/// A trace that cannot be opened or read, or is malformed. `description` says where and why
/// (`path: cannot open: …`, `path:line:column: expected …, found …`); its exit status is 65.
struct TraceInputError: Error, CustomStringConvertible {
    var description: String
}

/// Reads a trace file (or standard input for `-`) in chunks and hands each sample to `body`,
/// so that memory stays flat however long the trace is.
///
/// - Returns: what the reader found out about the trace.
/// - Throws: `Reported` after printing the reason, for a missing file or malformed data.
func readTrace(
    _ path: String, options: TraceOptions, _ body: (MotionSample) throws -> Void
) throws -> TraceSummary {
    do {
        let descriptor = try openTrace(path)
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        return try readTrace(from: descriptor, path: path, options: options, body)
    } catch let error as TraceInputError {
        printError("\(error)")
        throw Reported(status: .dataError)
    }
}

/// Opens the trace at `path` for `readTrace(from:path:options:_:)`: standard input for `-`.
func openTrace(_ path: String) throws(TraceInputError) -> Int32 {
    let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
        throw TraceInputError(description: "\(path): cannot open: \(String(cString: strerror(errno)))")
    }
    return descriptor
}

/// Reads the trace open on `descriptor` (named `path`) as `readTrace(_:options:_:)` does, leaving
/// the descriptor open and printing nothing.
///
/// - Throws: `TraceInputError` for a read that fails or malformed data; what `body` throws.
func readTrace(
    from descriptor: Int32, path: String, options: TraceOptions, _ body: (MotionSample) throws -> Void
) throws -> TraceSummary {
    var reader = TraceReader(source: path, format: options.format, units: options.units, lenient: options.lenient)
    // A file is read in large chunks, half of each on a second core; its first chunk is small,
    // since the header and the rows that decide the units are read in order anyway. A pipe is
    // read as it comes, so that each punch is out as soon as the sample that decides it is in.
    let inHalves = isRegularFile(path) && sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: inHalves ? 1 << 22 : 1 << 16, alignment: 16)
    defer { buffer.deallocate() }
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
                try reader.feed(chunk, inBackground: inBackground, body)
            } else {
                try reader.feed(chunk, body)
            }
        }
        try reader.finish(body)
    } catch let error as TraceError {
        throw TraceInputError(description: "\(error)")
    }
    return reader.summary
}

/// Reads a labels file (`start,end,type`), as `evaluate` and `plot` take them.
///
/// - Throws: `Reported` after printing the reason, for a missing file or a malformed line.
func readLabels(_ path: String) throws -> [PunchLabel] {
    guard let data = FileManager.default.contents(atPath: path) else {
        printError("\(path): cannot open")
        throw Reported(status: .dataError)
    }
    do {
        return try PunchLabel.parseLabels(String(decoding: data, as: UTF8.self), source: path)
    } catch let error as TraceError {
        printError("\(error)")
        throw Reported(status: .dataError)
    }
}

/// Starts `job` on another thread; the function returned waits for it to end (at once, once it has).
func inBackground(_ job: @escaping @Sendable () -> Void) -> () -> Void {
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group, execute: job)
    return { group.wait() }
}

/// Whether `path` (or standard input for `-`) is a regular file, that is, a recording.
func isRegularFile(_ path: String) -> Bool {
    var status = stat()
    let found = path == "-" ? fstat(STDIN_FILENO, &status) : stat(path, &status)
    return found == 0 && (status.st_mode & S_IFMT) == S_IFREG
}

/// Runs a command body, turning `Reported` failures into their exit status.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as Reported {
        throw failure.status
    }
}
