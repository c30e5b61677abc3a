import FightEngine
import FightStore
import Testing

@testable import FightServer

/// The sessions a server keeps in memory stay bounded, and a session that ended is not kept.
@Suite struct SessionCacheTests {
    static func session(_ number: Int, usedAt time: Timestamp) -> SavedSession {
        SavedSession(key: "key-\(number)", fighter: FighterID(Int64(number)), createdAt: time)
    }

    @Test func pastItsLimitTheSessionsUnusedForAnHourAreSweptOut() {
        let start = Timestamp(secondsSince1970: 1_764_400_000)
        var cache = SessionCache(limit: 4)
        for number in 0..<5 { cache.keep(Self.session(number, usedAt: start), at: start) }
        #expect(cache.live.count == 5, "all in use: none swept, and the next sweep waits for twice as many")
        let later = start + Accounts.useNotedEvery
        for number in 5..<11 { cache.keep(Self.session(number, usedAt: later), at: later) }
        #expect(cache.live.count == 6, "the first five, unused for an hour, went at the sweep")
        #expect(cache.live.keys.allSatisfy { Int($0.dropFirst(4))! >= 5 })
        // However many sessions come and go, the cache holds at most twice the limit or twice
        // what is in use.
        var time = later
        for number in 11..<1_000 {
            time = time + 60
            cache.keep(Self.session(number, usedAt: time), at: time)
            #expect(cache.live.count <= 2 * max(4, 60) + 1)
        }
    }

    @Test func anEndedSessionIsForgottenAndCounted() {
        let now = Timestamp(secondsSince1970: 1_764_400_000)
        var cache = SessionCache(limit: 4)
        cache.keep(Self.session(1, usedAt: now), at: now)
        cache.end("key-1")
        cache.end("key-never-kept")
        #expect(cache.live.isEmpty)
        #expect(cache.ended == 2)
        var used = Self.session(1, usedAt: now + 100)
        cache.update(used)
        #expect(cache.live.isEmpty, "a use noted after the end does not bring it back")
        used.lastUsedAt = now + 200
        cache.keep(used, at: now + 200)
        cache.update(Self.session(1, usedAt: now + 300))
        #expect(cache.live["key-1"]?.lastUsedAt == now + 300)
    }
}
