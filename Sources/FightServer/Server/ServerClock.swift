import FightEngine
import Foundation

// MARK: - ServerClock

/// Where the server reads the time and how often it looks for deadlines that have come.
///
/// The engine never reads a clock; the server does, through this, so tests can move time
/// forward (a turn timeout of 60 s passes in a few milliseconds) instead of sleeping.
public struct ServerClock: Sendable {
    /// The current moment.
    public var now: @Sendable () -> Timestamp
    /// Time since some fixed start, finer than `now` and never going back: what message rates
    /// are measured by.
    public var elapsed: @Sendable () -> Duration
    /// Time since 1970, finer than `now`: what rates are measured by when several servers share
    /// them (a fighter's allowance kept in PostgreSQL), since each process's `elapsed` starts at
    /// its own start. Servers' clocks kept by NTP agree to a few milliseconds; one that reads
    /// earlier than the last refill refills nothing.
    public var sinceEpoch: @Sendable () -> Duration
    /// How often turn timeouts and challenge expiries are looked for. Deadlines are whole
    /// seconds, so a quarter of a second is late by at most that much.
    public var tick: Duration

    /// Creates a clock; `elapsed` is the system's monotonic clock and `sinceEpoch` its wall
    /// clock unless given.
    public init(
        tick: Duration = .milliseconds(250), elapsed: @escaping @Sendable () -> Duration = Self.monotonic,
        sinceEpoch: @escaping @Sendable () -> Duration = Self.wall, now: @escaping @Sendable () -> Timestamp
    ) {
        self.now = now
        self.elapsed = elapsed
        self.sinceEpoch = sinceEpoch
        self.tick = tick
    }

    /// The system's wall clock, to the microsecond.
    @Sendable public static func wall() -> Duration {
        .microseconds(Int64((Date().timeIntervalSince1970 * 1_000_000).rounded(.down)))
    }

    /// The system's wall clock.
    public static let system = ServerClock {
        Timestamp(secondsSince1970: Int64(Date().timeIntervalSince1970.rounded(.down)))
    }

    /// The system's monotonic clock, from the first time it was read.
    @Sendable public static func monotonic() -> Duration {
        let start = monotonicStart
        return ContinuousClock.now - start
    }
    private static let monotonicStart = ContinuousClock.now
}
