// MARK: - Backoff

/// How long a client waits before it connects again: `first`, then twice as long each time up to
/// `longest`, and `first` again once a connection is made. A server being restarted is not
/// hammered, and one that is back is found soon.
public struct Backoff: Hashable, Sendable {
    /// The first wait.
    public let first: Duration
    /// The longest wait.
    public let longest: Duration
    /// The wait `next()` gives.
    public private(set) var current: Duration

    /// Starts at `first`.
    public init(first: Duration, longest: Duration) {
        self.first = first
        self.longest = longest
        current = first
    }

    /// The wait before the next attempt; the one after it is twice as long, up to `longest`.
    public mutating func next() -> Duration {
        defer { current = min(current * 2, longest) }
        return current
    }

    /// Connected: the next wait is `first` again.
    public mutating func reset() {
        current = first
    }

    /// The same waits, each `factor` times as long. Clients dropped together (a server restart)
    /// would all come back at the same instants; each drawing its own factor once spreads them.
    /// The waits are whole milliseconds, which the screen shows.
    public func scaled(by factor: Double) -> Backoff {
        func scale(_ wait: Duration) -> Duration { .milliseconds(Int64((wait * factor / .milliseconds(1)).rounded())) }
        return Backoff(first: scale(first), longest: scale(longest))
    }
}
