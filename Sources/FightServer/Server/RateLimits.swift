import FightEngine

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
