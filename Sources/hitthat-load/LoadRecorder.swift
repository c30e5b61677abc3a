import FightEngine
import FightProtocol
import NIOConcurrencyHelpers

// MARK: - LoadRecorder

/// What every client of a load run counts, shared between them: messages, reconnects, the time
/// each punch took to reach the opponent (and whether the two were on different servers then, and
/// whether it crossed the outage), refusals, and the problems found.
///
/// Every moment is read off one monotonic clock: both clients of a fight are in this process, so
/// a push across servers is timed without comparing two machines' clocks.
final class LoadRecorder: Sendable {
    /// A fight event: the fight and its sequence.
    struct EventKey: Hashable, Sendable {
        var fight: FightID
        var sequence: Int
    }

    /// A punch on its way: when it was sent, and through which server (its index in `--server`).
    private struct Sending {
        var at: ContinuousClock.Instant
        var server: Int
    }

    /// A punch that reached the opponent.
    struct Push: Sendable {
        /// Since the run began.
        var sent: Duration
        var received: Duration
        /// Whether the sender's server was not the receiver's.
        var acrossServers: Bool

        var latency: Duration { received - sent }
    }

    private struct State {
        var counts: [String: Int] = [:]
        var punchSentAt: [EventKey: Sending] = [:]
        var pushes: [Push] = []
        var errors: [String: Int] = [:]
        var problems: [String] = []
        /// The clients in a fight under way, and how many fights there were at each sample.
        var inAFight: Set<String> = []
        var fightsAtOnce: [Int] = []
    }

    private let state = NIOLockedValueBox(State())
    let clock = ContinuousClock()
    /// When the run began: every moment in the report is counted from it.
    let start: ContinuousClock.Instant

    /// A recorder whose run begins at `start` (now unless a test says).
    init(start: ContinuousClock.Instant = ContinuousClock.now) {
        self.start = start
    }

    /// Adds `amount` to the counter `name`.
    func count(_ name: String, _ amount: Int = 1) {
        state.withLockedValue { $0.counts[name, default: 0] += amount }
    }

    /// A punch that will be event `key` if it lands, sent through server `server` at `instant`.
    func punchSent(as key: EventKey, through server: Int, at instant: ContinuousClock.Instant = .now) {
        state.withLockedValue { $0.punchSentAt[key] = Sending(at: instant, server: server) }
    }

    /// The opponent, connected to server `server`, received the pushed event `key` of a punch at
    /// `instant`. Only the first receipt counts: a fighter with two connections is pushed it twice.
    func punchReceived(_ key: EventKey, through server: Int, at instant: ContinuousClock.Instant = .now) {
        state.withLockedValue { state in
            guard let sent = state.punchSentAt.removeValue(forKey: key) else { return }
            state.pushes.append(
                Push(
                    sent: start.duration(to: sent.at), received: start.duration(to: instant),
                    acrossServers: sent.server != server))
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

    /// Client `client` is in a fight under way now, or is not.
    func client(_ client: String, isInAFight: Bool) {
        state.withLockedValue { state in
            if isInAFight { state.inAFight.insert(client) } else { state.inAFight.remove(client) }
        }
    }

    /// Notes how many fights are under way now, as half the clients in one: sampled every second
    /// while clients look for fights.
    func sampleFightsAtOnce() {
        state.withLockedValue { $0.fightsAtOnce.append($0.inAFight.count / 2) }
    }

    /// Every punch that reached its opponent so far, one line each, as CSV with a header: when it
    /// was sent and received (seconds since the run began), its latency in milliseconds, and
    /// whether it crossed servers. For plotting where in a run the slow pushes were.
    func pushesCSV() -> String {
        state.withLockedValue { state in
            var lines = ["sent_s,received_s,latency_ms,across_servers"]
            for push in state.pushes.sorted(by: { $0.sent < $1.sent }) {
                lines.append(
                    String(
                        format: "%.3f,%.3f,%.3f,%d", push.sent.milliseconds / 1000, push.received.milliseconds / 1000,
                        push.latency.milliseconds, push.acrossServers ? 1 : 0))
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// Something that must not happen: the run fails.
    func problem(_ text: String) {
        state.withLockedValue { $0.problems.append(text) }
    }

    /// The figures so far, for `clients` clients over `seconds`; the pushes whose way (from being
    /// sent to being received) met `outage` (since the run began) are reported apart.
    func report(clients: Int, seconds: Double, outage: Range<Duration>? = nil) -> LoadReport {
        state.withLockedValue { state in
            let sent = state.counts["messagesSent", default: 0]
            let received = state.counts["messagesReceived", default: 0]
            let outside = state.pushes.filter { push in outage.map { !push.met($0) } ?? true }
            return LoadReport(
                clients: clients, seconds: seconds, counts: state.counts,
                messagesPerSecond: seconds > 0 ? Double(sent + received) / seconds : 0,
                pushLatencyMs: LoadReport.Latency(state.pushes.map(\.latency)),
                pushLatencyOutsideOutageMs: LoadReport.Latency(outside.map(\.latency)),
                pushLatencyAcrossServersMs: LoadReport.Latency(outside.filter(\.acrossServers).map(\.latency)),
                pushLatencyDuringOutageMs: outage.map { window in
                    LoadReport.Latency(state.pushes.filter { $0.met(window) }.map(\.latency))
                },
                outageSeconds: outage.map { [$0.lowerBound.milliseconds / 1000, $0.upperBound.milliseconds / 1000] },
                fightsAtOnceMedian: LoadReport.Latency.percentile(0.5, of: state.fightsAtOnce.sorted()),
                fightsAtOnceMax: state.fightsAtOnce.max(),
                unprovokedErrors: state.errors, problems: state.problems)
        }
    }
}

extension LoadRecorder.Push {
    /// Whether the punch was on its way at any moment of `window`: sent before it ended and
    /// received after it began. A punch sent just before a server died and received after the
    /// clients came back is the outage's, not the steady state's.
    func met(_ window: Range<Duration>) -> Bool {
        sent < window.upperBound && received >= window.lowerBound
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
    /// Push latencies of a group of punches, in milliseconds.
    struct Latency: Encodable, Equatable {
        var count: Int
        var p50: Double?
        var p90: Double?
        var p99: Double?
        var max: Double?

        init(count: Int, p50: Double?, p90: Double?, p99: Double?, max: Double?) {
            (self.count, self.p50, self.p90, self.p99, self.max) = (count, p50, p90, p99, max)
        }

        /// The percentiles of `latencies`, in any order.
        init(_ latencies: [Duration]) {
            let sorted = latencies.sorted()
            self.init(
                count: sorted.count, p50: Self.percentile(0.5, of: sorted)?.milliseconds,
                p90: Self.percentile(0.9, of: sorted)?.milliseconds, p99: Self.percentile(0.99, of: sorted)?.milliseconds,
                max: sorted.last?.milliseconds)
        }

        /// The nearest-rank percentile `p` (0 < p ≤ 1) of `sorted`: the smallest value with at
        /// least that share of the values at or below it. `nil` for no values.
        static func percentile<Value>(_ p: Double, of sorted: [Value]) -> Value? {
            guard !sorted.isEmpty else { return nil }
            let rank = Int((p * Double(sorted.count)).rounded(.up))
            return sorted[Swift.min(sorted.count, Swift.max(1, rank)) - 1]
        }
    }

    var clients: Int
    var seconds: Double
    var counts: [String: Int]
    var messagesPerSecond: Double
    /// From a punch being sent to the opponent receiving its pushed event: every punch.
    var pushLatencyMs: Latency
    /// Those whose way met no outage (all of them when there was none).
    var pushLatencyOutsideOutageMs: Latency
    /// Of those, the punches whose two fighters were on different servers.
    var pushLatencyAcrossServersMs: Latency
    /// Those whose way met the outage, when one was given.
    var pushLatencyDuringOutageMs: Latency?
    /// The outage, in seconds since the run began.
    var outageSeconds: [Double]?
    /// Fights under way at once, sampled every second while clients looked for fights.
    var fightsAtOnceMedian: Int?
    var fightsAtOnceMax: Int?
    var unprovokedErrors: [String: Int]
    var problems: [String]

    var passed: Bool { problems.isEmpty }

    /// A few lines for a person.
    var summary: String {
        func ms(_ value: Double?) -> String { value.map { String(format: "%.1f ms", $0) } ?? "–" }
        func line(_ latency: Latency) -> String {
            "p50 \(ms(latency.p50)), p90 \(ms(latency.p90)), p99 \(ms(latency.p99)), max \(ms(latency.max)) over \(latency.count) punches"
        }
        let counted = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let errors = unprovokedErrors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var lines = [
            "\(clients) clients, \(String(format: "%.0f", seconds)) s: \(counted)",
            "messages: \(String(format: "%.0f", messagesPerSecond))/s sent and received; fights at once: median \(fightsAtOnceMedian.map(String.init) ?? "–"), most \(fightsAtOnceMax.map(String.init) ?? "–")",
            "punch pushed to the opponent: \(line(pushLatencyMs))",
        ]
        if let during = pushLatencyDuringOutageMs, let window = outageSeconds {
            lines.append("  outside the outage: \(line(pushLatencyOutsideOutageMs))")
            lines.append(
                "  during the outage (\(String(format: "%.0f–%.0f s", window[0], window[1]))): \(line(during))")
        }
        lines.append("  across servers\(outageSeconds == nil ? "" : ", outside the outage"): \(line(pushLatencyAcrossServersMs))")
        lines.append(
            "events lost (a gap no replay filled): \(counts["eventsLost", default: 0]); pushed twice: \(counts["eventsPushedTwice", default: 0]); in the log twice: \(counts["eventsLoggedTwice", default: 0])"
        )
        lines.append("errors not provoked on purpose: \(errors.isEmpty ? "none" : errors)")
        lines.append(
            problems.isEmpty
                ? "consistent: every event each client saw is in the server's log, records and statistics add up"
                : "\(problems.count) PROBLEMS:\n" + problems.prefix(50).joined(separator: "\n"))
        return lines.joined(separator: "\n")
    }
}
