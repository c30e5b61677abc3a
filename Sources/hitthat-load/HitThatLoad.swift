import ArgumentParser
import FightClient
import FightProtocol
import Foundation

/// `hitthat-load`: many scripted players against one server or several, then a check that nothing
/// was lost.
@main
struct HitThatLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hitthat-load",
        abstract: "Play many fights at once against a HitThat server, then check that nothing was lost.",
        discussion: """
            Each client registers, queues for quick matches and punches in turn (after a pause of about \
            --think-ms), for --seconds; then it finishes the fights it is in. With --disconnects, clients \
            drop their connection now and then and come back with hello and replay; with --bad-messages, \
            they mix in malformed JSON, unknown types, oversized messages, wrong tokens, punches in other \
            fights, punches stating their damage and duplicate punches, each of which must be answered with its \
            typed error. The server may be killed and restarted meanwhile (tools/soak.sh does): clients \
            retry until it is back.

            With --server given more than once (servers sharing one PostgreSQL), clients are spread over \
            them round-robin; quick match pairs whoever waited longest, wherever they are, so about half of \
            the fights with two servers are between them. With --failover, a client whose server does not \
            answer goes to the next one. With --fighting, only that many clients fight; the others stay \
            connected and idle. --outage-start and --outage-end (seconds since the run began) name a \
            window, such as a server killed and restarted, whose punches are reported apart.

            At the end every client checks over a fresh connection that each fight event it saw is in the \
            server's log unchanged, that the server's state of its fights is the one it followed, and that \
            its record and statistics add up to its fights. Prints the figures (punch push latency \
            percentiles: from the punch being sent to the opponent receiving it) and exits 1 on any problem.
            """
    )

    @Option(help: "A server, ws://HOST:PORT; give it again for more servers (clients are spread round-robin).")
    var server: [String] = ["ws://127.0.0.1:8080"]

    @Option(help: "Clients (players) at once.")
    var clients = 200

    @Option(help: "Clients that fight (at most --clients, the default); the others stay connected and idle.")
    var fighting: Int?

    @Flag(help: "A client whose server does not answer connects to the next --server (servers sharing a database).")
    var failover = false

    @Option(help: "Seconds since the start when an outage began: punches on their way during it are reported apart.")
    var outageStart: Double?

    @Option(help: "Seconds since the start when the outage ended (the clients back).")
    var outageEnd: Double?

    @Option(help: "Seconds during which clients look for new fights.")
    var seconds = 60.0

    @Option(help: "Mean pause, in milliseconds, before each punch: each is 0.5 to 1.5 times it, uniform (2000: 1–3 s).")
    var thinkMs = 300

    @Option(help: "Chance, for each message a client receives, that it drops its connection.")
    var disconnects = 0.0

    @Option(help: "Chance, each turn, that a client also sends a bad message.")
    var badMessages = 0.0

    @Option(help: "Seconds after --seconds to finish open fights before forfeiting them.")
    var grace = 120.0

    @Option(help: "Username prefix (letters and digits); a random one by default, so runs do not meet.")
    var prefix: String?

    @Option(help: "Also write every punch pushed (sent, received, latency, across servers) to this CSV file.")
    var pushes: String?

    @Flag(help: "Print the report as JSON on standard output.")
    var json = false

    func validate() throws {
        for server in server where ServerAddress(server) == nil {
            throw ValidationError("--server: expected ws://HOST:PORT, got \(server)")
        }
        guard clients >= 2 else { throw ValidationError("--clients: expected at least 2, got \(clients)") }
        if let fighting, !(0...clients).contains(fighting) {
            throw ValidationError("--fighting: expected 0 to --clients (\(clients)), got \(fighting)")
        }
        switch (outageStart, outageEnd) {
        case (nil, nil): break
        case (let start?, let end?) where 0 <= start && start < end: break
        default: throw ValidationError("--outage-start and --outage-end: expected both, 0 ≤ start < end")
        }
        guard seconds > 0, grace > 0 else { throw ValidationError("--seconds and --grace: expected positive numbers") }
        guard thinkMs >= 0 else { throw ValidationError("--think-ms: expected 0 or more, got \(thinkMs)") }
        for (name, chance) in [("--disconnects", disconnects), ("--bad-messages", badMessages)]
        where !(0...1).contains(chance) {
            throw ValidationError("\(name): expected a chance from 0 to 1, got \(chance)")
        }
        if let prefix,
            prefix.isEmpty || prefix.count > 12 || !prefix.allSatisfy({ $0.isASCII && $0.isLetter || $0.isNumber })
        {
            throw ValidationError("--prefix: expected 1 to 12 letters or digits, got \(prefix)")
        }
    }

    func run() async throws {
        let addresses = server.compactMap(ServerAddress.init)
        guard addresses.count == server.count else { throw ExitCode.validationFailure }
        let recorder = LoadRecorder()
        let start = recorder.start
        let plan = LoadPlan(
            stopMatching: start + .seconds(seconds), giveUp: start + .seconds(seconds + grace),
            think: .milliseconds(thinkMs), disconnectChance: disconnects, mischiefChance: badMessages)
        let runName = prefix ?? "L" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        var bots: [LoadBot] = []
        for index in 0..<clients {
            let credentials = Credentials(username: "\(runName)_\(index)", password: "load-\(runName)-password")
            let connector = LoadConnector(
                addresses: addresses, home: LoadPlan.home(ofClient: index, servers: addresses.count),
                credentials: credentials, failover: failover)
            bots.append(
                await LoadBot(
                    credentials: credentials, connector: connector,
                    fights: LoadPlan.fights(client: index, fighting: fighting ?? clients), plan: plan,
                    recorder: recorder))
        }
        let sampler = Task {
            while !Task.isCancelled, recorder.clock.now < plan.stopMatching {
                try? await Task.sleep(for: .seconds(1))
                recorder.sampleFightsAtOnce()
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for bot in bots { group.addTask { await bot.play() } }
        }
        sampler.cancel()
        let played = start.duration(to: recorder.clock.now).milliseconds / 1000
        // Checked once every client is done, so that no fight moves while it is being compared.
        await withTaskGroup(of: Void.self) { group in
            for bot in bots { group.addTask { await bot.verify() } }
        }
        let outage = outageStart.flatMap { start in
            outageEnd.map { end in Duration.seconds(start)..<Duration.seconds(end) }
        }
        let report = recorder.report(clients: clients, seconds: played, outage: outage)
        if let pushes {
            do {
                try recorder.pushesCSV().write(toFile: pushes, atomically: true, encoding: .utf8)
            } catch {
                FileHandle.standardError.write(Data("hitthat-load: --pushes \(pushes): \(error)\n".utf8))
                throw ExitCode.failure
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.summary)
        }
        if !report.passed { throw ExitCode.failure }
    }
}
