import ArgumentParser
import FightClient
import FightProtocol
import MotionCommands

#if canImport(Glibc)
    import Glibc
#endif

/// `play`'s password prompt on the terminal: performs what `SignInPrompt` asks (the questions on
/// standard error, keys read one at a time with echo and signals off, the sign-in requests), and
/// returns the session signed in. The server is asked whether it is there (`GET /health`) before
/// a password is asked for: nobody should type one for a server that is not up.
enum PlaySignIn {
    /// Checks the server is there, asks for `username`'s password on `keyboard` until it signs
    /// in (registering a new account once the password was typed twice), and returns the session
    /// with the password it was signed in with.
    /// - Throws: `ExitCode` once the reason is said: 1 for a server not there or refusing, 1 for
    ///   Ctrl-D (no password), 130 for Ctrl-C (as a shell reports an interrupted program).
    static func signIn(username: String, at address: ServerAddress, keyboard: Int32) async throws -> Credentials.Signed {
        do {
            try await FightClient.checkHealth(at: address)
        } catch {
            printError("\(error); is `hitthat serve` running there? (--server ws://HOST:PORT)")
            throw ExitCode.failure
        }
        var prompt = SignInPrompt(username: username)
        let saved: termios?
        do {
            saved = try TerminalModes.makeSilent(keyboard)
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        defer {
            if let saved { try? TerminalModes.set(saved, on: keyboard, doing: "give the terminal back its modes") }
        }
        var effects = prompt.handle(.start)
        var tried = ""
        while true {
            var next: [SignInPrompt.Effect] = []
            for effect in effects {
                switch effect {
                case .ask(let question):
                    // Keys typed while the server was asked belong to no question: dropped.
                    tcflush(keyboard, TCIFLUSH)
                    writeAll(question, to: STDERR_FILENO)
                case .say(let text):
                    writeAll(text + "\n", to: STDERR_FILENO)
                case .logIn(let password):
                    tried = password
                    next += prompt.handle(.loggedIn(await answer("/login", username, password, address)))
                case .register(let password):
                    tried = password
                    next += prompt.handle(.registered(await answer("/register", username, password, address)))
                case .signedIn(let session):
                    return (session, tried)
                case .leave(.interrupted):
                    // As a shell reports a program Ctrl-C stopped: 128 + SIGINT.
                    throw ExitCode(128 + SIGINT)
                case .leave(.endOfInput):
                    printError("no password typed: nothing done")
                    throw ExitCode.failure
                case .leave(.failed(let reason)):
                    printError(reason)
                    throw ExitCode.failure
                }
            }
            if !next.isEmpty {
                effects = next
                continue
            }
            effects = prompt.handle(.key(try readKey(keyboard)))
            // The key that did something (Enter, Ctrl-C) ends the question's line: nothing typed
            // was echoed to end it.
            if !effects.isEmpty { writeAll("\n", to: STDERR_FILENO) }
        }
    }

    /// `POST path` with the password, as the prompt takes the answer.
    private static func answer(
        _ path: String, _ username: String, _ password: String, _ address: ServerAddress
    ) async -> SignInPrompt.Answer {
        do {
            return .session(
                try await FightClient.account(path, Credentials(username: username, password: password), at: address))
        } catch let refusal as ProtocolError where refusal.code == .unauthorized {
            return .unauthorized
        } catch let refusal as ProtocolError where refusal.code == .conflict {
            return .conflict
        } catch let refusal as ProtocolError {
            return .failed("\(username): \(refusal.message)")
        } catch {
            return .failed(ConnectionError(unreachable: address, error)?.description ?? "\(error)")
        }
    }

    /// The next byte typed; the end of the keyboard's input reads as Ctrl-D.
    private static func readKey(_ keyboard: Int32) throws -> UInt8 {
        var byte: UInt8 = 0
        while true {
            let count = read(keyboard, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return 0x04
        }
    }
}

extension Credentials {
    /// A session and the password it was signed in with.
    typealias Signed = (session: Session, password: String)
}

extension TerminalModes {
    /// Puts `descriptor` in the password prompt's mode (no echo, a key at a time, and Ctrl-C read
    /// as a key rather than sent as SIGINT, so that the prompt leaves with the terminal as it was)
    /// and returns the modes to restore, or `nil` when it is not a terminal.
    static func makeSilent(_ descriptor: Int32) throws(TerminalModeError) -> termios? {
        let doing = "turn off the terminal's echo for the password"
        guard let saved = try current(of: descriptor, doing: doing) else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        try set(silent, on: descriptor, doing: doing)
        return saved
    }
}
