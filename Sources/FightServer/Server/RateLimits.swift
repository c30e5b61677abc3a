import FightEngine
import FightStore
import NIOConcurrencyHelpers
import NIOPosix

// MARK: - RateLimiter

/// A token bucket: `perSecond` messages (or samples) a second on average, bursts of up to `burst`.
///
/// Time is passed in (`ServerClock.elapsed`), so that tests move it.
struct RateLimiter: Hashable, Sendable {
    let perSecond: Int
    let burst: Int
    private var tokens: Double
    private var last: Duration?

    init(perSecond: Int, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
        tokens = Double(burst)
    }

    /// Takes `cost` tokens at `now` if there are that many (a message costs 1, a batch of samples
    /// its samples).
    mutating func allow(at now: Duration, cost: Int = 1) -> Bool {
        tokens = tokens(at: now)
        last = Swift.max(last ?? now, now)  // a reading that went back refills nothing, later either
        guard tokens >= Double(cost) else { return false }
        tokens -= Double(cost)
        return true
    }

    /// Whether the bucket has refilled by `now`: then it is as good as a new one.
    func isFull(at now: Duration) -> Bool { tokens(at: now) >= Double(burst) }

    private func tokens(at now: Duration) -> Double {
        guard let last, now > last else { return tokens }
        let elapsed = (now - last) / .seconds(1)
        return min(Double(burst), tokens + elapsed * Double(perSecond))
    }
}

// MARK: - RateLimits

/// One bucket a key: a fighter's messages, shared by all their connections, so that opening more
/// sockets does not buy more messages; a fighter's motion samples, so that a client cannot stream
/// a sensor much faster than real time; or an address's account requests (`/register`, `/login`),
/// so that one machine cannot guess passwords, or make the server hash them, without pause.
struct RateLimits<Key: Hashable & Sendable>: Sendable {
    let perSecond: Int
    let burst: Int
    private var buckets: [Key: RateLimiter] = [:]
    /// The number of buckets at which full ones are next dropped.
    private var pruneAt = 1024

    init(perSecond: Int, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Takes `cost` of `key`'s tokens at `now` if there are that many.
    mutating func allow(_ key: Key, at now: Duration, cost: Int = 1) -> Bool {
        var bucket = buckets[key] ?? RateLimiter(perSecond: perSecond, burst: burst)
        let allowed = bucket.allow(at: now, cost: cost)
        buckets[key] = bucket
        if buckets.count >= pruneAt {
            // A bucket that has refilled is the same as none: dropping those keeps one bucket per
            // key active lately, not per key ever seen. Doubling the mark keeps it cheap.
            buckets = buckets.filter { !$0.value.isFull(at: now) }
            pruneAt = max(1024, 2 * buckets.count)
        }
        return allowed
    }

    /// How many keys have a bucket.
    var count: Int { buckets.count }
}

// MARK: - FighterAllowance

/// One kind of every fighter's allowance (their messages, their motion samples), over all their
/// connections.
///
/// A server alone on its database (SQLite) keeps the buckets in memory, by its monotonic clock. On
/// a database several servers share (PostgreSQL), the bucket is a row there, taken from in one
/// statement by whichever server the message came to, by the servers' common clock
/// (`ServerClock.sinceEpoch`): a fighter connected to two servers at once is held to the one
/// limit. Splitting the limit between the servers (each allowing 1/N) would need no database, but
/// would hold a fighter on one server to a fraction of it: a sensor streamed at its own pace
/// would be refused.
///
/// A server takes a quarter of the burst at a time from the row and spends it message by message
/// (its reserve), asking the database again when the reserve runs short: a round trip every few
/// messages, not every one. What a reserve holds was taken from the bucket, so over all servers a
/// fighter never gets more than the one limit; a reserve left on one server is only held back
/// from the others (at most a quarter of the burst, until the fighter sends there again).
final class FighterAllowance: Sendable {
    /// What is counted, as the database names the bucket: `messages` or `motion`.
    let kind: String
    let perSecond: Int
    let burst: Int
    private let clock: ServerClock
    private let keeper: Keeper

    private enum Keeper: Sendable {
        case inMemory(NIOLockedValueBox<RateLimits<FighterID>>)
        case inDatabase(FightStore, NIOLockedValueBox<Reserves>)
    }

    /// What this server has taken from each fighter's bucket in the database and not spent yet.
    private struct Reserves {
        var held: [FighterID: (tokens: Int, lastUsed: Duration)] = [:]
        /// The number of reserves at which those unused for a while are next dropped.
        var pruneAt = 1024
    }

    /// How much a server takes from a bucket in the database at once: a quarter of the burst.
    var takenAhead: Int { max(1, burst / 4) }

    /// How long a reserve is kept unused: dropping one only holds its tokens back for good, as if
    /// spent, so those of fighters gone quiet can go.
    static let reserveKept: Duration = .seconds(60)

    /// An allowance of `perSecond` on average and `burst` at once, kept where `store` says.
    init(_ kind: String, perSecond: Int, burst: Int, store: FightStore, clock: ServerClock) {
        self.kind = kind
        self.perSecond = perSecond
        self.burst = burst
        self.clock = clock
        keeper =
            store.isShared
            ? .inDatabase(store, NIOLockedValueBox(Reserves()))
            : .inMemory(NIOLockedValueBox(RateLimits(perSecond: perSecond, burst: burst)))
    }

    /// Takes `cost` of `fighter`'s allowance now if there is that much; on a shared database it
    /// may await the database, unless the reserve pays for it.
    /// - Throws: the database's failure.
    func allow(_ fighter: FighterID, cost: Int = 1) async throws -> Bool {
        switch keeper {
        case .inMemory(let buckets):
            let now = clock.elapsed()
            return buckets.withLockedValue { $0.allow(fighter, at: now, cost: cost) }
        case .inDatabase(let store, let reserves):
            let now = clock.elapsed()
            guard let held = spend(cost, of: fighter, from: reserves, at: now) else { return true }
            let missing = cost - held
            let taken = try await store.takeAllowance(
                kind, of: fighter, wanting: max(missing, takenAhead), atLeast: missing, perSecond: perSecond,
                burst: burst, at: clock.sinceEpoch())
            // The reserve as it is now (another connection of the fighter's may have moved it),
            // with what was taken: nothing taken is lost, whether or not it pays for this message.
            return reserves.withLockedValue { reserves in
                let total = (reserves.held[fighter]?.tokens ?? 0) + taken
                let allowed = total >= cost
                reserves.held[fighter] = (allowed ? total - cost : total, now)
                if reserves.held.count >= reserves.pruneAt {
                    reserves.held = reserves.held.filter { now - $0.value.lastUsed < Self.reserveKept }
                    reserves.pruneAt = max(1024, 2 * reserves.held.count)
                }
                return allowed
            }
        }
    }

    /// Spends `cost` from the reserve of `fighter` when it holds that much.
    /// - Returns: `nil` when spent; otherwise what the reserve holds, short of `cost`.
    private func spend(
        _ cost: Int, of fighter: FighterID, from reserves: NIOLockedValueBox<Reserves>, at now: Duration
    ) -> Int? {
        reserves.withLockedValue { reserves in
            let held = reserves.held[fighter]?.tokens ?? 0
            guard held >= cost else { return held }
            reserves.held[fighter] = (held - cost, now)
            return nil
        }
    }
}
