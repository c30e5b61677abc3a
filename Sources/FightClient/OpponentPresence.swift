import FightEngine
import FightProtocol

// MARK: - Presence

/// The other fighter of a fight under way, there or not, as this client learnt it from the server's
/// `presence` messages (and `welcome`): typed until shown, so that the screen counts the time since
/// they went.
public enum OpponentPresence: Hashable, Sendable {
    /// Connected, and not seen gone by this client.
    case connected
    /// Gone since `since`; `nil` when the server has not seen them since it started.
    case gone(since: Timestamp?)
    /// Connected again, at `since`, after this client saw them gone.
    case back(since: Timestamp?)
    /// A state a newer server named, as it came.
    case unknown(String)

    /// How long "is back" is news before it is just "connected", in seconds.
    public static let backIsNews: Int64 = 30

    /// The presence `report` says, `earlier` being what was known before: connected after gone is back.
    public init(_ report: Presence, after earlier: OpponentPresence?) {
        let since = report.since?.timestamp
        switch report.state {
        case .known(.gone): self = .gone(since: since)
        case .known(.connected):
            switch earlier {
            case .gone: self = .back(since: since)
            // A `welcome` after this client's own reconnect says connected again: still back.
            case .back(let returned): self = .back(since: returned)
            case .connected, .unknown, nil: self = .connected
            }
        case .unknown(let name): self = .unknown(name)
        }
    }

    /// The words for `name` at `now` (seconds since 1970).
    public func description(of name: String, now: Int64) -> String {
        switch self {
        case .connected: return "\(name): connected"
        case .back(let since):
            guard let since, now - since.secondsSince1970 >= Self.backIsNews else { return "\(name) is back" }
            return "\(name): connected"
        case .gone(let since?):
            return "\(name) is gone (connection lost \(Self.ago(now - since.secondsSince1970)))"
        case .gone(nil): return "\(name) is gone (not seen since the server started)"
        case .unknown(let state): return "\(name): \(state)"
        }
    }

    /// "12 s ago", and in minutes from two minutes on.
    private static func ago(_ seconds: Int64) -> String {
        let seconds = max(0, seconds)
        return seconds < 120 ? "\(seconds) s ago" : "\(seconds / 60) min ago"
    }
}
