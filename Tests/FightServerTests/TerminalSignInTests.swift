import FightProtocol
import Foundation
import Testing

/// `hitthat play`'s password prompt in a real terminal (tmux): asked only once the server answers,
/// asked again when too short, a new account typed twice, and Ctrl-C or Ctrl-D leaving it with the
/// terminal as it was.
@Suite(.serialized, .enabled(if: Tmux.isAvailable, "needs tmux (apt: tmux)"), .timeLimit(.minutes(3)))
struct TerminalSignInTests {
    typealias Screens = TerminalClientTests

    /// The shell line that runs `play` as `user` against the server on `port`, with no password given.
    static func play(_ user: String, port: Int) -> String { Screens.play(user, port: port) }

    @Test func aShortPasswordIsAskedAgainAndANewAccountIsTypedTwice() async throws {
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let tmux = Tmux()
        defer { tmux.kill() }
        try await tmux.start("erin", command: Self.play("erin", port: port))
        try await tmux.wait(for: "the prompt", on: "erin") { $0.contains("password for erin (Ctrl-C quits):") ? true : nil }
        try await tmux.send("short", "Enter", to: "erin")
        let lengths = Credentials.passwordLengths
        try await tmux.wait(for: "the reason", on: "erin") {
            $0.contains("a password is \(lengths.lowerBound) to \(lengths.upperBound) characters; that was 5 characters")
                ? true : nil
        }
        try await tmux.send("correct horse", "Enter", to: "erin")
        try await tmux.wait(for: "the confirmation", on: "erin") { $0.contains("type the password again") ? true : nil }
        try await tmux.send("correct hose", "Enter", to: "erin")
        try await tmux.wait(for: "the mismatch", on: "erin") { $0.contains("the two passwords differ") ? true : nil }
        try await tmux.send("correct horse", "Enter", to: "erin")
        try await tmux.wait(for: "the confirmation", on: "erin") {
            $0.components(separatedBy: "type the password again").count == 3 ? true : nil
        }
        try await tmux.send("correct horse", "Enter", to: "erin")
        let screen = try await tmux.wait(for: "the connection", on: "erin") { $0.contains("connected to") ? $0 : nil }
        #expect(!screen.contains("horse"), "never echoed: \(screen)")
        try await tmux.send("q", to: "erin")
        #expect(try await tmux.exitStatus(of: "erin") == 0)

        // The account exists now: the same password signs in at once, with no confirmation.
        try await tmux.start("erin-again", command: Self.play("erin", port: port))
        try await tmux.wait(for: "the prompt", on: "erin-again") { $0.contains("password for erin") ? true : nil }
        try await tmux.send("correct horse", "Enter", to: "erin-again")
        try await tmux.wait(for: "the connection", on: "erin-again") { $0.contains("connected to") ? true : nil }
        try await tmux.send("q", to: "erin-again")
        #expect(try await tmux.exitStatus(of: "erin-again") == 0)
    }

    /// Ctrl-C leaves the prompt with 130 (as a shell reports an interrupted program), Ctrl-D on an
    /// empty line with 1 and a line saying nothing was done; either way the terminal echoes again.
    @Test(arguments: [("C-c", 130), ("C-d", 1)])
    func ctrlCAndCtrlDLeaveThePrompt(key: String, status: Int) async throws {
        let (server, port) = try await ScriptClientTests.serve(database: try TestServer.temporaryDatabase())
        defer { server.kill(SIGTERM) }
        let tmux = Tmux()
        defer { tmux.kill() }
        try await tmux.start("fay", command: Self.play("fay", port: port), then: "stty -a; exec sleep 3600")
        try await tmux.wait(for: "the prompt", on: "fay") { $0.contains("password for fay") ? true : nil }
        try await tmux.send(key, to: "fay")
        #expect(try await tmux.exitStatus(of: "fay") == status)
        let modes = try await tmux.wait(for: "the modes", on: "fay", history: true) { $0.contains("icanon") ? $0 : nil }
        let flags = Set(modes.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(flags.isSuperset(of: ["echo", "isig", "icanon"]), "\(modes)")
        if status == 1 { #expect(try await tmux.screen("fay").contains("no password typed: nothing done")) }
    }

    /// A server that is not there is said so before anyone types a password for it.
    @Test func anUnreachableServerIsSaidBeforeThePrompt() async throws {
        let port = try ScriptClientTests.closedPort()
        let tmux = Tmux()
        defer { tmux.kill() }
        try await tmux.start("gus", command: Self.play("gus", port: port))
        #expect(try await tmux.exitStatus(of: "gus") == 1)
        let screen = try await tmux.screen("gus", history: true)
        #expect(screen.contains("cannot reach the server at 127.0.0.1:\(port): connection refused"), "\(screen)")
        #expect(screen.contains("is `hitthat serve` running there?"), "\(screen)")
        #expect(!screen.contains("password for"), "\(screen)")
    }
}
