import Foundation
import Testing

// MARK: - Running the built binary

/// What a run of `hitthat` produced.
struct CommandResult {
    var status: Int32
    var output: String
    var error: String
}

/// The directory the test bundle and the `hitthat` executable were built into.
let productsDirectory: URL = {
    let candidates = [
        Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("hitthat").path) }
        ?? candidates[0]
}()

/// The package's root, where `traces/` lives.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Runs `hitthat` (or `executable`, another of the package's) with `arguments`, feeding `input`
/// to its standard input.
func hitthat(_ arguments: [String], input: Data? = nil, executable: String = "hitthat") throws -> CommandResult {
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent(executable)
    process.arguments = arguments
    process.currentDirectoryURL = packageRoot
    let output = Pipe()
    let error = Pipe()
    let standardInput = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = standardInput
    try process.run()
    // Read both pipes while the process runs, so a full pipe never blocks it.
    let group = DispatchGroup()
    nonisolated(unsafe) var outputData = Data()
    nonisolated(unsafe) var errorData = Data()
    DispatchQueue.global().async(group: group) { outputData = output.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: group) { errorData = error.fileHandleForReading.readDataToEndOfFile() }
    if let input { standardInput.fileHandleForWriting.write(input) }
    try standardInput.fileHandleForWriting.close()
    process.waitUntilExit()
    group.wait()
    return CommandResult(
        status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
        error: String(decoding: errorData, as: UTF8.self))
}

/// Sends Ctrl-C to `process` and waits for it to end. A watchdog kills it after 30 s, so that a
/// process that does not stop on Ctrl-C fails the test (killed, not exited) rather than hanging it.
func interruptAndWait(_ process: Process) {
    process.interrupt()
    let watchdog = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
    process.waitUntilExit()
    watchdog.cancel()
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hitthat-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The JSON objects of a JSON-lines output.
func jsonLines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}
