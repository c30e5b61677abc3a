import ArgumentParser
import Foundation
import InputDevices
import MotionInput
import PunchKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Exit statuses

extension ExitCode {
    /// `EX_DATAERR` from sysexits.h: the input was malformed or could not be read.
    package static let dataError = ExitCode(65)
    /// `EX_NOINPUT` from sysexits.h: an input file did not exist or could not be opened.
    package static let noInput = ExitCode(66)
    /// `EX_CANTCREAT` from sysexits.h: an output file could not be created.
    package static let cannotCreate = ExitCode(73)
    /// `EX_UNAVAILABLE` from sysexits.h: a service cannot start (its port is taken).
    package static let unavailable = ExitCode(69)
    /// `EX_IOERR` from sysexits.h: reading a device failed (it was unplugged, or the system said no).
    package static let ioError = ExitCode(74)
    /// `EX_NOPERM` from sysexits.h: this user may not open the input.
    package static let noPermission = ExitCode(77)

    /// The status for a device that cannot be opened or read: one code per cause, as for files.
    package static func status(for error: InputDeviceError) -> ExitCode {
        switch error {
        case .notFound: .noInput
        case .permissionDenied: .noPermission
        case .notAnInputDevice: .dataError
        case .unplugged, .interrupted, .system: .ioError
        }
    }
}

/// A failure already explained to the user on standard error; carries the exit status.
package struct Reported: Error {
    package var status: ExitCode

    package init(status: ExitCode) { self.status = status }
}

/// Writes a line to standard error.
package func printError(_ message: String) {
    writeLine(message, to: STDERR_FILENO)
}

/// Writes a line straight to a file descriptor, unbuffered, so that it is out when this returns.
package func writeLine(_ text: String, to descriptor: Int32) {
    writeAll(text + "\n", to: descriptor)
}

/// Writes `text` straight to a file descriptor, unbuffered, retrying short and interrupted writes.
package func writeAll(_ text: String, to descriptor: Int32) {
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

/// Opens the trace at `path` (standard input for `-`) as the options say.
/// - Throws: `Reported` after printing the reason, when it cannot be opened.
package func openTrace(_ path: String, options: TraceOptions) throws -> TraceFile {
    try reportingTraceErrors {
        try TraceFile(path: path, settings: options.settings)
    }
}

/// Runs `body`, which reads a trace: a trace that cannot be read or is malformed is said on
/// standard error and ends the command with exit status 65, or 66 when it could not be opened.
package func reportingTraceErrors<Result>(_ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let error as TraceInputError {
        printError("\(error)")
        throw Reported(status: error.cause == .cannotOpen ? .noInput : .dataError)
    }
}

/// Reads a labels file (`start,end,type`), as `evaluate` and `plot` take them.
///
/// - Throws: `Reported` after printing the reason, for a missing file or a malformed line.
package func readLabels(_ path: String) throws -> [PunchLabel] {
    guard let data = FileManager.default.contents(atPath: path) else {
        printError("\(path): cannot open")
        throw Reported(status: .noInput)
    }
    do {
        return try PunchLabel.parseLabels(String(decoding: data, as: UTF8.self), source: path)
    } catch let error as TraceError {
        printError("\(error)")
        throw Reported(status: .dataError)
    }
}

/// Runs a command body, turning `Reported` failures into their exit status.
package func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as Reported {
        throw failure.status
    }
}
