import FightEngine
import FightProtocol
import Logging

// MARK: - ClientSession

/// One WebSocket connection's side of the conversation: checks each message (size, rate, JSON,
/// token) before the hub sees it, and binds the connection to the token's fighter so that their
/// events are pushed to it.
struct ClientSession {
    let hub: FightHub
    let accounts: Accounts
    let outbox: FightHub.Outbox
    var limiter: RateLimiter
    let logger: Logger
    /// The fighter this connection belongs to, and its number at the hub, once a token was valid.
    private(set) var bound: (fighter: FighterID, connection: Int)?

    init(hub: FightHub, accounts: Accounts, outbox: FightHub.Outbox, limiter: RateLimiter, logger: Logger) {
        self.hub = hub
        self.accounts = accounts
        self.outbox = outbox
        self.limiter = limiter
        self.logger = logger
    }

    /// Handles one text message; replies go to the outbox.
    mutating func receive(_ text: String) async {
        guard limiter.allow() else {
            let error = ProtocolError(.rateLimited, "more than \(limiter.perSecond) messages a second; slow down")
            return reply(MessageCodec.errorReply(error, to: text))
        }
        let message: ClientMessage
        do {
            message = try MessageCodec.decode(ClientMessage.self, from: text)
        } catch {
            logger.debug("bad message", metadata: ["error": "\(error)"])
            return reply(MessageCodec.errorReply(error, to: text))
        }
        let fighter: FighterID
        do {
            guard let owner = try accounts.fighter(forToken: message.token) else {
                return reply(
                    ServerMessage(
                        ref: message.ref,
                        .error(ProtocolError(.unauthorized, "token: not a session token; log in again", field: "token"))
                    ))
            }
            fighter = owner
        } catch {
            logger.error("token lookup failed", metadata: ["error": "\(error)"])
            return reply(
                ServerMessage(
                    ref: message.ref, .error(ProtocolError(.internalError, "could not check the token; try again"))))
        }
        if let bound, bound.fighter != fighter {
            return reply(
                ServerMessage(
                    ref: message.ref,
                    .error(
                        ProtocolError(
                            .wrongFighter, "token: this connection belongs to fighter \(bound.fighter.rawValue)",
                            field: "token"))))
        }
        if bound == nil {
            bound = (fighter, await hub.connect(fighter, outbox: outbox))
        }
        if let answer = await hub.handle(message.request, by: fighter, ref: message.ref, connection: bound?.connection)
        {
            reply(answer)
        }
    }

    /// Says that a message was not text.
    func refuseBinary() {
        reply(ServerMessage(.error(ProtocolError(.malformed, "expected a text message holding JSON, got binary"))))
    }

    /// Stops the hub pushing to this connection.
    func close() async {
        if let bound { await hub.disconnect(bound.fighter, connection: bound.connection) }
    }

    private func reply(_ message: ServerMessage) {
        outbox.yield(MessageCodec.encode(message))
    }
}

// MARK: - RateLimiter

/// A token bucket: `perSecond` messages a second on average, bursts of up to `burst`.
struct RateLimiter: Sendable {
    let perSecond: Int
    let burst: Int
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(perSecond: Int, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
        tokens = Double(burst)
        last = .now
    }

    /// Takes a token if there is one.
    mutating func allow(at now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = last.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(Double(burst), tokens + seconds * Double(perSecond))
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
