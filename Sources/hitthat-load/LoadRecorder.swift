import FightEngine
import FightProtocol
import NIOConcurrencyHelpers

// MARK: - LoadRecorder

/// What every client of a load run counts, shared between them: messages, reconnects, the time
/// each punch took to reach the opponent, refusals, and the problems found.
final class LoadRecorder: Sendable {
    /// A fight event: the fight and its sequence.
    struct EventKey: Hashable, Sendable {
        var fight: FightID
        var sequence: Int
    }

    private struct State {
        var counts: [String: Int] = [:]
        var punchSentAt: [EventKey: ContinuousClock.Instant] = [:]
        var pushLatencies: [Duration] = []
        var errors: [String: Int] = [:]
        var problems: [String] = []
    }

    private let state = NIOLockedValueBox(State())
    let clock = ContinuousClock()

    /// Adds `amount` to the counter `name`.
    func count(_ name: String, _ amount: Int = 1) {
        state.withLockedValue { $0.counts[name, default: 0] += amount }
    }

    /// A punch that will be event `key` if it lands, sent now.
    func punchSent(as key: EventKey) {
        let now = clock.now
        state.withLockedValue { $0.punchSentAt[key] = now }
    }

    /// The opponent received the pushed event `key` of a punch now.
    func punchReceived(_ key: EventKey) {
        let now = clock.now
        state.withLockedValue { state in
            guard let sent = state.punchSentAt.removeValue(forKey: key) else { return }
            state.pushLatencies.append(sent.duration(to: now))
        }
    }

    /// The punch that would have been event `key` was refused with `code`: it will not arrive.
    func punchRefused(_ key: EventKey, _ code: ProtocolError.Code) {
        state.withLockedValue { state in
            state.punchSentAt[key] = nil
            state.errors[code.rawValue, default: 0] += 1
        }
    }

    /// An error the server sent that nobody provoked on purpose (legitimate races such as a punch
    /// that went stale across a reconnect land here too; they are reported, not failures).
    func error(_ code: ProtocolError.Code) {
        state.withLockedValue { $0.errors[code.rawValue, default: 0] += 1 }
    }

    /// Something that must not happen: the run fails.
    func problem(_ text: String) {
        state.withLockedValue { $0.problems.append(text) }
    }

    /// The figures so far.
    func report(clients: Int, seconds: Double) -> LoadReport {
        state.withLockedValue { state in
            let sorted = state.pushLatencies.sorted()
            func percentile(_ p: Double) -> Double? {
                guard !sorted.isEmpty else { return nil }
                let index = min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)
                return sorted[max(0, index)].milliseconds
            }
            let sent = state.counts["messagesSent", default: 0]
            let received = state.counts["messagesReceived", default: 0]
            return LoadReport(
                clients: clients, seconds: seconds, counts: state.counts,
                messagesPerSecond: seconds > 0 ? Double(sent + received) / seconds : 0,
                pushLatencyMs: LoadReport.Latency(
                    count: sorted.count, p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99),
                    max: sorted.last?.milliseconds),
                unprovokedErrors: state.errors, problems: state.problems)
        }
    }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}

// MARK: - LoadReport

/// The outcome of a load run, printed at the end.
struct LoadReport: Encodable {
    struct Latency: Encodable {
        var count: Int
        var p50: Double?
        var p90: Double?
        var p99: Double?
        var max: Double?
    }

    var clients: Int
    var seconds: Double
    var counts: [String: Int]
    var messagesPerSecond: Double
    /// From a punch being sent to the opponent receiving its pushed event.
    var pushLatencyMs: Latency
    var unprovokedErrors: [String: Int]
    var problems: [String]

    var passed: Bool { problems.isEmpty }

    /// A few lines for a person.
    var summary: String {
        func ms(_ value: Double?) -> String { value.map { String(format: "%.1f ms", $0) } ?? "–" }
        let counted = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let errors = unprovokedErrors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return """
            \(clients) clients, \(String(format: "%.0f", seconds)) s: \(counted)
            messages: \(String(format: "%.0f", messagesPerSecond))/s sent and received
            punch pushed to the opponent: p50 \(ms(pushLatencyMs.p50)), p90 \(ms(pushLatencyMs.p90)), \
            p99 \(ms(pushLatencyMs.p99)), max \(ms(pushLatencyMs.max)) over \(pushLatencyMs.count) punches
            errors not provoked on purpose: \(errors.isEmpty ? "none" : errors)
            \(problems.isEmpty ? "consistent: every event each client saw is in the server's log, records and statistics add up" : "\(problems.count) PROBLEMS:\n" + problems.prefix(50).joined(separator: "\n"))
            """
    }
}
