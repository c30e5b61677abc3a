import Glibc
import Foundation

// MARK: - Fake nodes

/// One node served by the FUSE fixture (Tests/Fixtures/FakeEvdev/fake_evdev.c): ioctl replies keyed by
/// `_IOC_TYPE-_IOC_NR` in hex, the bytes read(2) returns, and how it ends.
struct FakeNode {
    var name: String
    var replies: [String: [UInt8]] = [:]
    var events: [UInt8] = []
    var unplugAt: Int?
    var denyOpen = false
    var gid: gid_t?

    struct Axis {
        var code: UInt8
        var value: Int32 = 0
        var minimum: Int32
        var maximum: Int32
        var fuzz: Int32 = 0
        var flat: Int32 = 0
        var resolution: Int32 = 0
    }

    /// An evdev node answering EVIOCGNAME, EVIOCGID, EVIOCGPROP, EVIOCGBIT(0/EV_ABS/EV_MSC), EVIOCGABS.
    static func evdev(_ node: String, name: String, id: [UInt16], accelerometer: Bool, axes: [Axis], timestamp: Bool = false,
                      keys: Bool = false, events: [UInt8]) -> FakeNode {
        var types: UInt32 = 1 << 0 // EV_SYN
        if keys { types |= 1 << 1 }
        if !axes.isEmpty { types |= 1 << 3 }
        if timestamp { types |= 1 << 4 }
        var absBits: UInt64 = 0
        var replies: [String: [UInt8]] = [
            "45-06": Array(name.utf8) + [0],
            "45-02": id.flatMap(Bytes.little),
            "45-09": Bytes.little(UInt32(accelerometer ? 1 << 6 : 0)),
            "45-20": Bytes.little(types),
        ]
        for axis in axes {
            absBits |= 1 << UInt64(axis.code)
            replies[String(format: "45-%02x", 0x40 + Int(axis.code))] =
                [axis.value, axis.minimum, axis.maximum, axis.fuzz, axis.flat, axis.resolution].flatMap(Bytes.little)
        }
        if !axes.isEmpty { replies["45-23"] = Bytes.little(absBits) }
        if timestamp { replies["45-24"] = [1 << 5] } // MSC_TIMESTAMP
        return FakeNode(name: node, replies: replies, events: events)
    }

    /// A joydev node answering JSIOCGNAME and JSIOCGAXES.
    static func joystick(_ node: String, name: String, axisCount: UInt8, events: [UInt8]) -> FakeNode {
        FakeNode(name: node, replies: ["6a-13": Array(name.utf8) + [0], "6a-11": [axisCount]], events: events)
    }
}

// MARK: - Fixture process

/// Builds the fixture once per test process, or says why it cannot.
enum FakeEvdev {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The package's root directory, found from this file's path (Tests/InputDevicesTests/Support/…).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let fixtureSource = packageRoot.appendingPathComponent("Tests/Fixtures/FakeEvdev/fake_evdev.c").path

    /// The compiled fixture (in .build/fixtures, rebuilt each test run), or why the FUSE tests are skipped.
    static let binary: Result<String, Unavailable> = {
        guard access("/dev/fuse", R_OK | W_OK) == 0 else {
            return .failure(Unavailable(description: "/dev/fuse is missing or not accessible"))
        }
        let directory = packageRoot.appendingPathComponent(".build/fixtures").path
        let output = directory + "/fake_evdev"
        let command = """
            mkdir -p '\(directory)' && compiler=$(command -v cc || command -v clang) && \
            "$compiler" -std=c11 -D_GNU_SOURCE -O1 -o '\(output)' '\(fixtureSource)' $(pkg-config --cflags --libs fuse3) 2>&1
            """
        do {
            let (status, text) = try run("/bin/sh", ["-c", command])
            guard status == 0 else {
                return .failure(Unavailable(description: "cannot build the FUSE fixture (needs cc or clang, pkg-config and libfuse3-dev): \(text)"))
            }
            return .success(output)
        } catch {
            return .failure(Unavailable(description: "cannot build the FUSE fixture: \(error)"))
        }
    }()

    /// Whether to run the FUSE tests. Set HITTHAT_REQUIRE_FUSE=1 (in CI) to fail instead of skipping.
    static let isAvailable: Bool = {
        if case let .failure(reason) = binary {
            if ProcessInfo.processInfo.environment["HITTHAT_REQUIRE_FUSE"] == "1" { return true }
            print("note: skipping the FUSE-backed input tests: \(reason)")
            return false
        }
        return true
    }()

    private static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// A mounted directory of fake input nodes. Call `stop()` when done (after closing every node).
final class FakeInputDirectory {
    let root: String
    let path: String
    private let process = Process()

    init(_ nodes: [FakeNode]) throws {
        let binary = try FakeEvdev.binary.get()
        root = try TemporaryFiles.directory()
        path = root + "/input"
        let spec = root + "/spec"
        mkdir(path, 0o755)
        mkdir(spec, 0o755)
        for node in nodes {
            let directory = spec + "/" + node.name
            mkdir(directory, 0o755)
            for (key, bytes) in node.replies { try TemporaryFiles.write(bytes, to: directory + "/ioctl-" + key) }
            try TemporaryFiles.write(node.events, to: directory + "/events")
            if let unplugAt = node.unplugAt { try TemporaryFiles.write(Array(String(unplugAt).utf8), to: directory + "/unplug-at") }
            if node.denyOpen { try TemporaryFiles.write([], to: directory + "/deny-open") }
            if let gid = node.gid { try TemporaryFiles.write(Array(String(gid).utf8), to: directory + "/gid") }
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [spec, path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The fixture prints "ready" once the kernel has sent FUSE_INIT; EOF means it failed to mount.
        let line = output.fileHandleForReading.availableData
        guard String(decoding: line, as: UTF8.self).hasPrefix("ready") else {
            process.waitUntilExit()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            TemporaryFiles.remove(root)
            throw FakeEvdev.Unavailable(description: "fake_evdev did not mount (status \(process.terminationStatus)): \(message)")
        }
    }

    /// The path of node `name`.
    func node(_ name: String) -> String { path + "/" + name }

    /// Unmounts (the fixture does so on SIGTERM) and removes the temporary files.
    ///
    /// If the fixture has not exited after 5 s it is killed and the mount detached, so a broken
    /// fixture fails its test instead of hanging the run.
    func stop() {
        process.terminate()
        for _ in 0 ..< 50 where process.isRunning { usleep(100_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            umount2(path, Int32(MNT_DETACH))
        }
        process.waitUntilExit()
        TemporaryFiles.remove(root)
    }
}
