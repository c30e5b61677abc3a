// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "HitThat",
    // macOS 14: PlayerDriver owns its tasks in a discarding task group.
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "PunchKit", targets: ["PunchKit"]),
        .library(name: "PunchSimulator", targets: ["PunchSimulator"]),
        .library(name: "InputDevices", targets: ["InputDevices"]),
        .library(name: "MotionInput", targets: ["MotionInput"]),
        .library(name: "FightEngine", targets: ["FightEngine"]),
        .library(name: "FightStore", targets: ["FightStore"]),
        // The wire format, a client of it and the server, apart (as Hummingbird's client and server
        // are), so that a client links neither Hummingbird nor the store.
        .library(name: "FightProtocol", targets: ["FightProtocol"]),
        .library(name: "FightClient", targets: ["FightClient"]),
        .library(name: "FightServer", targets: ["FightServer"]),
        .executable(name: "hitthat", targets: ["hitthat"]),
        .executable(name: "punches", targets: ["punches"]),
    ],
    // PostgreSQL is for several servers sharing one database: off by default, so that the SQLite
    // build (`swift run`, `swift test`) does not compile postgres-nio and BoringSSL beside it.
    // `swift build --traits PostgreSQL` (or `swift test --traits PostgreSQL`) builds it in.
    traits: [
        .trait(name: "PostgreSQL", description: "The store on a PostgreSQL server (postgres-nio) besides SQLite."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // MARK: - Punches (standard library only)
        .target(name: "PunchKit"),
        .target(name: "PunchSimulator", dependencies: ["PunchKit", "InputDevices"]),
        // A trace drawn as SVG for `hitthat plot`: text built by hand, no Foundation.
        .target(name: "TracePlot", dependencies: ["PunchKit"]),

        // MARK: - Live input (Glibc)
        // A C shim only because Swift cannot call the variadic ioctl(2).
        .target(name: "CInputDevicesShims"),
        .target(name: "InputDevices", dependencies: ["CInputDevicesShims"]),
        // Samples from a trace file or any motion sensor, and the one loop that feeds the detector.
        .target(
            name: "MotionInput",
            dependencies: ["PunchKit", "InputDevices", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),

        // MARK: - Fights
        .target(name: "FightEngine"),
        .target(
            name: "FightStore",
            dependencies: [
                "FightEngine", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
            ]),

        // MARK: - Protocol, client and server
        // The messages and their JSON (Foundation's coders): what both sides agree on.
        .target(name: "FightProtocol", dependencies: ["FightEngine"]),
        // A player's connection (swift-nio's WebSocket client) and what a client does with the messages.
        .target(
            name: "FightClient",
            dependencies: [
                "FightProtocol", "FightEngine",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The WebSocket server (Hummingbird), its accounts, HTTPS (swift-nio-ssl through
        // HummingbirdTLS) and the web page it serves (Page/: plain files, copied as they are); a
        // sensor's motion goes through MotionInput's hold to PunchKit's detector, as a trace does
        // in `detect`.
        .target(
            name: "FightServer",
            dependencies: [
                "FightProtocol", "FightEngine", "FightStore", "MotionInput", "PunchKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Page")]
        ),

        // MARK: - Command line
        // The commands for motion and punches (detect, evaluate, calibrate, plot, simulate,
        // devices, listen), apart from the game's, so that `punches` builds them without the
        // server's and the client's dependencies: a first build in a few minutes.
        .target(
            name: "MotionCommands",
            dependencies: [
                "PunchKit", "PunchSimulator", "TracePlot", "InputDevices", "MotionInput",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "punches",
            dependencies: ["MotionCommands", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "hitthat",
            dependencies: [
                "MotionCommands",
                "PunchKit",
                "PunchSimulator",
                "TracePlot",
                "InputDevices",
                "MotionInput",
                "FightEngine",
                "FightStore",
                "FightProtocol",
                "FightClient",
                "FightServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "hitthat-load",
            dependencies: [
                "FightProtocol", "FightClient", "FightEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),

        // MARK: - Benchmarks (swift package benchmark)
        .executableTarget(
            name: "Matchmaking",
            dependencies: ["FightEngine", "FightStore", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/Matchmaking",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        // A server's start on a file of a million finished fights: time to /health, memory.
        .executableTarget(
            name: "Startup",
            dependencies: [
                "FightEngine", "FightStore", "FightServer", "FightStoreTestSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/Startup",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        .executableTarget(
            name: "PunchBenchmarks",
            dependencies: [
                "PunchKit", "PunchSimulator", "InputDevices", .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/PunchBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        // MARK: - Tests
        // The stored fuzz inputs that the libraries' tests replay.
        .target(name: "FuzzTestSupport", path: "Tests/FuzzTestSupport"),
        .testTarget(name: "PunchKitTests", dependencies: ["PunchKit", "PunchSimulator", "FuzzTestSupport"]),
        .testTarget(name: "PunchSimulatorTests", dependencies: ["PunchKit", "PunchSimulator"]),
        .testTarget(name: "TracePlotTests", dependencies: ["TracePlot", "PunchKit"]),
        .testTarget(
            name: "MotionInputTests",
            dependencies: [
                "MotionInput", "PunchKit", "PunchSimulator", "InputDevices",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        // The detector scored on ../shared/recordings when it is there (Foundation, for the truth files' JSON).
        .testTarget(name: "RealRecordingsTests", dependencies: ["PunchKit", "MotionInput"]),
        // Serves fake input nodes through FUSE, for the library's tests and the CLI's.
        .target(name: "InputDevicesTestSupport", path: "Tests/InputDevicesTestSupport"),
        .testTarget(
            name: "InputDevicesTests", dependencies: ["InputDevices", "InputDevicesTestSupport", "FuzzTestSupport"]),
        .testTarget(name: "FightEngineTests", dependencies: ["FightEngine"]),
        // Store files with a long history, written fast, for the start-up tests and benchmark.
        .target(
            name: "FightStoreTestSupport",
            dependencies: ["FightEngine", "FightStore", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/FightStoreTestSupport"
        ),
        .testTarget(
            name: "FightStoreTests",
            dependencies: [
                "FightStore", "FightEngine", "FightStoreTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "FightProtocolTests", dependencies: ["FightProtocol", "FightEngine", "FuzzTestSupport"]),
        .testTarget(name: "FightClientTests", dependencies: ["FightClient", "FightProtocol", "FightEngine"]),
        // The load tool's accounting (latencies, outage, losses) on made-up timings.
        .testTarget(name: "HitThatLoadTests", dependencies: ["hitthat-load", "FightClient", "FightProtocol", "FightEngine"]),
        .testTarget(
            name: "FightServerTests",
            dependencies: [
                "FightServer", "FightClient", "FightProtocol", "FightEngine", "hitthat", "hitthat-load",
                "InputDevicesTestSupport",
                // A generated trace read as `detect` reads it, to stream as a hold.
                "MotionInput", "PunchKit",
                // The databases to test on: SQLite, and PostgreSQL where a test server is given.
                "FightStoreTestSupport",
                // A second connection to a server's file, to make its writes fail.
                .product(name: "GRDB", package: "GRDB.swift"),
                // Locks ThreadSanitizer can see (pthread); it cannot see Synchronization.Mutex.
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        // The CLI's own tests: the built binary on files, pipes and fake nodes, and its parts
        // (`@testable import hitthat`); FightServerTests runs it only as a process against a server.
        .testTarget(name: "HitThatEndToEndTests", dependencies: ["hitthat", "punches", "MotionCommands", "FightServer", "InputDevicesTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
