import Foundation
import Testing

/// Replays every input that once crashed, hung or broke an invariant in an InputDevices fuzz target
/// (`Tests/Fixtures/fuzz/<Target>/`), and the fuzzers' seeds (`Fuzz/seeds/<Target>/`), through the
/// entry points the fuzzers use. Each must now be read, or refused with an error, without a crash.
@Suite struct InputDevicesFuzzRegressionTests {
    static let inputs = FuzzInputs.files(for: ["InputEvents", "JoystickEvents", "Evemu"])

    @Test func everyTargetHasInputs() {
        #expect(Set(Self.inputs.map(\.target)) == ["InputEvents", "JoystickEvents", "Evemu"])
    }

    @Test(arguments: inputs)
    func replays(_ input: FuzzInput) throws {
        let bytes = try input.bytes()
        switch input.target {
        case "InputEvents": InputDevicesFuzzEntryPoints.inputEvents(bytes)
        case "JoystickEvents": InputDevicesFuzzEntryPoints.joystickEvents(bytes)
        default: InputDevicesFuzzEntryPoints.evemu(bytes)
        }
    }
}

/// One stored fuzz input: the target it is for and its file.
struct FuzzInput: Sendable, CustomTestStringConvertible {
    var target: String
    var path: String

    var testDescription: String { "\(target)/\(URL(fileURLWithPath: path).lastPathComponent)" }

    func bytes() throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }
}

enum FuzzInputs {
    /// The package's root directory, found from this file's path (Tests/<Target>Tests/…).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files in `Tests/Fixtures/fuzz/<target>/` and `Fuzz/seeds/<target>/`, sorted.
    static func files(for targets: [String]) -> [FuzzInput] {
        targets.flatMap { target in
            ["Tests/Fixtures/fuzz/\(target)", "Fuzz/seeds/\(target)"].flatMap { folder in
                let directory = packageRoot.appendingPathComponent(folder)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                return names.sorted().map { FuzzInput(target: target, path: directory.appendingPathComponent($0).path) }
            }
        }
    }
}
