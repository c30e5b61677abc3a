import Foundation
import Testing

/// The test helper that runs commands: what a test reads after the exit must be all the command wrote.
@Suite struct RunningCommandTests {
    /// Once `exitStatus()` returns, the output is complete. The lines are read by a thread of their
    /// own, which a busy machine can leave behind the process's exit; the terminal test once read
    /// `stty -a` that way before the reader had the modes, and took the terminal for not raw.
    @Test func theOutputIsCompleteWhenTheExitStatusIsKnown() async throws {
        let env = URL(fileURLWithPath: "/usr/bin/env")
        // Several at once, so that the readers compete for the processor with the commands.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    let command = try RunningCommand(["seq", "1", "300"], executable: env)
                    #expect(try await command.exitStatus() == 0)
                    return command.output.count
                }
            }
            for try await count in group { #expect(count == 300) }
        }
    }
}
