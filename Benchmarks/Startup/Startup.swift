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
        configuration: configuration(maxIterations: 50, metrics: [.wallClock]),
        closure: { benchmark in
            // What a start opens, then what a fighter's `hello` asks.
            let store = orStop { try FightStore(path: history.path, durability: .processCrash) }
            blackHole(await orStop { try await store.fighter(FighterID(1)) })
            blackHole(await orStop { try await store.openFights(of: FighterID(1)) })
        },
        setup: { await orStop { try await history.buildIfMissing() } }
    )
    Benchmark(
        "Startup-server-health-1M-fights",
        configuration: configuration(maxIterations: 10, metrics: [.wallClock, residentMB]),
        closure: { benchmark in
            benchmark.startMeasurement()
            let server = await orStop { try await RunningServer.start(on: history.path) }
            await orStop { try await server.askHealth() }
            benchmark.stopMeasurement()
            benchmark.measurement(residentMB, residentMegabytes())
            await server.stop()
        },
        setup: { await orStop { try await history.buildIfMissing() } }
    )
}

/// The whole process's resident memory (`VmRSS`) once the server has answered, in MB.
let residentMB = BenchmarkMetric.custom("residentMB", useScalingFactor: false)

/// Times wide, as in the other suites (two shared cores); memory within a tenth.
func configuration(maxIterations: Int, metrics: [BenchmarkMetric]) -> Benchmark.Configuration {
    .init(
        metrics: metrics, warmupIterations: 1, maxDuration: .seconds(20), maxIterations: maxIterations,
        thresholds: Dictionary(
            uniqueKeysWithValues: metrics.map {
                ($0, BenchmarkThresholds(relative: [.p90: $0 == residentMB ? 10 : 35]))
            }))
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
    func buildIfMissing() async throws {
        if FileManager.default.fileExists(atPath: path),
            try await FightStore(path: path, durability: .processCrash).fight(FightID(Int64(fights))) != nil
        {
            print("reusing \(path)")
            return
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let started = ContinuousClock.now
        let contents = try await HistoryFile.build(at: path, fighters: fighters, fights: fights)
        print(
            "built \(path): \(contents.fights) fights, \(contents.eventsPerFight) events each, in \(ContinuousClock.now - started)"
        )
    }
}

// MARK: - A server

/// A `FightServer` on a free loopback port, started in this process.
struct RunningServer: Sendable {
    let server: FightServer
    let running: Task<Void, any Error>
    let port: Int

    static func start(on path: String) async throws -> RunningServer {
        var logger = Logger(label: "benchmark.server")
        logger.logLevel = .warning
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = try await FightServer(
            configuration: ServerConfiguration(port: 0, databasePath: path), logger: logger
        ) { port in portContinuation.yield(port) }
        let running = Task { try await server.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw BenchmarkFailure("the server never said it was running") }
        return RunningServer(server: server, running: running, port: port)
    }

    /// `GET /health` over a socket of its own; throws unless the answer is 200.
    ///
    /// The socket blocks, so it is used on a thread of its own: on one of Swift's shared threads
    /// it would hold up the server it is waiting for (the benchmark runner holds another).
    func askHealth() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread { continuation.resume(with: Result { try askHealthBlocking() }) }.start()
        }
    }

    private func askHealthBlocking() throws {
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
        let request = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard write(socket, request, request.count) == request.count else { throw BenchmarkFailure("write failed") }
        // The status line is all that is wanted; it comes in the first read. (Reading to the end
        // would wait on the server to close the connection.)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(socket, &buffer, buffer.count)
        let text = String(decoding: buffer[..<max(0, count)], as: UTF8.self)
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
