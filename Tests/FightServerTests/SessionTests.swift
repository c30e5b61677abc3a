import FightClient
import FightEngine
import FightProtocol
import Foundation
import GRDB
import Testing

@testable import FightServer

/// Sessions lapse when unused, end at `logout`, and a fighter's messages are limited over all
/// their connections together.
@Suite struct SessionTests {
    static let day: Int64 = 86_400

    @Test func aTokenLapsesWhenUnusedForTheLifetimeAndEachUseStartsItAgain() async throws {
        let clock = TestClock()
        var server = try await TestServer.start(clock: clock)
        let alice = try await Player.join("alice", at: server)
        let session = alice.client.session
        clock.advance(by: 20 * Self.day)
        #expect(try await alice.request(.profile(ProfileRequest())).error == nil)  // a use, noted
        await alice.close()
        try await server.stop()

        // The use was saved, not only remembered: 40 days after the login, 20 after the use.
        server = try await TestServer.start(databasePath: server.databasePath, clock: clock)
        clock.advance(by: 20 * Self.day)
        let again = try await Player.connect(session, to: server.address)
        #expect(try await again.request(.profile(ProfileRequest())).error == nil)

        clock.advance(by: 30 * Self.day)
        let lapsed = try #require(try await again.request(.profile(ProfileRequest())).error)
        #expect(lapsed.code == .unauthorized)
        #expect(lapsed.reason == .known(.sessionExpired))
        #expect(lapsed.field == "token")
        #expect(lapsed.message == "token: the session lapsed after 30 days unused; log in again")

        let renewed = try await Player.join("alice", at: server)  // logs in again
        #expect(renewed.token != session.token)
        #expect(try await renewed.request(.profile(ProfileRequest())).error == nil)
        try await server.stop()
    }

    @Test func aLogoutClosesEveryConnectionThatBeganWithTheTokenAndRefusesIt() async throws {
        let clock = TestClock()
        var server = try await TestServer.start(clock: clock)
        let first = try await Player.join("alice", at: server)
        let session = first.client.session
        let second = try await Player.connect(session, to: server.address)
        let elsewhere = try await Player.join("alice", at: server)  // another login: another session
        let bob = try await Player.join("bob", at: server)

        let ref = try await first.client.send(.logout)
        let answer = try await first.reply(to: ref)
        #expect(answer.body == .loggedOut)
        _ = try await first.closed()
        let told = try await second.next("loggedOut") { $0.body == .loggedOut }
        #expect(told.ref == nil)
        _ = try await second.closed()

        // The fighter's other session, and other fighters, go on; the token is refused.
        #expect(try await elsewhere.request(.profile(ProfileRequest())).error == nil)
        #expect(try await bob.request(.profile(ProfileRequest())).error == nil)
        let late = try await Player.connect(session, to: server.address)
        let refused = try #require(try await late.request(.profile(ProfileRequest())).error)
        #expect(refused.code == .unauthorized && refused.reason == nil)
        #expect(try await late.request(.logout).error?.code == .unauthorized)
        try await server.stop()

        server = try await TestServer.start(databasePath: server.databasePath, clock: clock)
        let afterRestart = try await Player.connect(session, to: server.address)
        #expect(try await afterRestart.request(.profile(ProfileRequest())).error?.code == .unauthorized)
        try await server.stop()
    }

    /// A logout the file cannot record is said to have failed, and changes nothing: the token
    /// works on, here and after a restart alike, and the logout can be asked again.
    @Test func aLogoutTheFileCannotRecordFailsAndTheTokenWorksOn() async throws {
        let clock = TestClock()
        var server = try await TestServer.start(clock: clock)
        let alice = try await Player.join("alice", at: server)
        let file = try DatabaseQueue(path: server.databasePath)
        try await file.write { db in
            try db.execute(
                sql:
                    "CREATE TRIGGER keep_sessions BEFORE DELETE ON sessions BEGIN SELECT RAISE(ABORT, 'disk full'); END"
            )
        }
        let failed = try #require(try await alice.request(.logout).error)
        #expect(failed.code == .internalError && failed.message == "could not log out; try again")
        #expect(try await alice.request(.profile(ProfileRequest())).error == nil, "the token works on")
        await alice.close()
        try await server.stop()

        server = try await TestServer.start(databasePath: server.databasePath, clock: clock)
        let again = try await Player.connect(alice.client.session, to: server.address)
        #expect(try await again.request(.profile(ProfileRequest())).error == nil, "after a restart too")
        try await file.write { db in try db.execute(sql: "DROP TRIGGER keep_sessions") }
        #expect(try await again.request(.logout).body == .loggedOut, "asked again, it is done")
        try await server.stop()
    }

    /// `/register` and `/login` share one allowance an address, measured by the server's clock:
    /// past it they are refused as `rateLimited` (HTTP 429) before any password is hashed.
    @Test func accountRequestsAreLimitedByAddress() async throws {
        let clock = TestClock()
        let server = try await TestServer.start(clock: clock, accountRequestsPerSecond: 1, accountRequestBurst: 3)
        let stranger = Credentials(username: "mallory", password: "guess0001")
        func attempt(_ path: String) async -> ProtocolError.Code? {
            do {
                _ = try await FightClient.account(path, stranger, at: server.address)
                return nil
            } catch {
                return (error as? ProtocolError)?.code
            }
        }
        #expect(await attempt("/login") == .unauthorized)
        #expect(await attempt("/login") == .unauthorized)
        #expect(await attempt("/register") == nil, "registered: the third of three")
        #expect(await attempt("/login") == .rateLimited)
        #expect(await attempt("/register") == .rateLimited, "one allowance for both")
        let (status, body) = try await HTTPExchange.send(
            .POST, "/login", body: MessageCodec.encode(stranger), to: server.address)
        #expect(status == 429)
        #expect(body.contains("account request a second from this address"))
        clock.advance(by: 1)
        let session = try await FightClient.account("/login", stranger, at: server.address)
        #expect(session.fighter.username == "mallory", "a second later, one more")
        try await server.stop()
    }

    @Test func aFightersMessagesAreLimitedOverAllTheirConnections() async throws {
        let clock = TestClock()
        let server = try await TestServer.start(clock: clock, messagesPerSecond: 1, messageBurst: 5)
        let one = try await Player.join("alice", at: server)
        let two = try await Player.join("alice", at: server)  // a second socket, and a second session
        let bob = try await Player.join("bob", at: server)
        // Alice's two `hello`s took two of her five; each connection alone has four left.
        var refs: [(Player, Int)] = []
        for player in [one, two, one, two, one, two] {
            refs.append((player, try await player.client.send(.profile(ProfileRequest()))))
        }
        var limited = 0
        for (player, ref) in refs {
            let reply = try await player.reply(to: ref)
            if reply.error?.code == .rateLimited {
                limited += 1
                #expect(reply.error?.message.contains("on all their connections") == true)
            }
        }
        #expect(limited == 6 - 3)
        #expect(try await bob.request(.profile(ProfileRequest())).error == nil)  // his own allowance
        clock.advance(by: 1)
        #expect(try await two.request(.profile(ProfileRequest())).error == nil)
        try await server.stop()
    }

    @Test func messagesWithoutAGoodTokenAreLimitedByTheirConnection() async throws {
        let clock = TestClock()
        let server = try await TestServer.start(clock: clock, messagesPerSecond: 1, messageBurst: 5)
        let alice = try await Player.join("alice", at: server)  // `hello` took one of the connection's five
        let bad =
            #"{"ref":REF,"token":"0000000000000000000000000000000000000000000000000000000000000000","type":"hello","v":1}"#
        var codes: [ProtocolError.Code] = []
        for ref in 100..<108 {
            try await alice.client.sendRaw(bad.replacingOccurrences(of: "REF", with: "\(ref)"))
            codes.append(try #require(try await alice.reply(to: ref).error?.code))
        }
        #expect(codes == Array(repeating: .unauthorized, count: 4) + Array(repeating: .rateLimited, count: 4))
        try await server.stop()
    }

    /// docs/PROTOCOL.md states the server's defaults in words; they are these.
    @Test func theProtocolDocumentStatesTheDefaults() throws {
        let document = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/PROTOCOL.md"),
            encoding: .utf8)
        let defaults = ServerConfiguration()
        #expect(document.contains("until it has gone unused for \(defaults.sessionLifetime / 86_400) days"))
        #expect(
            document.contains(
                "\(defaults.messagesPerSecond) a second on average, in bursts of up to \(defaults.messageBurst)"))
        #expect(
            document.contains(
                "\(defaults.accountRequestBurst) at once, then \(defaults.accountRequestsPerSecond) a second"))
    }

    // MARK: - The buckets

    @Test func aBucketRefillsAtItsRateUpToItsBurst() {
        var bucket = RateLimiter(perSecond: 2, burst: 3)
        let start = Duration.seconds(100)
        func take(_ count: Int, at moment: Duration) -> [Bool] { (0..<count).map { _ in bucket.allow(at: moment) } }
        #expect(take(4, at: start) == [true, true, true, false])
        #expect(take(2, at: start + .milliseconds(500)) == [true, false])  // one back after half a second
        #expect(!bucket.isFull(at: start + .seconds(1)))
        #expect(bucket.isFull(at: start + .seconds(2)))
        #expect(take(4, at: start + .seconds(60)) == [true, true, true, false])
        #expect(take(1, at: start + .seconds(59)) == [false])  // time that goes back gives nothing
        #expect(take(1, at: start + .seconds(60)) == [false])  // nor does it count twice after
    }

    @Test func fightersHaveABucketEachAndFullOnesAreDropped() {
        var limits = RateLimits<FighterID>(perSecond: 1, burst: 1)
        // Fighter 1's one token is spent; fighter 2 has a bucket of their own.
        let first = [FighterID(1), FighterID(1), FighterID(2)].map { limits.allow($0, at: .zero) }
        #expect(first == [true, false, true])
        for n in 3...2_000 { _ = limits.allow(FighterID(Int64(n)), at: .seconds(n)) }
        // At 1,024 buckets, all but the one just used had refilled, and were dropped.
        #expect(limits.count < 1_024)
        let latest = limits.allow(FighterID(2_000), at: .seconds(2_000))
        #expect(!latest)  // the bucket used last is kept
    }
}
