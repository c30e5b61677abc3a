import FightServer
import Testing

@testable import hitthat

/// `hitthat serve`'s options as it parses them: what they take and what they refuse.
@Suite struct ServeOptionsTests {
    @Test func serveTakesTheLifetimeInWholeDays() throws {
        #expect(try Serve.parse([]).sessionDays == 30)
        #expect(try Serve.parse(["--session-days", "7"]).sessionDays == 7)
        #expect(throws: (any Error).self) { try Serve.parse(["--session-days", "0"]) }
    }

    /// `hitthat serve` sets the allowance, positive, the configuration's by default.
    @Test func serveTakesTheAccountAllowance() throws {
        let defaults = ServerConfiguration()
        #expect(try Serve.parse([]).accountBurst == defaults.accountRequestBurst)
        #expect(try Serve.parse(["--account-burst", "400", "--account-rate", "5"]).accountRate == 5)
        #expect(throws: (any Error).self) { try Serve.parse(["--account-rate", "0"]) }
    }
}
