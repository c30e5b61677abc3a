import Foundation
import Glibc
import Testing

// MARK: - Tmux

/// A tmux server of the test's own (`tmux -S SOCKET`, no config file), whose sessions run full-screen
/// `hitthat play` clients at a fixed size. Call `kill()` when done (in a `defer`).
///
/// tmux is started with posix_spawn, not `Process`: the command that starts the server forks it
/// as a daemon, which keeps every descriptor it inherits. From `Process` it would inherit the socket
/// by which Foundation learns that its child ended, so the child would count as running (and
/// `waitUntilExit()` would wait) as long as the server lives; and it would inherit the test
/// runner's blocked signals, with which neither the server nor the clients in it die on SIGHUP.
/// So each tmux gets /dev/null as input, a file as output, no other descriptor, default signals,
/// and every wait has a deadline.
final class Tmux: Sendable {
    /// tmux on the PATH, if installed.
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/tmux" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// Whether to run the tmux tests: tmux is installed, or HITTHAT_REQUIRE_TMUX=1 (CI) says they must
    /// run, and then fail without it.
    static let isAvailable: Bool = {
        if executable != nil || ProcessInfo.processInfo.environment["HITTHAT_REQUIRE_TMUX"] == "1" { return true }
        print("note: skipping the terminal tests: tmux is not installed (apt: tmux)")
        return false
    }()

    /// The server's socket, unique to this test (removed by `kill()`: tmux leaves it behind).
    let socket = FileManager.default.temporaryDirectory.appendingPathComponent(
        "hitthat-tmux-\(getpid())-\(UUID().uuidString.prefix(8))"
    ).path
    /// The size of every session's terminal.
    let width: Int
    let height: Int

    /// A server whose sessions are `width`×`height`: roomy by default, 80×24 to see what a small
    /// terminal shows.
    init(width: Int = 100, height: Int = 40) {
        self.width = width
        self.height = height
    }

    // MARK: Sessions

    /// Starts session `name` running the shell command line `command` in the package's root, with
    /// `environment` added. When the command ends, its exit status is printed (see `exitStatus(of:)`)
    /// and `then` runs, by default a wait that lasts until `kill()`.
    ///
    /// The shell must outlive what it prints: tmux can drop the last output of a pane whose process
    /// has ended (it asks the pty with FIONREAD whether anything is left, and on Linux that can
    /// still read 0 while the kernel is passing the data on), and on CI the "exit status" line was
    /// lost that way (tmux/tmux#3107 reports the same with an `echo` after the command).
    func start(
        _ name: String, command: String, environment: [String: String] = [:], then: String = "exec sleep 3600"
    ) async throws {
        var arguments = [
            "set-option", "-g", "remain-on-exit", "on", ";",
            "new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", "-c", packageRoot.path,
        ]
        for (key, value) in environment { arguments += ["-e", "\(key)=\(value)"] }
        try await run(arguments + [command + #"; echo "exit status $?"; "# + then])
    }

    /// Types `keys` into session `name` (tmux key names: `m`, `C-c`, `Enter`).
    func send(_ keys: String..., to name: String) async throws {
        try await run(["send-keys", "-t", name] + keys)
    }

    /// The text on session `name`'s screen, after the lines scrolled off it if `history`. With
    /// `joined`, a line that wrapped comes back whole (`capture-pane -J`), so that its width shows.
    func screen(_ name: String, history: Bool = false, joined: Bool = false) async throws -> String {
        try await run(["capture-pane", "-p", "-t", name] + (history ? ["-S", "-"] : []) + (joined ? ["-J"] : []))
    }

    /// `format` (e.g. `#{pane_tty}`) expanded for session `name`'s pane.
    func show(_ format: String, of name: String) async throws -> String {
        try await run(["display-message", "-p", "-t", name, format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits (up to `seconds`: a guard against hanging, not a speed check) until `matches` holds
    /// for session `name`'s screen.
    @discardableResult
    func wait<T>(
        for what: String, on name: String, history: Bool = false, seconds: Double = 30,
        _ matches: (_ screen: String) -> T?
    ) async throws -> T {
        let deadline = Date().addingTimeInterval(seconds)
        var screen = ""
        repeat {
            screen = try await self.screen(name, history: history)
            if let found = matches(screen) { return found }
            try await Task.sleep(for: .milliseconds(50))
        } while Date() < deadline
        // A last look: on a loaded machine the sleep can outlast the deadline.
        screen = try await self.screen(name, history: history)
        if let found = matches(screen) { return found }
        throw TestFailure("timed out waiting for \(what) on \(name)'s screen:\n\(screen)")
    }

    /// Waits until session `name`'s command has ended, and returns the exit status printed after it,
    /// read from the screen and what scrolled off it.
    func exitStatus(of name: String, seconds: Double = 30) async throws -> Int {
        try await wait(for: "the end of the command", on: name, history: true, seconds: seconds) { screen in
            screen.split(separator: "\n").lazy.compactMap { line in
                line.hasPrefix("exit status ") ? Int(line.dropFirst("exit status ".count)) : nil
            }.last
        }
    }

    /// Stops the server and everything running in it.
    func kill() {
        guard let (process, output) = try? launch(["kill-server"]) else { return }
        defer {
            unlink(output)
            unlink(socket)
        }
        for _ in 0..<100 {
            if exitStatus(process) != nil { return }
            usleep(50_000)
        }
        Glibc.kill(process, SIGKILL)
        _ = exitStatus(process)
    }

    // MARK: Running tmux

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), which the Glibc module leaves out.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// Runs one tmux command line (commands may be chained with `;`) and returns what it printed.
    @discardableResult
    private func run(_ arguments: [String], seconds: Double = 10) async throws -> String {
        let (process, output) = try launch(arguments)
        defer { unlink(output) }
        let deadline = Date().addingTimeInterval(seconds)
        var status = exitStatus(process)
        while status == nil && Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
            status = exitStatus(process)
        }
        guard let status else {
            Glibc.kill(process, SIGKILL)
            _ = exitStatus(process)
            throw TestFailure("tmux \(arguments.joined(separator: " ")) did not finish in \(seconds) s")
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw TestFailure("tmux \(arguments.joined(separator: " ")): exit status \(status): \(text)")
        }
        return text
    }

    /// The exit status of `process` once it has ended (reaping it), or `nil` while it runs.
    private func exitStatus(_ process: pid_t) -> Int32? {
        var status: Int32 = 0
        guard waitpid(process, &status, WNOHANG) == process else { return nil }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
    }

    /// Starts tmux with `arguments`; returns its process id and the file it writes to.
    private func launch(_ arguments: [String]) throws -> (process: pid_t, output: String) {
        guard let executable = Self.executable else {
            throw TestFailure("tmux is not installed, and HITTHAT_REQUIRE_TMUX=1 says these tests must run (apt: tmux)")
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        _ = Self.addCloseFrom?(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var environment = ProcessInfo.processInfo.environment
        // Inside a tmux of the user's own, these would point the commands at it.
        environment["TMUX"] = nil
        environment["TMUX_PANE"] = nil
        let argv = ([executable, "-S", socket, "-f", "/dev/null"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var process: pid_t = 0
        let error = posix_spawn(&process, executable, &actions, &attributes, argv, envp)
        guard error == 0 else { throw TestFailure("cannot start tmux: \(String(cString: strerror(error)))") }
        return (process, output)
    }
}
