import Benchmark
import FightEngine
import FightServer
import FightStore
import FightStoreTestSupport
import Foundation
import Logging

// MARK: - Start-up benchmarks

/// How long the server takes to start on a file with a million finished fights, and what it holds
/// in memory then. A server that rebuilt its indexes from the whole log took 3.6 s to answer
/// `/health` after 19,261 fights and held 154 MB; the bound is 2 s and 100 MB at 1 M fights.
///
/// The file (20,000 fighters, 1 M fights to a knockout, 6 M events, ~2 GB) is built by
/// `HistoryFile` in setup the first time and kept in the temporary directory, named by its size,
/// for the next runs and for `tools/startup.sh`, which restarts a real `hitthat serve` on it.
/// Names have no spaces (see Matchmaking.swift).
let benchmarks: @Sendable () -> Void = {
    let history = History(fighters: 20_000, fights: 1_000_000)
    Benchmark(
        "Startup-store-open-1M-fights",
        configuration: configuration(maxIterations: 50),
        closure: { benchmark in
            // What a start opens, then what a fighter's `hello` asks.
            let store = orStop { try FightStore(path: history.path, durability: .processCrash) }
            blackHole(orStop { try store.fighter(FighterID(1)) })
            blackHole(orStop { try store.openFights(of: FighterID(1)) })
        },
        setup: { orStop { try history.buildIfMissing() } }
    )
    Benchmark(
        "Startup-server-health-1M-fights",
        configuration: configuration(maxIterations: 10),
        closure: { benchmark in
            benchmark.startMeasurement()
            let server = await orStop { try await RunningServer.start(on: history.path) }
            orStop { try server.askHealth() }
            benchmark.stopMeasurement()
            benchmark.measurement(.custom("residentMB", useScalingFactor: false), residentMegabytes())
            await server.stop()
        },
        setup: { orStop { try history.buildIfMissing() } }
    )
}

/// Times wide, as in the other suites (two shared cores); the process's resident memory once the
/// server has answered within a tenth.
func configuration(maxIterations: Int) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .custom("residentMB", useScalingFactor: false)], warmupIterations: 1,
        maxDuration: .seconds(20), maxIterations: maxIterations,
        thresholds: [
            .wallClock: BenchmarkThresholds(relative: [.p90: 35]),
            .custom("residentMB", useScalingFactor: false): BenchmarkThresholds(relative: [.p90: 10]),
        ])
}

/// The value of `body`, or the run stops (see Matchmaking.swift: a failure must not be timed).
func orStop<Value>(_ body: () throws -> Value) -> Value {
    do { return try body() } catch { fatalError("\(error)") }
}

func orStop<Value>(_ body: () async throws -> Value) async -> Value {
    do { return try await body() } catch { fatalError("\(error)") }
}

/// This process's resident memory (`VmRSS`), in whole megabytes.
func residentMegabytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return kilobytes / 1024
}

// MARK: - The file

/// The history file, built once and kept for later runs.
struct History: Sendable {
    let fighters: Int
    let fights: Int

    var path: String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "hitthat-history-\(fighters)-fighters-\(fights)-fights.sqlite"
        ).path
    }

    /// Builds the file unless one with as many fights is there (a build that stopped half way
    /// wrote nothing: it is one transaction).
    func buildIfMissing() throws {
        if FileManager.default.fileExists(atPath: path),
            try FightStore(path: path, durability: .processCrash).fight(FightID(Int64(fights))) != nil
        {
            print("reusing \(path)")
            return
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let started = ContinuousClock.now
        let contents = try HistoryFile.build(at: path, fighters: fighters, fights: fights)
        print(
            "built \(path): \(contents.fights) fights, \(contents.eventsPerFight) events each, in \(ContinuousClock.now - started)"
        )
    }
}

// MARK: - A server

/// A `FightServer` on a free loopback port, started in this process.
struct RunningServer {
    let server: FightServer
    let running: Task<Void, any Error>
    let port: Int

    static func start(on path: String) async throws -> RunningServer {
        var logger = Logger(label: "benchmark.server")
        logger.logLevel = .warning
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = try FightServer(
            configuration: ServerConfiguration(port: 0, databasePath: path), logger: logger
        ) { port in portContinuation.yield(port) }
        let running = Task { try await server.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw BenchmarkFailure("the server never said it was running") }
        return RunningServer(server: server, running: running, port: port)
    }

    /// `GET /health` over a socket of its own; throws unless the answer is 200.
    func askHealth() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkFailure("socket: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw BenchmarkFailure("connect: errno \(errno)") }
        let request = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard write(socket, request, request.count) == request.count else { throw BenchmarkFailure("write failed") }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(socket, &buffer, buffer.count)
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200") else { throw BenchmarkFailure("/health answered \(text)") }
    }

    func stop() async {
        await server.shutdown()
        _ = try? await running.value
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
