// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "HitThat",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "PunchKit", targets: ["PunchKit"]),
        .library(name: "PunchSimulator", targets: ["PunchSimulator"]),
        .library(name: "InputDevices", targets: ["InputDevices"]),
        .library(name: "FightEngine", targets: ["FightEngine"]),
        .library(name: "FightStore", targets: ["FightStore"]),
        .executable(name: "hitthat", targets: ["hitthat"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // MARK: - Punches (standard library only)
        .target(name: "PunchKit"),
        .target(name: "PunchSimulator", dependencies: ["PunchKit", "InputDevices"]),

        // MARK: - Live input (Glibc)
        // A C shim only because Swift cannot call the variadic ioctl(2).
        .target(name: "CInputDevicesShims"),
        .target(name: "InputDevices", dependencies: ["CInputDevicesShims"]),

        // MARK: - Fights
        .target(name: "FightEngine"),
        .target(name: "FightStore", dependencies: ["FightEngine", .product(name: "GRDB", package: "GRDB.swift")]),

        // MARK: - Command line
        .executableTarget(
            name: "hitthat",
            dependencies: [
                "PunchKit",
                "PunchSimulator",
                "InputDevices",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: - Benchmarks (swift package benchmark)
        .executableTarget(
            name: "Matchmaking",
            dependencies: ["FightEngine", "FightStore", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/Matchmaking",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        .executableTarget(
            name: "PunchBenchmarks",
            dependencies: ["PunchKit", "PunchSimulator", "InputDevices", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/PunchBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        // MARK: - Tests
        .testTarget(name: "PunchKitTests", dependencies: ["PunchKit", "PunchSimulator"]),
        .testTarget(name: "PunchSimulatorTests", dependencies: ["PunchKit", "PunchSimulator"]),
        // Serves fake input nodes through FUSE, for the library's tests and the CLI's.
        .target(name: "InputDevicesTestSupport", path: "Tests/InputDevicesTestSupport"),
        .testTarget(name: "InputDevicesTests", dependencies: ["InputDevices", "InputDevicesTestSupport"]),
        .testTarget(name: "FightEngineTests", dependencies: ["FightEngine"]),
        .testTarget(
            name: "FightStoreTests",
            dependencies: ["FightStore", "FightEngine", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(name: "HitThatEndToEndTests", dependencies: ["hitthat", "InputDevicesTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
