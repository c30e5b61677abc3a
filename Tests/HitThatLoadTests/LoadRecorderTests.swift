import FightClient
import FightEngine
import FightProtocol
import Testing

@testable import hitthat_load

/// The load run's accounting on made-up timings: percentiles, the outage's punches apart from the
/// others, pushes across servers, and events lost or logged twice.
struct LoadRecorderTests {
    let start = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    func key(_ fight: Int64, _ sequence: Int) -> LoadRecorder.EventKey {
        LoadRecorder.EventKey(fight: FightID(fight), sequence: sequence)
    }

    @Test func percentilesAreNearestRank() {
        let oneToHundred = (1...100).map { Duration.milliseconds($0) }.shuffled()
        #expect(
            LoadReport.Latency(oneToHundred) == LoadReport.Latency(count: 100, p50: 50, p90: 90, p99: 99, max: 100))
        // Of 10 values, p99 is the largest: ten values cannot tell a 99th percentile from the top.
        let ten = (1...10).map { Duration.milliseconds($0 * 10) }
        #expect(LoadReport.Latency(ten) == LoadReport.Latency(count: 10, p50: 50, p90: 90, p99: 100, max: 100))
        #expect(LoadReport.Latency([.milliseconds(7)]) == LoadReport.Latency(count: 1, p50: 7, p90: 7, p99: 7, max: 7))
        #expect(LoadReport.Latency([]) == LoadReport.Latency(count: 0, p50: nil, p90: nil, p99: nil, max: nil))
    }

    @Test func pushesAreTimedOnceAndSplitByServer() {
        let recorder = LoadRecorder(start: start)
        // Fight 1: both fighters on server 0; fight 2: the sender on 0, the receiver on 1.
        recorder.punchSent(as: key(1, 2), through: 0, at: at(1_000))
        recorder.punchReceived(key(1, 2), through: 0, at: at(1_004))
        recorder.punchSent(as: key(2, 2), through: 0, at: at(1_000))
        recorder.punchReceived(key(2, 2), through: 1, at: at(1_030))
        // Received again (a second connection): not timed twice.
        recorder.punchReceived(key(2, 2), through: 1, at: at(1_500))
        // Refused: it never arrives, and is not waited for.
        recorder.punchSent(as: key(2, 3), through: 0, at: at(2_000))
        recorder.punchRefused(key(2, 3), .stale)
        recorder.punchReceived(key(2, 3), through: 1, at: at(9_000))
        // Received without having been sent (the opponent's session threw it before a reconnect
        // the bot's count did not see): nothing to time.
        recorder.punchReceived(key(3, 2), through: 1, at: at(3_000))

        let report = recorder.report(clients: 4, seconds: 10)
        #expect(report.pushLatencyMs == LoadReport.Latency(count: 2, p50: 4, p90: 30, p99: 30, max: 30))
        #expect(report.pushLatencyAcrossServersMs == LoadReport.Latency(count: 1, p50: 30, p90: 30, p99: 30, max: 30))
        #expect(report.pushLatencyOutsideOutageMs == report.pushLatencyMs, "no outage given: every punch is outside")
        #expect(report.pushLatencyDuringOutageMs == nil)
        #expect(report.unprovokedErrors == ["stale": 1])
    }

    @Test func pushesAreWrittenOneLineEachInTheOrderSent() {
        let recorder = LoadRecorder(start: start)
        recorder.punchSent(as: key(2, 2), through: 0, at: at(2_500))
        recorder.punchReceived(key(2, 2), through: 1, at: at(2_530))
        recorder.punchSent(as: key(1, 2), through: 1, at: at(1_000))
        recorder.punchReceived(key(1, 2), through: 1, at: at(1_004))
        // Refused: never pushed, so not a line.
        recorder.punchSent(as: key(1, 3), through: 1, at: at(1_200))
        recorder.punchRefused(key(1, 3), .stale)
        #expect(
            recorder.pushesCSV() == """
                sent_s,received_s,latency_ms,across_servers
                1.000,1.004,4.000,0
                2.500,2.530,30.000,1

                """)
    }

    @Test func punchesOnTheirWayDuringTheOutageAreReportedApart() {
        let recorder = LoadRecorder(start: start)
        let outage = Duration.seconds(10)..<Duration.seconds(20)
        // Sent just before the kill, received after the clients came back: the outage's.
        recorder.punchSent(as: key(1, 2), through: 0, at: at(9_990))
        recorder.punchReceived(key(1, 2), through: 1, at: at(14_000))
        // Sent and received inside it (the other server's own fights go on).
        recorder.punchSent(as: key(2, 2), through: 1, at: at(12_000))
        recorder.punchReceived(key(2, 2), through: 1, at: at(12_003))
        // Sent in its last moment: the outage's; sent as it ended: not.
        recorder.punchSent(as: key(3, 2), through: 1, at: at(19_900))
        recorder.punchReceived(key(3, 2), through: 0, at: at(20_000))
        recorder.punchSent(as: key(3, 3), through: 0, at: at(20_000))
        recorder.punchReceived(key(3, 3), through: 1, at: at(20_050))
        // Well before and well after.
        recorder.punchSent(as: key(4, 2), through: 0, at: at(5_000))
        recorder.punchReceived(key(4, 2), through: 0, at: at(5_010))
        recorder.punchSent(as: key(4, 3), through: 1, at: at(25_000))
        recorder.punchReceived(key(4, 3), through: 0, at: at(25_070))

        let report = recorder.report(clients: 8, seconds: 30, outage: outage)
        #expect(report.pushLatencyMs.count == 6)
        #expect(report.pushLatencyDuringOutageMs == LoadReport.Latency(count: 3, p50: 100, p90: 4_010, p99: 4_010, max: 4_010))
        #expect(report.pushLatencyOutsideOutageMs == LoadReport.Latency(count: 3, p50: 50, p90: 70, p99: 70, max: 70))
        #expect(report.pushLatencyAcrossServersMs == LoadReport.Latency(count: 2, p50: 50, p90: 70, p99: 70, max: 70))
        #expect(report.outageSeconds == [10, 20])
        #expect(report.summary.contains("during the outage (10–20 s): p50 100.0 ms"))
    }

    @Test func messagesPerSecondCountBothWays() {
        let recorder = LoadRecorder(start: start)
        recorder.count("messagesSent", 300)
        recorder.count("messagesReceived", 500)
        #expect(recorder.report(clients: 2, seconds: 4).messagesPerSecond == 200)
        #expect(recorder.report(clients: 2, seconds: 0).messagesPerSecond == 0)
    }

    @Test func fightsAtOnceAreHalfTheClientsInOne() {
        let recorder = LoadRecorder(start: start)
        recorder.sampleFightsAtOnce()
        // Four clients in fights, one of them said twice: two fights.
        for client in ["a", "b", "c", "d", "a"] { recorder.client(client, isInAFight: true) }
        recorder.sampleFightsAtOnce()
        // One fight ends for one fighter before the other hears of it: still one fight, not one and a half.
        recorder.client("c", isInAFight: false)
        recorder.sampleFightsAtOnce()
        let report = recorder.report(clients: 6, seconds: 3)
        #expect(report.fightsAtOnceMax == 2)
        #expect(report.fightsAtOnceMedian == 1, "samples 0, 2, 1")
    }

    @Test func aGapNoReplayFilledIsLost() {
        // The client first heard of the fight at 3 (it took the state then); 6 never came.
        #expect(LogAccounting(logged: Array(1...8), seen: [3, 4, 5, 7, 8]) == LogAccounting(lost: [6], loggedTwice: []))
        // Everything from its first event on: nothing lost.
        #expect(LogAccounting(logged: Array(1...5), seen: [2, 3, 4, 5]).lost == [])
        // The last events never came: lost too.
        #expect(LogAccounting(logged: Array(1...5), seen: [1, 2]).lost == [3, 4, 5])
        // Nothing received: it knew the fight only by its state, which is compared apart.
        #expect(LogAccounting(logged: Array(1...5), seen: []).lost == [])
        // Events skipped by taking the fight's state at 4 (after a stale punch): not lost; what
        // came after it and never arrived is.
        #expect(LogAccounting(logged: Array(1...8), seen: [1, 5, 7, 8], stateTakenAt: 4).lost == [6])
        // One sequence twice in the log: an event applied twice.
        #expect(LogAccounting(logged: [1, 2, 2, 3, 3, 3], seen: [1, 2, 3]) == LogAccounting(lost: [], loggedTwice: [2, 3]))
    }

    @Test func clientsAreSpreadRoundRobinAndTheFirstOnesFight() {
        #expect((0..<6).map { LoadPlan.home(ofClient: $0, servers: 2) } == [0, 1, 0, 1, 0, 1])
        #expect((0..<4).map { LoadPlan.home(ofClient: $0, servers: 1) } == [0, 0, 0, 0])
        #expect((0..<4).map { LoadPlan.fights(client: $0, fighting: 2) } == [true, true, false, false])
    }

    @Test func withFailoverAClientGoesOnToTheNextServer() async throws {
        // Two ports where nothing listens: each server is tried once, in turn.
        let nobody = [ServerAddress(host: "127.0.0.1", port: 1), ServerAddress(host: "127.0.0.1", port: 2)]
        let credentials = Credentials(username: "nobody", password: "nobody-password")
        for (failover, expected) in [(false, 0), (true, 1)] {
            let connector = LoadConnector(addresses: nobody, home: 0, credentials: credentials, failover: failover)
            let ending = await connector.connectAndRead(opened: { _, _ in true }, received: { _ in true })
            guard case .notConnected(.unreachable) = ending else {
                Issue.record("expected unreachable, got \(ending)")
                continue
            }
            #expect(await connector.current == expected)
        }
    }
}
