import FightProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing

// MARK: - The built binary

/// `hitthat`, built next to the test bundle (this target depends on it).
let hitthatBinary: URL = {
    let candidates = [
        Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
    ]
    let directory =
        candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("hitthat").path) }
        ?? candidates[0]
    return directory.appendingPathComponent("hitthat")
}()

/// `hitthat-load`, built beside `hitthat`.
let hitthatLoadBinary = hitthatBinary.deletingLastPathComponent().appendingPathComponent("hitthat-load")

/// The package's root, where `traces/` lives.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

// MARK: - RunningCommand

/// A `hitthat` process the test talks to: lines in on standard input, lines out of standard
/// output and standard error, kept until the test looks.
final class RunningCommand: Sendable {
    let process: Process
    private let input: FileHandle
    private let outputLines = LineBuffer()
    private let errorLines = LineBuffer()

    /// Lines read so far, shared with the thread that reads them.
    private final class LineBuffer: Sendable {
        private let state = NIOLockedValueBox<(lines: [String], ended: Bool)>(([], false))
        func append(_ line: String) { state.withLockedValue { $0.lines.append(line) } }
        /// The reader met the end of the pipe: every line the process wrote is in.
        func end() { state.withLockedValue { $0.ended = true } }
        var all: [String] { state.withLockedValue { $0.lines } }
        var ended: Bool { state.withLockedValue { $0.ended } }
    }

    init(_ arguments: [String], executable: URL = hitthatBinary, environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        self.process = process
        input = stdin.fileHandleForWriting
        Self.collect(stdout.fileHandleForReading, into: outputLines)
        Self.collect(stderr.fileHandleForReading, into: errorLines)
        try process.run()
    }

    private static func collect(_ handle: FileHandle, into lines: LineBuffer) {
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lines.append(line)
                }
            }
            lines.end()
        }
    }

    /// Writes a line to the process's standard input.
    func send(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    /// Closes its standard input.
    func endInput() {
        try? input.close()
    }

    var output: [String] { outputLines.all }
    var errorOutput: [String] { errorLines.all }

    /// Waits (up to `seconds`: a guard against hanging, not a speed check) until `matches` holds for
    /// the output so far.
    @discardableResult
    func wait<T>(
        _ what: String, seconds: Double = 30, for matches: (_ output: [String], _ error: [String]) -> T?
    ) async throws -> T {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let found = matches(output, errorOutput) { return found }
            try await Task.sleep(for: .milliseconds(20))
        }
        // A last look: on a loaded machine the sleep can outlast the deadline.
        if let found = matches(output, errorOutput) { return found }
        throw TestFailure(
            "timed out waiting for \(what); output: \(output.suffix(5)); errors: \(errorOutput.suffix(5))")
    }

    /// Waits for the process to exit and its output to be read to the end, and returns its status.
    ///
    /// The exit alone is not enough: the lines come from reader threads, which on a busy machine can
    /// still be behind the process when it ends, so `output` could then be empty or cut short.
    func exitStatus(seconds: Double = 60) async throws -> Int32 {
        try await wait("exit", seconds: seconds) { _, _ in
            !process.isRunning && outputLines.ended && errorLines.ended ? true : nil
        }
        return process.terminationStatus
    }

    /// Sends `signal` and waits for the end; nothing if the command has already ended (so that a
    /// `defer` can stop what a failed test left running).
    func kill(_ signal: Int32) {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    /// The server messages among the output lines.
    var messages: [ServerMessage] {
        output.compactMap { try? MessageCodec.decodeReply($0) }
    }
}

// MARK: - Tests that take turns

/// The tests that must not run at the same time as one another, whatever suites they are in: one
/// times a person's keys against the power meter (the terminal fight), the others start a browser,
/// which on two cores delays those keys by more than the meter forgives (a jab seen at 34 landed
/// at 17 once). Each waits for the one before it to end.
final class TakingTurns: Sendable {
    static let shared = TakingTurns()
    private let state = NIOLockedValueBox<(busy: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until no other test holds the turn, then holds it.
    func begin() async {
        await withCheckedContinuation { continuation in
            let now = state.withLockedValue { state -> Bool in
                if !state.busy {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Gives the turn to the next test waiting, if any.
    func end() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
