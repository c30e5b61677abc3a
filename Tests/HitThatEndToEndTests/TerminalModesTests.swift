import Foundation
import Glibc
import Testing

@testable import hitthat

/// `hitthat play`'s raw mode, set on a pseudo-terminal of the test's own rather than through tmux,
/// so that what it checks does not depend on timing.
@Suite struct TerminalModesTests {
    /// The machine gave no pseudo-terminal to test on.
    struct PtyUnavailable: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A pseudo-terminal pair; the test holds the controlling side open so the terminal stays.
    final class Pty {
        let controller: Int32
        let terminal: Int32

        init() throws {
            controller = Self.posixOpenpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard controller >= 0, Self.grantpt(controller) == 0, Self.unlockpt(controller) == 0,
                let name = Self.ptsname(controller)
            else { throw PtyUnavailable("no pseudo-terminal: \(String(cString: strerror(errno)))") }
            // O_NOCTTY: the test runner must not take it as its controlling terminal.
            terminal = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard terminal >= 0 else { throw PtyUnavailable("cannot open \(String(cString: name))") }
        }

        deinit {
            close(terminal)
            close(controller)
        }

        // The Glibc module leaves out posix_openpt and its kin (they need _XOPEN_SOURCE), and
        // openpty is only in libc itself from glibc 2.34; these four have always been there.
        private static func libc<F>(_ name: String, as type: F.Type) -> F {
            guard let symbol = dlsym(nil, name) else { fatalError("libc has no \(name)") }
            return unsafeBitCast(symbol, to: type)
        }
        private static let posixOpenpt = libc("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
        private static let grantpt = libc("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        private static let unlockpt = libc("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        private static let ptsname = libc("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)

        var localModes: tcflag_t {
            var modes = termios()
            tcgetattr(terminal, &modes)
            return modes.c_lflag
        }
    }

    @Test func rawModeIsInPlaceWhenMakeRawReturnsAndTheSavedModesPutItBack() throws {
        let pty = try Pty()
        #expect(pty.localModes & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO), "a new terminal is cooked")

        let saved = try #require(try TerminalModes.makeRaw(pty.terminal))
        #expect(pty.localModes & tcflag_t(ICANON | ECHO) == 0)
        #expect(pty.localModes & tcflag_t(ISIG) != 0, "Ctrl-C still sends SIGINT")

        try TerminalModes.set(saved, on: pty.terminal, doing: "restore")
        #expect(pty.localModes == saved.c_lflag)
    }

    @Test func aPipeIsNoTerminalAndIsLeftAlone() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        #expect(try TerminalModes.makeRaw(ends[0]) == nil)
        #expect(throws: TerminalModeError.self) {
            try TerminalModes.set(termios(), on: ends[0], doing: "set the modes")
        }
    }

    /// A failure is an error that says what failed, not a terminal silently left cooked.
    @Test func aDescriptorThatCannotBeAskedIsAnError() throws {
        // -1 rather than a descriptor just closed, which another test's thread could open again.
        let error = #expect(throws: TerminalModeError.self) { try TerminalModes.makeRaw(-1) }
        #expect(error?.description == "cannot put the terminal in raw mode: tcgetattr: Bad file descriptor")
    }
}
