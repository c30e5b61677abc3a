import FuzzTestSupport
import Testing

/// Replays every input that once crashed, hung or broke an invariant in a PunchKit fuzz target
/// (`Tests/Fixtures/fuzz/<Target>/`), and the fuzzers' seeds (`Fuzz/seeds/<Target>/`), through the
/// entry points the fuzzers use. Each must now be read, or refused with an error, without a crash.
@Suite struct PunchKitFuzzRegressionTests {
    static let inputs = FuzzInputs.files(for: ["TraceReader", "PunchDetector", "LabelParser"])

    @Test func everyTargetHasInputs() {
        #expect(Set(Self.inputs.map(\.target)) == ["TraceReader", "PunchDetector", "LabelParser"])
    }

    @Test(arguments: inputs)
    func replays(_ input: FuzzInput) throws {
        let bytes = try input.bytes()
        switch input.target {
        case "TraceReader": PunchKitFuzzEntryPoints.traceReader(bytes)
        case "PunchDetector": PunchKitFuzzEntryPoints.punchDetector(bytes)
        default: PunchKitFuzzEntryPoints.labelParser(bytes)
        }
    }
}
