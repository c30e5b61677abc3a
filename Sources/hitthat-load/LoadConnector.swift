import FightClient
import FightProtocol

// MARK: - LoadConnector

/// A load client's way to its servers: its home server, and with failover, the others in turn
/// when the one it was on does not answer, as a load balancer would send a player whose server
/// died to another (servers sharing one PostgreSQL take each other's players). Each server is
/// signed in to through a `Connector` of its own, so the client's session there is that
/// server's.
actor LoadConnector: PlayerConnecting {
    /// The servers, in `--server`'s order.
    let addresses: [ServerAddress]
    private let connectors: [Connector]
    private let failover: Bool
    /// The server being connected to, or last connected to: an index in `addresses`.
    private(set) var current: Int

    /// Connects to `addresses[home]`; with `failover`, to the next one when it does not answer.
    init(addresses: [ServerAddress], home: Int, credentials: Credentials, failover: Bool) {
        precondition(addresses.indices.contains(home), "no server \(home)")
        self.addresses = addresses
        connectors = addresses.map { Connector(address: $0, credentials: credentials) }
        self.failover = failover
        current = home
    }

    func connectAndRead(
        opened: @Sendable (any PlayerConnection, Session) async -> Bool,
        received: @Sendable (String) async -> Bool
    ) async -> Connector.Ending {
        // Each server once at most: when none answers, the session waits and tries again, as it
        // does for one server.
        var tried = 1
        while true {
            let ending = await connectors[current].connectAndRead(opened: opened, received: received)
            guard failover, tried < addresses.count, case .notConnected(.unreachable) = ending else { return ending }
            current = (current + 1) % addresses.count
            tried += 1
        }
    }
}
