import Foundation
import Testing

/// One stored fuzz input: the target it is for and its file.
public struct FuzzInput: Sendable, CustomTestStringConvertible {
    /// The fuzz target the input is for.
    public var target: String
    /// The input's file.
    public var path: String

    /// `Target/file`, as the test list shows it.
    public var testDescription: String { "\(target)/\(URL(fileURLWithPath: path).lastPathComponent)" }

    /// The input's bytes.
    public func bytes() throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }
}

/// Where the stored fuzz inputs are.
public enum FuzzInputs {
    /// The package's root directory, found from this file's path (Tests/FuzzTestSupport/…).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files in `Tests/Fixtures/fuzz/<target>/` and `Fuzz/seeds/<target>/`, sorted.
    public static func files(for targets: [String]) -> [FuzzInput] {
        targets.flatMap { target in
            ["Tests/Fixtures/fuzz/\(target)", "Fuzz/seeds/\(target)"].flatMap { folder in
                let directory = packageRoot.appendingPathComponent(folder)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                return names.sorted().map { FuzzInput(target: target, path: directory.appendingPathComponent($0).path) }
            }
        }
    }
}
