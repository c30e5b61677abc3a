// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "HitThat",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "PunchKit", targets: ["PunchKit"]),
        .library(name: "PunchSimulator", targets: ["PunchSimulator"]),
        .executable(name: "hitthat", targets: ["hitthat"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // MARK: - Core (standard library only)
        .target(name: "PunchKit"),
        .target(name: "PunchSimulator", dependencies: ["PunchKit"]),

        // MARK: - Command line
        .executableTarget(
            name: "hitthat",
            dependencies: [
                "PunchKit",
                "PunchSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: - Tests
        .testTarget(name: "PunchKitTests", dependencies: ["PunchKit", "PunchSimulator"]),
        .testTarget(name: "PunchSimulatorTests", dependencies: ["PunchKit", "PunchSimulator"]),
        .testTarget(name: "HitThatEndToEndTests", dependencies: ["hitthat"]),
    ],
    swiftLanguageModes: [.v6]
)
