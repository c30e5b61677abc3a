import ArgumentParser
import FightClient
import FightProtocol
import Foundation
import MotionCommands
import MotionInput
import UnixSignals

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
            Keys: l set your location (type LAT,LON and Enter), n next opponent near you, b back down, \
            c challenge the one shown, a accept, d decline, m quick match (no location needed), \
            j jab, u uppercut, k hook, g guard, t teach the server your punches (with --sensor), \
            f forfeit (asks y/n), p your height, weight and reach (e.g. 180 75 182), ? the rules and \
            every key, q quit. Ctrl-C or SIGTERM quits as q does, giving the terminal back.

            Without --password or $HITTHAT_PASSWORD, the server is asked whether it is there (exit \
            status 1 if not), then the password is asked for on the terminal: again if its length is \
            not one the server takes, twice for a name that has no account yet (which registers it). \
            Ctrl-C leaves the prompt with status 130, Ctrl-D with 1.

            A punch key winds up the power meter, which sweeps up and down; the same key (or space) \
            throws when it is where you want it: 8 damage off the sweet spot, up to 44 for a jab (a \
            wide spot), 47 for a hook and 51 for an uppercut (only at the very top). The server times \
            the stop, so damage comes from what you did. g raises a guard (high, then low): high \
            halves the other's jabs and hooks, low their uppercuts; they cannot see which is up.

            Opponents (n, c) are found near your location: set it once with l or --at LAT,LON \
            (e.g. --at 48.8566,2.3522). The server keeps it, so later runs need neither.

            With --sensor, the sensor's motion is streamed to the server in each of your turns (as a \
            held punch button), and the server's detector, the one detect runs, finds the punch: its \
            kind and damage are the server's, not the client's. With --sensor FILE, a recorded trace is \
            played on from where it left off, twice as fast as it was made at most (200 samples a \
            second). With --sensor -, the trace comes on standard input (keys are then read from \
            /dev/tty); from a pipe it is live, as a controller is. With /dev/input/eventN or jsN, the \
            motion comes live from a controller, read as `hitthat listen` reads it; with --raw-events, \
            from input_event records in a FILE or on standard input. Live motion out of your turn is \
            not sent, and only the first punch of a turn counts.

            t (or the script's teach [left|right]) teaches the server your punches, out of a fight, \
            in about 20 seconds: it asks for each kind by name (throw a jab, 1 of 3; three of each), \
            each throw read from the sensor as a swing, then says what it learned (each kind's \
            punches typed back, your usual punch). From then on the server types your swings by it \
            and scales their damage by your usual punch; t teaches again at any time. teach done \
            learns from what was thrown so far; punches shows what the server keeps; forget punches \
            deletes it.

            --script is for programs: commands on standard input, one a line (hello, profile, \
            move LAT LON, next, back, challenge ID, accept ID, decline ID, quick, leave, \
            windup [FIGHT] [KIND], punch [FIGHT] KIND, jab, uppercut, hook (from the meter wound \
            up, or wound up at once), guard high|low [FIGHT], forfeit [FIGHT], fight ID, replay ID AFTER, \
            history, stats [ID], teach [left|right], teach done, punches, forget punches, quit, or a \
            raw JSON message), and every message from the server as \
            one JSON line on standard output. quit waits (up to 5 s) for the server's welcome if it has \
            not come yet and for the replies to what was sent; at the end of input it waits for its \
            fights to end. A server that cannot be reached is an error (exit status 1); a sensor that \
            cannot be read exits as detect does (65; 66 when it is not there).
            """
    )

    @Option(help: "Your username (3–20 letters, digits or underscores).")
    var user: String

    @Option(help: "Your password; otherwise $HITTHAT_PASSWORD; otherwise asked for on the terminal.")
    var password: String?

    @Option(help: "The server, ws://HOST:PORT.")
    var server = "ws://127.0.0.1:8080"

    // `.unconditional`: a southern latitude ("-33.9,18.4") is the value, not an option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Your location, sent once connected: degrees north (-90…90) and east (-180…180), e.g. 48.8566,2.3522. The server keeps it for later runs.",
            valueName: "LAT,LON"))
    var at: String?

    @Option(
        help:
            "Where punches come from: keyboard, a trace FILE, - for a trace on standard input, or an input node (/dev/input/eventN or jsN)."
    )
    var sensor = PunchOrigin.keyboard

    @Flag(
        name: .customLong("raw-events"),
        help: "The --sensor FILE or - holds raw input_event records (as `hitthat listen -` reads), not a trace.")
    var rawEvents = false

    @Flag(help: "Commands on standard input, server messages as JSON lines on standard output.")
    var script = false

    @Option(help: "The hand that throws, for teaching the server your punches (t, or teach): left or right.")
    var hand = TeachingHand.right

    @OptionGroup var traceOptions: TraceOptions
    @OptionGroup var motionOptions: MotionSourceOptions

    func validate() throws {
        guard ServerAddress(server) != nil else {
            throw ValidationError("--server: expected ws://HOST:PORT, got \(server)")
        }
        if script && sensor == .standardInput {
            throw ValidationError(
                "--script reads commands from standard input, so --sensor - cannot; give a trace FILE")
        }
        if let at {
            do {
                _ = try Location(parsing: at)
            } catch {
                throw ValidationError("--at: \(error)")
            }
        }
        if rawEvents && sensor == .keyboard {
            throw ValidationError("--raw-events: give the FILE (or -) that holds the events as --sensor")
        }
    }

    func run() throws {
        try runBlocking { try await play() }
    }

    private func play() async throws {
        guard let address = ServerAddress(server) else { throw ValidationError("--server: expected ws://HOST:PORT") }
        let keyboard = try openKeyboard()
        // A password given is tried by the session (which says so if it is refused); one asked
        // for is tried here, until it signs in, so that a typo is asked again, not fatal.
        var signedIn: Session?
        let password: String
        if let given = self.password ?? environmentPassword() {
            password = given
        } else if !script, isatty(keyboard) == 1 {
            let prompted = try await PlaySignIn.signIn(username: user, at: address, keyboard: keyboard)
            (signedIn, password) = (prompted.session, prompted.password)
        } else {
            printError("no password: give --password, set HITTHAT_PASSWORD, or run on a terminal")
            throw ExitCode.validationFailure
        }
        let motion: SensorMotion?
        do {
            motion = try sensorInput.map {
                try SensorMotion($0, trace: traceOptions.settings, motion: motionOptions.settings())
            }
        } catch {
            let failure = PlayFailure(sensor: error)
            printError("\(failure)")
            throw failure.status
        }
        // Trapped before the terminal goes raw, so that no moment is left where Ctrl-C kills the
        // process with the terminal still raw.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let output: any PlayOutput
        do {
            output = script ? ScriptOutput() : try ScreenOutput(user: user, keyboard: keyboard)
        } catch {
            // Playing on would mean keys that wait for Enter and echo over the screen.
            printError("\(error)")
            throw ExitCode.failure
        }
        var configuration = PlayerSession.Configuration(
            mode: script ? .script : .screen, username: user, server: address.description,
            hasSensor: motion != nil, showsCards: output.showsCards)
        // Each player its own pace, so that players a server restart dropped together do not
        // all come back at the same instants.
        configuration.backoff = configuration.backoff.scaled(by: .random(in: 0.75...1.25))
        configuration.hand = hand
        // The screen's log shows a fight's past after a restart; a script asks for what it wants.
        configuration.replaysPast = !script
        let player = PlayerDriver(
            address: address, credentials: Credentials(username: user, password: password), session: signedIn,
            configuration: configuration, display: output, motion: motion)
        if let location = try? at.map(Location.init(parsing:)) {
            // Queued until the server says welcome; it answers with `moved`.
            _ = await player.perform(.request(.move(location)))
        }
        let input = Task.detached {
            if script {
                await readScript(into: player, notes: output)
            } else {
                await readKeys(from: keyboard, into: player, screen: output)
            }
        }
        let session = Task { await player.run() }
        let interrupt = Task {
            for await _ in signals {
                await player.interrupt()
                return
            }
        }
        await session.value
        interrupt.cancel()
        input.cancel()
        output.finish()
        switch await player.failure {
        case nil:
            break
        case .sensor(let sensorFailure):
            // What failed tells the exit status: a trace's problem is data (65), a device's is not.
            let failure = PlayFailure(sensor: sensorFailure)
            printError("\(failure)")
            throw failure.status
        case let failure?:
            printError("\(failure)")
            throw ExitCode.failure
        }
    }

    /// Where punches come from, or `nil` for the keyboard: `MotionInput` tells a device from a
    /// trace by the path.
    private var sensorInput: SensorInput? {
        switch sensor {
        case .keyboard: nil
        case .standardInput: SensorInput(path: "-", rawEvents: rawEvents)
        case .path(let path): SensorInput(path: path, rawEvents: rawEvents)
        }
    }

    /// The descriptor keys are read from: standard input, or the terminal itself when standard input
    /// carries the sensor's data.
    private func openKeyboard() throws -> Int32 {
        guard !script, sensor == .standardInput else { return STDIN_FILENO }
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard terminal >= 0 else {
            printError(
                "--sensor -: standard input carries the trace, so keys are read from /dev/tty, which cannot be opened (\(String(cString: strerror(errno)))); run on a terminal, or use --script with a trace FILE"
            )
            throw ExitCode.failure
        }
        return terminal
    }

    private func environmentPassword() -> String? {
        getenv("HITTHAT_PASSWORD").map { String(cString: $0) }
    }
}

/// Where `play`'s punches come from, as `--sensor` names it: the keys, standard input (`-`), or
/// a path (a trace, an input node, raw events: `MotionInput`'s `SensorInput` tells which).
enum PunchOrigin: ExpressibleByArgument, Hashable {
    /// The keys thrown by hand (j, u, k): no sensor.
    case keyboard
    /// A trace, or with `--raw-events` raw events, on standard input.
    case standardInput
    /// A file or an input node.
    case path(String)

    init?(argument: String) {
        switch argument {
        case "": return nil
        case "keyboard": self = .keyboard
        case "-": self = .standardInput
        default: self = .path(argument)
        }
    }

    var defaultValueDescription: String {
        switch self {
        case .keyboard: "keyboard"
        case .standardInput: "-"
        case .path(let path): path
        }
    }
}

/// Feeds standard input's lines to the session as commands, then tells it input ended; a line that
/// is not a command is said on `notes`. The lines are read on a thread of their own, since reading
/// blocks. This is the one place a command is read from text.
private func readScript(into player: PlayerDriver, notes: any PlayerDisplay) async {
    let lines = AsyncStream<String> { continuation in
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
    }
    for await line in lines {
        let command: PlayerCommand
        do {
            guard let parsed = try PlayerCommand(parsing: line) else { continue }
            command = parsed
        } catch {
            notes.note(error.description)
            continue
        }
        if await !player.perform(command) { return }
    }
    await player.inputEnded()
}
extension TeachingHand: ExpressibleByArgument {}
