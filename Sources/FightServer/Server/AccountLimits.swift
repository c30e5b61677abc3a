import FightProtocol
import Hummingbird
import HummingbirdCore
import NIOConcurrencyHelpers
import NIOCore

// MARK: - Account limits

/// The request context of every route: Hummingbird's basic one, and the address the request came
/// from, which account requests are limited by.
struct AddressedRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's address, while the connection has one.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// The account requests each address may make (`ServerConfiguration.accountRequestsPerSecond`,
/// `accountRequestBurst`), measured by the server's clock.
struct AccountLimits: Sendable {
    private let buckets: NIOLockedValueBox<RateLimits<String>>
    private let clock: ServerClock

    init(_ configuration: ServerConfiguration) {
        buckets = NIOLockedValueBox(
            RateLimits(perSecond: configuration.accountRequestsPerSecond, burst: configuration.accountRequestBurst))
        clock = configuration.clock
    }

    /// Takes one of the address's requests, or throws `rateLimited` when it has none left. The
    /// address is the host alone (a client's port changes with every connection); a connection
    /// without one (a Unix socket) counts as one address.
    func admit(_ address: SocketAddress?) throws(ProtocolError) {
        let host = address?.ipAddress ?? "local"
        let now = clock.elapsed()
        let (allowed, perSecond) = buckets.withLockedValue { ($0.allow(host, at: now), $0.perSecond) }
        guard allowed else {
            throw ProtocolError(
                .rateLimited,
                "more than \(perSecond) account request\(perSecond == 1 ? "" : "s") a second from this address; wait and try again"
            )
        }
    }
}
