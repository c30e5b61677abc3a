import FightProtocol

// MARK: - SignInPrompt

/// Asking a person for their password on the terminal and signing them in with it, as a state
/// machine: keys and the server's answers go in (`handle`), what to do comes out (`Effect`s), and
/// nothing in here reads a terminal or a socket. `hitthat play` performs the effects.
///
/// Why a machine of its own rather than getpass(3): getpass reads Ctrl-C and Ctrl-D into the
/// password, and leaves the program to exit on a password the server will refuse. Here Ctrl-C
/// and Ctrl-D leave the prompt, a password of the wrong length is asked for again with the reason,
/// and a username the server does not know is registered only once the password was typed twice
/// alike (a typo would otherwise lock the new account behind a password nobody knows).
public struct SignInPrompt: Sendable {
    /// Something that happened, for `handle`.
    public enum Event: Equatable, Sendable {
        /// Begin: ask for the password.
        case start
        /// A byte typed on the terminal (read with echo and signals off, so Ctrl-C is 0x03).
        case key(UInt8)
        /// The answer to `logIn`.
        case loggedIn(Answer)
        /// The answer to `register`.
        case registered(Answer)
    }

    /// What the server answered a sign-in, as far as the prompt cares.
    public enum Answer: Equatable, Sendable {
        /// Signed in.
        case session(Session)
        /// `/login`: no such user, or the password is not theirs (the server does not say which).
        case unauthorized
        /// `/register`: the name is taken, so the password typed was not its owner's.
        case conflict
        /// Any other refusal or failure, in words: the prompt cannot go on.
        case failed(String)
    }

    /// How the prompt was left without signing in.
    public enum Leaving: Equatable, Sendable {
        /// Ctrl-C.
        case interrupted
        /// Ctrl-D on an empty line: no password.
        case endOfInput
        /// The server refused or failed, in words.
        case failed(String)
    }

    /// Something for the caller to do, in order.
    public enum Effect: Equatable, Sendable {
        /// Show `text` as the question on a line of its own, what is typed not echoed.
        case ask(String)
        /// Say `text` on a line of its own (why the last answer was not taken).
        case say(String)
        /// `POST /login` with the password, then `loggedIn`.
        case logIn(String)
        /// `POST /register` with the password, then `registered`.
        case register(String)
        /// Signed in: play with this session.
        case signedIn(Session)
        /// Stop: nothing was signed in.
        case leave(Leaving)
    }

    /// Where the prompt stands.
    private enum Stage: Equatable {
        /// Typing the password.
        case password
        /// Waiting for `/login`'s answer.
        case loggingIn(String)
        /// Typing the password again, for an account to be made with `first`.
        case confirming(first: String)
        /// Waiting for `/register`'s answer.
        case registering(String)
        /// Over.
        case over
    }

    /// Who signs in.
    public let username: String
    /// The lengths the server takes (`Credentials.passwordLengths`, unless a test says otherwise).
    public let lengths: ClosedRange<Int>
    private var stage = Stage.password
    /// The bytes typed since the last question, as they came (UTF-8).
    private var typed: [UInt8] = []

    /// A prompt for `username`'s password.
    public init(username: String, lengths: ClosedRange<Int> = Credentials.passwordLengths) {
        self.username = username
        self.lengths = lengths
    }

    /// Whether the prompt is over (signed in or left).
    public var isOver: Bool { stage == .over }

    /// The question while the password is typed.
    public var passwordQuestion: String { "password for \(username) (Ctrl-C quits): " }
    /// What is said when the server does not take the password: it does not say whether the
    /// name is free, so both are said.
    public var notTaken: String { "no account \(username) here yet, or that is not its password." }
    /// The question while it is typed again for a new account.
    public var confirmQuestion: String { "to make the account, type the password again (Ctrl-C quits): " }

    /// Takes in `event` and returns what to do, in order.
    public mutating func handle(_ event: Event) -> [Effect] {
        switch (event, stage) {
        case (_, .over):
            return []
        case (.start, _):
            stage = .password
            typed = []
            return [.ask(passwordQuestion)]
        case (.key(let key), .password), (.key(let key), .confirming):
            return press(key)
        case (.key, _):
            // Typed while the server is asked: not part of anything asked yet.
            return []
        case (.loggedIn(let answer), .loggingIn(let password)):
            switch answer {
            case .session(let session): return finish(.signedIn(session))
            case .unauthorized:
                stage = .confirming(first: password)
                typed = []
                return [.say(notTaken), .ask(confirmQuestion)]
            case .conflict: return finish(.leave(.failed("\(username): the server answered conflict to a login")))
            case .failed(let reason): return finish(.leave(.failed(reason)))
            }
        case (.registered(let answer), .registering):
            switch answer {
            case .session(let session): return finish(.signedIn(session))
            case .conflict, .unauthorized:
                stage = .password
                typed = []
                return [.say("\(username) is someone's account, and that is not its password"), .ask(passwordQuestion)]
            case .failed(let reason): return finish(.leave(.failed(reason)))
            }
        case (.loggedIn, _), (.registered, _):
            // An answer to nothing asked: ignored.
            return []
        }
    }

    private mutating func finish(_ effect: Effect) -> [Effect] {
        stage = .over
        typed = []
        return [effect]
    }

    /// A key while a password is typed: Enter takes it, Backspace takes back a character, Ctrl-U
    /// clears the line, Ctrl-C leaves, Ctrl-D leaves on an empty line.
    private mutating func press(_ key: UInt8) -> [Effect] {
        switch key {
        case 0x03:
            return finish(.leave(.interrupted))
        case 0x04:
            return typed.isEmpty ? finish(.leave(.endOfInput)) : []
        case 0x0D, 0x0A:
            return enter()
        case 0x7F, 0x08:
            // A whole character: its continuation bytes (10xxxxxx) and the byte that leads them.
            while let last = typed.popLast(), last & 0xC0 == 0x80 {}
            return []
        case 0x15:
            typed = []
            return []
        case 0x00..<0x20:
            // Another control key (an arrow's escape, a tab): not part of a password.
            return []
        default:
            typed.append(key)
            return []
        }
    }

    private mutating func enter() -> [Effect] {
        let password = String(decoding: typed, as: UTF8.self)
        typed = []
        switch stage {
        case .password:
            guard lengths.contains(password.count) else {
                let what = password.isEmpty ? "nothing" : "\(password.count) character\(password.count == 1 ? "" : "s")"
                return [
                    .say("a password is \(lengths.lowerBound) to \(lengths.upperBound) characters; that was \(what)"),
                    .ask(passwordQuestion),
                ]
            }
            stage = .loggingIn(password)
            return [.logIn(password)]
        case .confirming(let first):
            guard password == first else {
                stage = .password
                return [.say("the two passwords differ; start again"), .ask(passwordQuestion)]
            }
            stage = .registering(password)
            return [.register(password)]
        default:
            return []
        }
    }
}
