import FightClient
import FightEngine
import FightProtocol
import Foundation
import MotionCommands
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - PlayOutput

/// What `hitthat play` shows: JSON lines for scripts, or the full-screen view.
protocol PlayOutput: PlayerDisplay {
    /// Whether opponents' cards are shown (then the session asks for them).
    var showsCards: Bool { get }
    /// The session is over: give the terminal back.
    func finish()
}

// MARK: - Script

/// `--script`: every server message as it came, one JSON line on standard output; the client's
/// own remarks on standard error.
struct ScriptOutput: PlayOutput {
    var showsCards: Bool { false }
    func status(_ status: ConnectionStatus) { printError("status: \(status)") }
    func note(_ text: String) { printError("note: \(text)") }
    func show(
        _ message: ServerMessage, text: String, fights: [FightID: FightView], me: FighterID?, answersPlayer: Bool
    ) {
        writeLine(text, to: STDOUT_FILENO)
    }
    func finish() {}
}

// MARK: - Screen

/// The full-screen view of a `ScreenModel`: the opponent's card, stamina bars, whose turn with the
/// time left, the punches thrown and taken (with a bell when hit), and the connection's state.
/// Redrawn on every message and once a second for the countdown.
final class ScreenOutput: PlayOutput {
    /// The model, shared with the task that redraws the countdown.
    private final class Shared: Sendable {
        let model: NIOLockedValueBox<ScreenModel>
        init(_ model: ScreenModel) { self.model = NIOLockedValueBox(model) }
    }

    private let shared: Shared
    private let terminal: RawTerminal
    private let ticker: Task<Void, Never>

    /// Takes over the terminal; keys are read from `keyboard`, which is put in raw mode (throws,
    /// drawing nothing, if it cannot be).
    init(user: String, keyboard: Int32) throws(TerminalModeError) {
        let shared = Shared(ScreenModel(user: user)), terminal = try RawTerminal(keyboard: keyboard)
        self.shared = shared
        self.terminal = terminal
        ticker = Task.detached {
            // A sweeping meter is drawn 20 times a second, from the moment it is wound up; the
            // countdown needs a redraw once a second.
            var drawn = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(50))
                let sweeping = shared.model.withLockedValue { $0.meter != nil }
                guard sweeping || ContinuousClock.now - drawn >= .seconds(1) else { continue }
                drawn = .now
                terminal.draw(shared.model.withLockedValue { $0.lines(now: Self.now, at: .now) })
            }
        }
    }

    var showsCards: Bool { true }

    /// The opponent on the versus screen, for the `c` key.
    var shownOpponent: FighterID? { shared.model.withLockedValue { $0.shown?.opponent.id } }
    /// Whom `r` challenges again: the opponent of the fight just over.
    var rematchOpponent: FighterID? { shared.model.withLockedValue { $0.rematchOpponent } }
    /// The kind the power meter sweeps for, if one is wound up: a punch key then throws.
    var aiming: PunchType? { shared.model.withLockedValue { $0.meter?.kind } }
    /// Whether a fight of the player's is under way, so that `q` asks before leaving it.
    var fightUnderWay: Bool { shared.model.withLockedValue { $0.fights.values.contains { $0.phase == .active } } }
    /// Whether the server is there, so that a key says so when it is not.
    var isConnected: Bool { shared.model.withLockedValue { $0.isConnected } }

    /// The request that sets the player's height, weight and reach, keeping the rest of their card.
    func profileUpdate(_ stats: ProfileStats) -> ClientRequest? {
        shared.model.withLockedValue { $0.profileUpdate(stats) }
    }

    /// Shows the rules in place of the log (`show` true), or the log again.
    func showRules(_ show: (Bool) -> Bool) { update { $0.showsRules = show($0.showsRules) } }

    func status(_ status: ConnectionStatus) { update { $0.setStatus(status, at: Self.now) } }
    func note(_ text: String) { update { $0.note = text } }
    func meter(_ meter: AimedMeter?) { update { $0.meter = meter } }

    /// Shows `prompt` on the input line in place of the key bar, or the key bar again for `nil`.
    func ask(_ prompt: String?) { update { $0.prompt = prompt } }

    func show(
        _ message: ServerMessage, text: String, fights: [FightID: FightView], me: FighterID?, answersPlayer: Bool
    ) {
        var bell = false
        update { bell = $0.apply(message, answersPlayer: answersPlayer, fights: fights, me: me) }
        if bell { terminal.bell() }
    }

    func finish() {
        ticker.cancel()
        terminal.restore()
    }

    private static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    private func update(_ change: (inout ScreenModel) -> Void) {
        terminal.draw(
            shared.model.withLockedValue { model in
                change(&model)
                return model.lines(now: Self.now, at: .now)
            })
    }
}

// MARK: - Terminal

/// A terminal's modes could not be read or set: the keys would then wait for Enter and be echoed
/// over the screen, or the shell would get the terminal back still raw.
struct TerminalModeError: Error, CustomStringConvertible {
    /// What was being done ("put the terminal in raw mode").
    var doing: String
    /// The call that failed and why, or what the terminal showed instead.
    var reason: String

    var description: String { "cannot \(doing): \(reason)" }
}

/// tcgetattr and tcsetattr on a descriptor, retried when a signal interrupts them and checked.
enum TerminalModes {
    /// The modes of `descriptor`, or `nil` when it is not a terminal (a pipe, a file).
    static func current(of descriptor: Int32, doing: String) throws(TerminalModeError) -> termios? {
        var modes = termios()
        while tcgetattr(descriptor, &modes) != 0 {
            if errno == EINTR { continue }
            // What isatty(3) takes for "not a terminal": files and pipes answer ENOTTY, some
            // other descriptors (an eventfd, say) EINVAL.
            if errno == ENOTTY || errno == EINVAL { return nil }
            throw TerminalModeError(doing: doing, reason: "tcgetattr: \(String(cString: strerror(errno)))")
        }
        return modes
    }

    /// Sets `modes` on `descriptor` and reads them back. tcsetattr reports success when it made
    /// any one of the changes, so only the modes read back show that the local ones (ICANON, ECHO,
    /// …) all took.
    static func set(_ modes: termios, on descriptor: Int32, doing: String) throws(TerminalModeError) {
        var wanted = modes
        while tcsetattr(descriptor, TCSANOW, &wanted) != 0 {
            if errno == EINTR { continue }
            throw TerminalModeError(doing: doing, reason: "tcsetattr: \(String(cString: strerror(errno)))")
        }
        guard let now = try current(of: descriptor, doing: doing) else {
            throw TerminalModeError(doing: doing, reason: "the descriptor is no longer a terminal")
        }
        guard now.c_lflag == modes.c_lflag else {
            let (got, wanted) = (String(now.c_lflag, radix: 8), String(modes.c_lflag, radix: 8))
            throw TerminalModeError(doing: doing, reason: "its local modes read back as \(got), not \(wanted)")
        }
    }

    /// Puts `descriptor` in raw mode (no echo, a key at a time; Ctrl-C still sends SIGINT) and
    /// returns the modes to restore, or `nil` when it is not a terminal and there is nothing to do.
    static func makeRaw(_ descriptor: Int32) throws(TerminalModeError) -> termios? {
        let doing = "put the terminal in raw mode"
        guard let saved = try current(of: descriptor, doing: doing) else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        try set(raw, on: descriptor, doing: doing)
        return saved
    }
}

/// The terminal in raw mode on the alternate screen, given back by `restore()`. After that nothing
/// more is drawn, so a late redraw cannot land on the shell's screen.
final class RawTerminal: Sendable {
    private struct State {
        var keyboard: Int32
        var saved: termios?
        var active = true
    }
    private let state: NIOLockedValueBox<State>

    /// Puts `keyboard` in raw mode and switches standard output to the alternate screen with the
    /// cursor hidden. Raw mode is in place, read back, before anything is drawn; if it cannot be
    /// set this throws and the screen is left alone.
    init(keyboard: Int32) throws(TerminalModeError) {
        let saved = try TerminalModes.makeRaw(keyboard)
        state = NIOLockedValueBox(State(keyboard: keyboard, saved: saved))
        writeAll("\u{1B}[?1049h\u{1B}[?25l", to: STDOUT_FILENO)
    }

    /// Replaces the screen with `lines`.
    func draw(_ lines: [String]) {
        writeIfActive("\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n"))
    }

    func bell() { writeIfActive("\u{07}") }

    /// Shows the cursor, leaves the alternate screen and puts the keyboard back as it was.
    func restore() {
        state.withLockedValue { state in
            guard state.active else { return }
            state.active = false
            writeAll("\u{1B}[?25h\u{1B}[?1049l", to: STDOUT_FILENO)
            guard let saved = state.saved else { return }
            do {
                try TerminalModes.set(saved, on: state.keyboard, doing: "give the terminal back its modes")
            } catch {
                // Off the alternate screen by now, so this stays on the shell's screen.
                printError("\(error); `stty sane` resets it")
            }
        }
    }

    private func writeIfActive(_ text: String) {
        state.withLockedValue { state in
            if state.active { writeAll(text, to: STDOUT_FILENO) }
        }
    }
}

/// Turns keys read from `keyboard` into the session's commands until `q` or the end of input.
func readKeys(from keyboard: Int32, into player: PlayerDriver, screen: any PlayOutput) async {
    let keys = AsyncStream<UInt8> { continuation in
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(keyboard, &byte, 1)
                if count == 1 {
                    continuation.yield(byte)
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            continuation.finish()
        }
    }
    let screen = screen as? ScreenOutput
    var reader = KeyReader()
    for await key in keys {
        let command: PlayerCommand
        let pressed = reader.press(
            key, fightUnderWay: screen?.fightUnderWay ?? false, aiming: screen?.aiming,
            connected: screen?.isConnected ?? true)
        switch pressed {
        case .nothing:
            screen?.ask(reader.prompt)
            continue
        case .note(let text):
            screen?.note(text)
            // The question may have started afresh (a location that is not one): show it so.
            screen?.ask(reader.prompt)
            continue
        case .toggleRules:
            screen?.showRules { !$0 }
            continue
        case .closeRules:
            screen?.showRules { _ in false }
            continue
        case .updateStats(let stats):
            screen?.ask(reader.prompt)
            guard let request = screen?.profileUpdate(stats) else {
                screen?.note("profile: your card has not come from the server yet; try again in a moment")
                continue
            }
            command = .request(request)
        case .challengeShown:
            guard let id = screen?.shownOpponent else {
                screen?.note("nobody to challenge yet: n shows the next opponent")
                continue
            }
            command = .request(.challenge(OpponentRef(opponent: id)))
        case .rematch:
            guard let id = screen?.rematchOpponent else {
                screen?.note("no fight over to ask for a rematch of")
                continue
            }
            command = .request(.challenge(OpponentRef(opponent: id)))
        case .command(let typed):
            command = typed
        }
        screen?.ask(reader.prompt)
        if await !player.perform(command) { return }
    }
    _ = await player.perform(.quit)
}
