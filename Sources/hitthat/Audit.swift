import ArgumentParser
import FightEngine
import FightStore
import Foundation
import MotionCommands

/// `hitthat audit`: checks a server's SQLite file against its own event log.
struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that a server's saved fights, records and statistics add up to its event log.",
        discussion: """
            Replays every fight's events: sequences without gaps, stamina equal to the starting stamina \
            minus the damage landed, punches, endings; then each fighter's record and the statistics \
            rebuilt from the log against those kept as fights ended. Safe while the server runs (one \
            read snapshot). Exits 1 when something does not add up.
            """
    )

    @Option(help: "The SQLite file `hitthat serve` keeps everything in, or its postgres:// URL.")
    var database = "./hitthat.sqlite"

    @Option(help: "The stamina fighters start with, as the server was run.")
    var startingStamina = Rules().startingStamina

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        try reportingFailures { try runBlocking { try await audit() } }
    }

    private func audit() async throws {
        let location: StoreLocation
        do { location = try StoreLocation(parsing: database) } catch {
            printError("\(error)")
            throw Reported(status: .dataError)
        }
        // Opening a store creates the file: a mistyped path must not become an empty, "consistent" store.
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            printError("\(path): no such file")
            throw Reported(status: .dataError)
        }
        let audit: LogAudit
        do {
            audit = try await FightStore(location: location, rules: Rules(startingStamina: startingStamina)).audit()
        } catch {
            printError("\(location): cannot read: \(error)")
            throw Reported(status: .dataError)
        }
        if json {
            let report = AuditReport(
                fights: audit.fights, events: audit.events, consistent: audit.problems.isEmpty,
                problems: audit.problems)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            writeLine(String(decoding: try encoder.encode(report), as: UTF8.self), to: STDOUT_FILENO)
        } else {
            for problem in audit.problems { writeLine(problem, to: STDOUT_FILENO) }
            let verdict = audit.problems.isEmpty ? "consistent" : "\(audit.problems.count) problems"
            printError("\(location): \(audit.fights) fights, \(audit.events) events: \(verdict)")
        }
        if !audit.problems.isEmpty { throw ExitCode.failure }
    }
}

/// `hitthat audit --json`.
private struct AuditReport: Encodable {
    var fights: Int
    var events: Int
    var consistent: Bool
    var problems: [String]
}
