import Foundation
import Glibc

// MARK: - Fake nodes

/// One node served by the FUSE fixture (Tests/Fixtures/FakeEvdev/fake_evdev.c): ioctl replies keyed by
/// `_IOC_TYPE-_IOC_NR` in hex, the bytes read(2) returns, and how it ends.
public struct FakeNode: Sendable {
    /// The node's file name in the fake directory (`event3`, `js0`).
    public var name: String
    /// The ioctl answers, keyed by `_IOC_TYPE-_IOC_NR` in hex.
    public var replies: [String: [UInt8]] = [:]
    /// The bytes read(2) returns, in order.
    public var events: [UInt8] = []
    /// After this many bytes, the node disappears and reads fail with ENODEV.
    public var unplugAt: Int?
    /// Whether open(2) fails with EACCES.
    public var denyOpen = false
    /// The group that owns the node, for the permission message.
    public var gid: gid_t?
    /// Byte offsets in `events` where reads stop until the test opens the gate
    /// (``FakeInputDirectory/open(gates:of:)``): a device whose next events have not happened yet.
    public var holdAt: [Int] = []

    /// One absolute axis, as EVIOCGABS reports it.
    public struct Axis: Sendable {
        /// The axis code (ABS_X is 0).
        public var code: UInt8
        /// The current value.
        public var value: Int32 = 0
        /// The smallest value.
        public var minimum: Int32
        /// The largest value.
        public var maximum: Int32
        /// The noise filter.
        public var fuzz: Int32 = 0
        /// The dead zone.
        public var flat: Int32 = 0
        /// Units per g (or per deg/s for a gyroscope).
        public var resolution: Int32 = 0

        /// Creates an axis.
        public init(
            code: UInt8, value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0,
            resolution: Int32 = 0
        ) {
            self.code = code
            self.value = value
            self.minimum = minimum
            self.maximum = maximum
            self.fuzz = fuzz
            self.flat = flat
            self.resolution = resolution
        }
    }

    /// An evdev node answering EVIOCGNAME, EVIOCGID, EVIOCGPROP, EVIOCGBIT(0/EV_ABS/EV_MSC), EVIOCGABS.
    public static func evdev(
        _ node: String, name: String, id: [UInt16], accelerometer: Bool, axes: [Axis], timestamp: Bool = false,
        keys: Bool = false, events: [UInt8]
    ) -> FakeNode {
        var types: UInt32 = 1 << 0  // EV_SYN
        if keys { types |= 1 << 1 }
        if !axes.isEmpty { types |= 1 << 3 }
        if timestamp { types |= 1 << 4 }
        var absBits: UInt64 = 0
        var replies: [String: [UInt8]] = [
            "45-06": Array(name.utf8) + [0],
            "45-02": id.flatMap(littleEndian),
            "45-09": littleEndian(UInt32(accelerometer ? 1 << 6 : 0)),
            "45-20": littleEndian(types),
        ]
        for axis in axes {
            absBits |= 1 << UInt64(axis.code)
            replies[String(format: "45-%02x", 0x40 + Int(axis.code))] =
                [axis.value, axis.minimum, axis.maximum, axis.fuzz, axis.flat, axis.resolution].flatMap(littleEndian)
        }
        if !axes.isEmpty { replies["45-23"] = littleEndian(absBits) }
        if timestamp { replies["45-24"] = [1 << 5] }  // MSC_TIMESTAMP
        return FakeNode(name: node, replies: replies, events: events)
    }

    /// A joydev node answering JSIOCGNAME and JSIOCGAXES.
    public static func joystick(_ node: String, name: String, axisCount: UInt8, events: [UInt8]) -> FakeNode {
        FakeNode(name: node, replies: ["6a-13": Array(name.utf8) + [0], "6a-11": [axisCount]], events: events)
    }
}

// MARK: - Fixture process

/// Builds the fixture once per test process, or says why it cannot.
public enum FakeEvdev {
    /// Why the fixture cannot run here.
    public struct Unavailable: Error, CustomStringConvertible {
        /// The reason, for the skip message.
        public var description: String
    }

    /// The package's root directory, found from this file's path (Tests/InputDevicesTestSupport/…).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The fixture's C source.
    public static let fixtureSource = packageRoot.appendingPathComponent("Tests/Fixtures/FakeEvdev/fake_evdev.c").path

    /// The compiled fixture (in .build/fixtures, rebuilt each test run), or why the FUSE tests are skipped.
    public static let binary: Result<String, Unavailable> = {
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
                return .failure(
                    Unavailable(
                        description:
                            "cannot build the FUSE fixture (needs cc or clang, pkg-config and libfuse3-dev): \(text)"))
            }
            return .success(output)
        } catch {
            return .failure(Unavailable(description: "cannot build the FUSE fixture: \(error)"))
        }
    }()

    /// Whether to run the FUSE tests. Set HITTHAT_REQUIRE_FUSE=1 (in CI) to fail instead of skipping.
    public static let isAvailable: Bool = {
        if case .failure(let reason) = binary {
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
public final class FakeInputDirectory {
    /// The temporary directory holding the spec and the mount point.
    public let root: String
    /// The mounted directory of fake nodes.
    public let path: String
    private let process = Process()

    /// Mounts a directory serving `nodes`; throws when the fixture cannot run.
    public init(_ nodes: [FakeNode]) throws {
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
            if let unplugAt = node.unplugAt {
                try TemporaryFiles.write(Array(String(unplugAt).utf8), to: directory + "/unplug-at")
            }
            if node.denyOpen { try TemporaryFiles.write([], to: directory + "/deny-open") }
            if let gid = node.gid { try TemporaryFiles.write(Array(String(gid).utf8), to: directory + "/gid") }
            if !node.holdAt.isEmpty {
                try TemporaryFiles.write(
                    Array(node.holdAt.map(String.init).joined(separator: " ").utf8), to: directory + "/hold-at")
            }
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
            throw FakeEvdev.Unavailable(
                description: "fake_evdev did not mount (status \(process.terminationStatus)): \(message)")
        }
    }

    /// The path of node `name`.
    public func node(_ name: String) -> String { path + "/" + name }

    // MARK: Gates

    /// Opens the first `count` gates of node `name` (its `holdAt`); a reader waiting at one goes on.
    public func open(gates count: Int, of name: String) throws {
        let directory = root + "/spec/" + name
        // Written aside and renamed, so that the fixture never reads half a number.
        try TemporaryFiles.write(Array(String(count).utf8), to: directory + "/released.tmp")
        guard rename(directory + "/released.tmp", directory + "/released") == 0 else {
            throw TemporaryFiles.Failure(description: "cannot rename into \(directory)/released: errno \(errno)")
        }
    }

    /// The 1-based number of the gate of node `name` that a reader waits at (every byte before it
    /// has been read), or `nil` while none does yet.
    public func waitingGate(of name: String) -> Int? {
        guard let file = fopen(root + "/spec/" + name + "/held", "r") else { return nil }
        defer { fclose(file) }
        var text = [UInt8](repeating: 0, count: 32)
        let count = fread(&text, 1, text.count, file)
        return Int(String(decoding: text.prefix(count), as: UTF8.self))
    }

    /// Unmounts (the fixture does so on SIGTERM) and removes the temporary files.
    ///
    /// If the fixture has not exited after 5 s it is killed and the mount detached, so a broken
    /// fixture fails its test instead of hanging the run.
    public func stop() {
        process.terminate()
        for _ in 0..<50 where process.isRunning { usleep(100_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            umount2(path, Int32(MNT_DETACH))
        }
        process.waitUntilExit()
        TemporaryFiles.remove(root)
    }
}

/// The little-endian bytes of an integer, as the kernel lays out its structs on x86_64 and arm64.
func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}
