import ArgumentParser
import FightServer
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `hitthat play`: a player's terminal client for `hitthat serve`.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fight on a HitThat server from the terminal.",
        discussion: """
            Logs in as --user (registering the name if it is free) and shows the fight full-screen: the \
            opponent's card, both stamina bars, whose turn it is with the time left, and each punch. \
            Keys: n next opponent, b back down, c challenge the one shown, a accept, d decline, \
            m quick match, j jab, u uppercut, k hook (damage 10, the original's button), f forfeit, q quit. \
            With --sensor FILE or -, punches are detected in a trace and the next one is thrown when it \
            is your turn; with /dev/input/eventN, live from a controller.

            --script is for programs: commands on standard input, one a line (hello, profile, \
            move LAT LON, next, back, challenge ID, accept ID, decline ID, quick, leave, \
            punch [FIGHT] KIND [DAMAGE], jab, uppercut, hook, forfeit [FIGHT], fight ID, replay ID AFTER, \
            history, stats [ID], quit, or a raw JSON message), and every message from the server as \
            one JSON line on standard output. At the end of input it waits for its fights to end.
            """
    )

    @Option(help: "Your username (3–20 letters, digits or underscores).")
    var user: String

    @Option(help: "Your password; otherwise $HITTHAT_PASSWORD; otherwise asked for on the terminal.")
    var password: String?

    @Option(help: "The server, ws://HOST:PORT.")
    var server = "ws://127.0.0.1:8080"

    @Option(
        help: "Where punches come from: keyboard, a trace FILE, - for a trace on standard input, or /dev/input/eventN.")
    var sensor = "keyboard"

    @Flag(help: "Commands on standard input, server messages as JSON lines on standard output.")
    var script = false

    @OptionGroup var traceOptions: TraceOptions
    @OptionGroup var detectorOptions: DetectorOptions

    func validate() throws {
        guard ServerAddress(server) != nil else {
            throw ValidationError("--server: expected ws://HOST:PORT, got \(server)")
        }
        if script && sensor == "-" {
            throw ValidationError(
                "--script reads commands from standard input, so --sensor - cannot; give a trace FILE")
        }
    }

    func run() throws {
        try runBlocking { try await play() }
    }

    private func play() async throws {
        guard let address = ServerAddress(server) else { throw ValidationError("--server: expected ws://HOST:PORT") }
        guard let password = password ?? environmentPassword() ?? askPassword() else {
            printError("no password: give --password, set HITTHAT_PASSWORD, or run on a terminal")
            throw ExitCode.validationFailure
        }
        let punches: PunchFeed?
        switch sensor {
        case "keyboard": punches = nil
        default:
            punches = try PunchFeed.open(sensor, traceOptions: traceOptions, detector: detectorOptions.configuration)
        }
        let output: any PlayOutput = script ? ScriptOutput() : ScreenOutput(user: user)
        let player = PlayerSession(
            address: address, credentials: Credentials(username: user, password: password), punches: punches,
            output: output)
        let input = Task.detached {
            if script { await readScript(into: player) } else { await readKeys(into: player, screen: output) }
        }
        await player.run()
        input.cancel()
        output.finish()
        if let failure = await player.failure {
            printError(failure)
            throw ExitCode.failure
        }
    }

    private func environmentPassword() -> String? {
        getenv("HITTHAT_PASSWORD").map { String(cString: $0) }
    }

    private func askPassword() -> String? {
        guard isatty(STDIN_FILENO) == 1, !script, let typed = getpass("password for \(user): ") else { return nil }
        return String(cString: typed)
    }
}

/// Feeds standard input's lines to the session as commands, then tells it input ended. The
/// lines are read on a thread of their own, since reading blocks.
private func readScript(into player: PlayerSession) async {
    let lines = AsyncStream<String> { continuation in
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
    }
    for await line in lines {
        if await !player.perform(line) { return }
    }
    await player.inputEnded()
}
