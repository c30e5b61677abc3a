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

    /// A server's name over its restarts: given, or none (the machine's and the port's then, or
    /// none with port 0); empty, spaced or too long, refused.
    @Test func serveTakesANameKeptOverRestarts() throws {
        #expect(try Serve.parse([]).name == nil)
        #expect(try Serve.parse(["--name", "east-1"]).name == "east-1")
        for bad in ["", "two words", String(repeating: "x", count: 201)] {
            #expect(throws: (any Error).self) { try Serve.parse(["--name", bad]) }
        }
        var configuration = ServerConfiguration(port: 8080)
        #expect(FightServer.identity(of: configuration)?.hasSuffix(":8080") == true)
        configuration.port = 0
        #expect(FightServer.identity(of: configuration) == nil, "each run a server of its own")
        configuration.name = "east-1"
        #expect(FightServer.identity(of: configuration) == "east-1")
    }
}
