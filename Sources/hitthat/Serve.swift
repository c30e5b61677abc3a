import ArgumentParser
import FightProtocol
import FightServer
import FightStore
import Glibc
import Logging
import MotionCommands
import NIOCore

/// `hitthat serve`: the fight server.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve fights over HTTP and WebSocket (see docs/PROTOCOL.md).",
        discussion: """
            Fighters, fights, accounts and sessions are kept in one SQLite file, or on a PostgreSQL server \
            (--database postgres://USER@HOST/DATABASE, or postgres://USER@/DATABASE?host=/SOCKET/FOLDER; \
            in a build with the PostgreSQL trait); a restart resumes every fight. SIGINT or SIGTERM stops \
            the server gracefully. The page at / plays from a browser; a phone gives it motion and \
            location only over HTTPS (--tls-cert, --tls-key).
            """
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 for any free one; the log says which).")
    var port = 8080

    @Option(help: "The SQLite file to keep everything in, or a postgres:// URL.")
    var database = "./hitthat.sqlite"

    @Option(
        help: ArgumentHelp(
            "What an acknowledged command survives: process-crash (kill -9; the default) or power-loss (an fsync a command).",
            valueName: "durability"))
    var durability = Durability.processCrash

    @Option(help: "Seconds a fighter has to punch before the turn passes.")
    var turnTimeout: Int64 = 60

    @Option(help: "PBKDF2 rounds for new passwords.")
    var passwordRounds = PasswordHash.defaultRounds

    @Option(help: "Days a session token lasts unused; each use starts them again. Then the client logs in again.")
    var sessionDays = Int(ServerConfiguration.defaultSessionLifetime / 86_400)

    @Option(
        help:
            "Account requests (register and login together) one address may make at once; then one a second (--account-rate)."
    )
    var accountBurst = ServerConfiguration().accountRequestBurst

    @Option(help: "Account requests one address may make each second on average, after --account-burst.")
    var accountRate = ServerConfiguration().accountRequestsPerSecond

    @Option(
        help:
            "Motion samples one fighter may stream each second on average (and twice that at once, for a hold's lead-in), by the server's clock: a sensor's pace, not much faster."
    )
    var motionRate = ServerConfiguration().motionSamplesPerSecond

    @Option(
        help:
            "This server's name among those sharing a PostgreSQL database, kept over its restarts so that one restarted alone resumes the turns; unique to each (default: this machine's name and --port; none with --port 0)."
    )
    var name: String?

    @Option(help: ArgumentHelp("A PEM certificate (chain) to serve HTTPS and WSS with; needs --tls-key.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port: expected 0 to 65535, got \(port)") }
        guard turnTimeout > 0 else {
            throw ValidationError("--turn-timeout: expected a positive number of seconds, got \(turnTimeout)")
        }
        guard passwordRounds > 0 else {
            throw ValidationError("--password-rounds: expected a positive number, got \(passwordRounds)")
        }
        guard accountBurst > 0, accountRate > 0 else {
            throw ValidationError("--account-burst, --account-rate: expected positive numbers")
        }
        guard motionRate >= MotionLimits.samplesPerBatch else {
            throw ValidationError(
                "--motion-rate: expected at least \(MotionLimits.samplesPerBatch) (one full batch), got \(motionRate)")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key: expected both (HTTPS) or neither (HTTP)")
        }
        guard (1...36_500).contains(sessionDays) else {
            throw ValidationError("--session-days: expected 1 to 36500 days, got \(sessionDays)")
        }
        if let name, name.isEmpty || name.count > 200 || name.contains(where: \.isWhitespace) {
            throw ValidationError("--name: expected 1 to 200 characters and no spaces, got \"\(name)\"")
        }
        do { _ = try StoreLocation(parsing: database) } catch { throw ValidationError("--database: \(error)") }
    }

    func run() throws {
        try reportingFailures { try runBlocking { try await serve() } }
    }

    private func serve() async throws {
        var logger = Logger(label: "hitthat.serve")
        logger.logLevel = logLevel
        var configuration = ServerConfiguration(
            host: host, port: port, databasePath: database, durability: durability, passwordRounds: passwordRounds,
            sessionLifetime: Int64(sessionDays) * 86_400)
        configuration.rules.turnTimeout = turnTimeout
        configuration.accountRequestBurst = accountBurst
        configuration.accountRequestsPerSecond = accountRate
        configuration.motionSamplesPerSecond = motionRate
        configuration.motionSampleBurst = 2 * motionRate
        configuration.name = name
        if let tlsCert, let tlsKey { configuration.tls = TLSFiles(certificateChain: tlsCert, privateKey: tlsKey) }
        let secure = configuration.tls != nil
        // Named without a password a URL may hold, since it is logged.
        let named = (try? StoreLocation(parsing: database))?.description ?? database
        let server: FightServer
        do {
            server = try await FightServer(configuration: configuration, logger: logger) { [logger, host] port in
                logger.notice(
                    "serving",
                    metadata: [
                        "address": "\(secure ? "wss" : "ws")://\(host):\(port)",
                        "page": "\(secure ? "https" : "http")://\(host):\(port)/", "database": "\(named)",
                    ])
            }
        } catch let error as TLSFilesError {
            printError(error.description)
            throw Reported(status: .dataError)
        } catch {
            printError("\(named): cannot open: \(error)")
            throw Reported(status: .dataError)
        }
        do {
            try await server.run()
        } catch let error as IOError where [EADDRINUSE, EACCES, EADDRNOTAVAIL].contains(error.errnoCode) {
            printError("\(host):\(port): cannot listen there: " + Self.listenFailure(error.errnoCode))
            throw Reported(status: error.errnoCode == EACCES ? .noPermission : .unavailable)
        } catch let error as ServerNameInUse {
            printError(error.description)
            throw Reported(status: Self.nameInUse)
        }
        logger.notice("stopped")
    }
}

extension Serve {
    /// The exit status of a server whose name another is serving under (EX_CONFIG).
    static let nameInUse = ExitCode(78)

    /// Why a server cannot listen at its address, and what to do, for the errors a person meets.
    static func listenFailure(_ code: CInt) -> String {
        switch code {
        case EADDRINUSE: "the port is in use (another server, or one still stopping): stop it, or give another --port"
        case EACCES: "permission denied (ports below 1024 need root): give a --port of 1024 or more"
        default: "no such address on this machine: give --host 127.0.0.1, 0.0.0.0 or one of its own addresses"
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension Durability: ExpressibleByArgument {}
