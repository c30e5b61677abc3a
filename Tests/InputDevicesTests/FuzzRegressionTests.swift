import FuzzTestSupport
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
