import FightServer
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - PlayOutput

/// What `hitthat play` shows: JSON lines for scripts, or the full-screen view.
protocol PlayOutput: Sendable {
    /// Whether opponents' cards are shown (then the session asks for them).
    var showsCards: Bool { get }
    /// The connection's state changed (connected, server gone and retrying).
    func status(_ text: String)
    /// Something the client could not do (a bad command, a message not sent).
    func note(_ text: String)
    /// A message arrived; `fights` and `me` are the session's view after it.
    func show(_ message: ServerMessage, text: String, fights: [Int64: FightView], me: Int64?)
    /// The session is over: give the terminal back.
    func finish()
}

// MARK: - Script

/// `--script`: every server message as it came, one JSON line on standard output; the client's
/// own remarks on standard error.
struct ScriptOutput: PlayOutput {
    var showsCards: Bool { false }
    func status(_ text: String) { printError("status: \(text)") }
    func note(_ text: String) { printError("note: \(text)") }
    func show(_ message: ServerMessage, text: String, fights: [Int64: FightView], me: Int64?) {
        writeLine(text, to: STDOUT_FILENO)
    }
    func finish() {}
}

// MARK: - Screen

/// The full-screen view: the opponent's card, stamina bars, whose turn with the time left, the
/// punches thrown and taken (with a bell when hit), and the connection's state. Redrawn on every
/// message and once a second for the countdown.
final class ScreenOutput: PlayOutput {
    private struct State {
        var user: String
        var me: Int64?
        var fights: [Int64: FightView] = [:]
        var shown: WireMatchup?
        var cards: [Int64: FighterCard] = [:]
        var log: [String] = []
        var status = "connecting…"
        var note = ""
    }

    /// The state, shared with the task that redraws the countdown.
    private final class Shared: Sendable {
        let state: NIOLockedValueBox<State>
        init(_ state: State) { self.state = NIOLockedValueBox(state) }
    }

    private let shared: Shared
    private let terminal: RawTerminal
    private let ticker: Task<Void, Never>

    /// Takes over the terminal; keys are read from `keyboard`, which is put in raw mode (throws,
    /// drawing nothing, if it cannot be).
    init(user: String, keyboard: Int32) throws(TerminalModeError) {
        let shared = Shared(State(user: user)), terminal = try RawTerminal(keyboard: keyboard)
        self.shared = shared
        self.terminal = terminal
        ticker = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                terminal.draw(shared.state.withLockedValue { Self.render($0) })
            }
        }
    }

    var showsCards: Bool { true }

    /// The opponent on the versus screen, for the `c` key.
    var shownOpponent: Int64? { shared.state.withLockedValue { $0.shown?.opponent.id } }

    func status(_ text: String) { update { $0.status = text } }
    func note(_ text: String) { update { $0.note = text } }

    func show(_ message: ServerMessage, text: String, fights: [Int64: FightView], me: Int64?) {
        var bell = false
        update { state in
            state.fights = fights
            state.me = me
            switch message.body {
            case .welcome(let welcome): state.cards[welcome.fighter.id] = welcome.fighter
            case .profile(let reply): state.cards[reply.fighter.id] = reply.fighter
            case .opponent(let reply):
                state.shown = reply.matchup
                if let card = reply.matchup?.opponent { state.cards[card.id] = card }
                state.note = reply.matchup == nil ? "nobody else within reach" : ""
            case .event(let event):
                if let line = Self.describe(event, me: me, names: state.cards) { state.log.append(line) }
                if event.kind == "punched", event.by != me { bell = true }
            case .error(let error):
                state.note = error.message
            default:
                break
            }
            state.log = Array(state.log.suffix(10))
        }
        if bell { terminal.bell() }
    }

    func finish() {
        ticker.cancel()
        terminal.restore()
    }

    private func update(_ change: (inout State) -> Void) {
        terminal.draw(
            shared.state.withLockedValue { state in
                change(&state)
                return Self.render(state)
            })
    }

    // MARK: Rendering

    private static func render(_ state: State) -> [String] {
        var lines = ["HitThat — \(state.user)   \(state.status)", ""]
        if let shown = state.shown {
            let card = shown.opponent
            lines.append(
                "Versus: \(card.displayName) (@\(card.username))  \(String(format: "%.1f", shown.distanceKm)) km away")
            lines.append(
                "  record \(card.wins)-\(card.losses)-\(card.draws)   height \(stat(card.heightCm)) cm   weight \(stat(card.weightKg)) kg   reach \(stat(card.reachCm)) cm"
            )
            lines.append(
                "  your chance \(Int((shown.winChance * 100).rounded()))%  (odds \(String(format: "%.2f", shown.decimalOdds)))   \(edges(mine: state.me.flatMap { state.cards[$0] }, theirs: card))"
            )
            lines.append("")
        }
        let now = Int64(Date().timeIntervalSince1970)
        let fights = state.fights.values.sorted { $0.id > $1.id }
        if let fight = fights.first(where: { $0.phase != "finished" }) ?? fights.first, let me = state.me {
            let mine = fight.challenger == me
            let other = mine ? fight.opponent : fight.challenger
            let name = state.cards[other]?.displayName ?? "fighter \(other)"
            lines.append("Fight \(fight.id) against \(name): \(fight.phase)")
            lines.append("  you   \(bar(mine ? fight.staminaChallenger : fight.staminaOpponent))")
            lines.append("  them  \(bar(mine ? fight.staminaOpponent : fight.staminaChallenger))")
            switch fight.phase {
            case "active":
                let left = max(0, (fight.deadline?.timestamp.secondsSince1970 ?? now) - now)
                lines.append(
                    fight.turn == me
                        ? "  YOUR TURN — \(left) s left (j jab, u uppercut, k hook)" : "  their turn — \(left) s left")
            case "challenged":
                lines.append(fight.opponent == me ? "  challenged: a accept, d decline" : "  waiting for an answer")
            default:
                let result = fight.winner == nil ? "a draw" : fight.winner == me ? "YOU WIN" : "you lose"
                lines.append("  \(result) (\(fight.ending ?? "over"))")
            }
            lines.append("")
        }
        lines += state.log.map { "  " + $0 }
        lines += [
            "", state.note, "n next  b back down  c challenge  a accept  d decline  m quick match  f forfeit  q quit",
        ]
        return lines
    }

    private static func describe(_ event: WireEvent, me: Int64?, names: [Int64: FighterCard]) -> String? {
        func name(_ id: Int64?) -> String {
            guard let id else { return "?" }
            return id == me ? "you" : names[id]?.displayName ?? "fighter \(id)"
        }
        switch event.kind {
        case "punched":
            return
                "\(name(event.by)) threw a\(event.punch == .uppercut ? "n" : "") \(event.punch?.rawValue ?? "punch") for \(event.damage ?? 0) (stamina left \(event.staminaLeft ?? 0))"
        case "challenged": return "\(name(event.challenger)) challenged \(name(event.opponent))"
        case "accepted", "matched": return "the fight is on: \(name(event.turn)) first"
        case "turnPassed": return "the turn passed to \(name(event.turn))"
        case "ended":
            return event.winner == nil ? "a draw" : "\(name(event.winner)) won by \(event.decision ?? "decision")"
        case "declined", "expired": return "the challenge was \(event.kind)"
        case "openedRoom": return "waiting for anyone to fight…"
        default: return nil
        }
    }

    private static func stat(_ value: Int?) -> String { value.map(String.init) ?? "–" }

    /// Who has the edge on each stat: `+` you, `-` them.
    private static func edges(mine: FighterCard?, theirs: FighterCard) -> String {
        let pairs: [(String, Int?, Int?)] = [
            ("reach", mine?.reachCm, theirs.reachCm), ("weight", mine?.weightKg, theirs.weightKg),
            ("wins", mine?.wins, theirs.wins),
        ]
        return pairs.compactMap { name, a, b in
            guard let a, let b, a != b else { return nil }
            return "\(name) \(a > b ? "+you" : "+them")"
        }.joined(separator: "  ")
    }

    private static func bar(_ stamina: Int) -> String {
        let filled = max(0, min(20, stamina / 5))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: 20 - filled) + "] \(stamina)"
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
func readKeys(from keyboard: Int32, into player: PlayerSession, screen: any PlayOutput) async {
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
    for await key in keys {
        let command: String
        switch Character(Unicode.Scalar(key)) {
        case "j": command = "jab"
        case "u": command = "uppercut"
        case "k": command = "hook"
        case "n": command = "next"
        case "b": command = "back"
        case "c":
            guard let id = (screen as? ScreenOutput)?.shownOpponent else { continue }
            command = "challenge \(id)"
        case "a": command = "accept"
        case "d": command = "decline"
        case "m": command = "quick"
        case "f": command = "forfeit"
        case "q": command = "quit"
        default: continue
        }
        if await !player.perform(command) { return }
    }
    _ = await player.perform("quit")
}
