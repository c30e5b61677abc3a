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
    /// How often turn timeouts and challenge expiries are looked for. Deadlines are whole
    /// seconds, so a quarter of a second is late by at most that much.
    public var tick: Duration

    /// Creates a clock.
    public init(tick: Duration = .milliseconds(250), now: @escaping @Sendable () -> Timestamp) {
        self.now = now
        self.tick = tick
    }

    /// The system's wall clock.
    public static let system = ServerClock {
        Timestamp(secondsSince1970: Int64(Date().timeIntervalSince1970.rounded(.down)))
    }
}
