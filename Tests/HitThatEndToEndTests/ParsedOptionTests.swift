import PunchKit
import Testing

@testable import MotionCommands
@testable import hitthat

/// The options argument-parser parses into enums: the spellings the help lists.
@Suite struct ParsedOptionTests {
    @Test func simulateTakesEveryPhyphoxDialectBySpelling() throws {
        #expect(try Simulate.parse([]).dialect == .comma)
        for dialect in TraceWriter.PhyphoxDialect.allCases {
            #expect(try Simulate.parse(["--dialect", dialect.rawValue]).dialect == dialect)
        }
        #expect(try Simulate.parse(["--dialect", "semicolon-decimal-comma"]).dialect == .semicolonWithDecimalComma)
        #expect(throws: (any Error).self) { try Simulate.parse(["--dialect", "pipe"]) }
        let help = Simulate.helpMessage(columns: 1000)
        #expect(help.contains("comma, tab, semicolon, tab-decimal-comma, semicolon-decimal-comma"))
    }

    @Test func playsSensorIsTheKeyboardStandardInputOrAPath() throws {
        #expect(try Play.parse(["--user", "alice"]).sensor == .keyboard)
        #expect(try Play.parse(["--user", "alice", "--sensor", "keyboard"]).sensor == .keyboard)
        #expect(try Play.parse(["--user", "alice", "--sensor", "-"]).sensor == .standardInput)
        #expect(try Play.parse(["--user", "alice", "--sensor", "/dev/input/event3"]).sensor == .path("/dev/input/event3"))
        // Standard input cannot carry both a script and a trace, and raw events need a sensor.
        #expect(throws: (any Error).self) { try Play.parse(["--user", "alice", "--script", "--sensor", "-"]) }
        #expect(throws: (any Error).self) { try Play.parse(["--user", "alice", "--raw-events"]) }
        #expect(Play.helpMessage().contains("(default: keyboard)"))
    }
}
