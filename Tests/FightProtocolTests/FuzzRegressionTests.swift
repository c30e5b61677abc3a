import FuzzTestSupport
import Testing

/// Replays every input that once crashed, hung or broke an invariant in the ServerMessages fuzz
/// target (`Tests/Fixtures/fuzz/ServerMessages/`), and its seeds, the examples of docs/PROTOCOL.md
/// (`Fuzz/seeds/ServerMessages/`), through the entry point the fuzzer uses.
@Suite struct FightProtocolFuzzRegressionTests {
    static let inputs = FuzzInputs.files(for: ["ServerMessages"])

    @Test func theTargetHasInputs() {
        #expect(!Self.inputs.isEmpty)
    }

    @Test(arguments: inputs)
    func replays(_ input: FuzzInput) throws {
        FightProtocolFuzzEntryPoints.serverMessages(try input.bytes())
    }
}
