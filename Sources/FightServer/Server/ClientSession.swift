import FightEngine
import FightProtocol
import FightStore
import Logging

// MARK: - ClientSession

/// One WebSocket connection's side of the conversation: checks each message (size, rate, JSON,
/// token) before the hub sees it, and binds the connection to the token's fighter so that their
/// events are pushed to it.
struct ClientSession {
    let hub: FightHub
    let accounts: Accounts
    let outbox: FightHub.Outbox
    let clock: ServerClock
    /// This connection's allowance, for every message: it bounds what a connection sends before
    /// any token is good (garbage, unknown tokens).
    var limiter: RateLimiter
    /// Every fighter's allowance, shared by all connections (on every server sharing the
    /// database): a message with a good token takes from its fighter's too, so that more sockets
    /// do not buy more messages.
    let fighterLimits: FighterAllowance
    let logger: Logger
    /// The fighter this connection belongs to, and its number at the hub, once a token was valid.
    private(set) var bound: (fighter: FighterID, connection: Int)?

    /// What the connection does after a message.
    enum Next: Equatable {
        /// Reads the next message.
        case read
        /// Closes: the session it was using ended.
        case close
    }

    init(
        hub: FightHub, accounts: Accounts, outbox: FightHub.Outbox, clock: ServerClock, limiter: RateLimiter,
        fighterLimits: FighterAllowance, logger: Logger
    ) {
        self.hub = hub
        self.accounts = accounts
        self.outbox = outbox
        self.clock = clock
        self.limiter = limiter
        self.fighterLimits = fighterLimits
        self.logger = logger
    }

    /// Handles one text message; replies go to the outbox.
    mutating func receive(_ text: String) async -> Next {
        guard limiter.allow(at: clock.elapsed()) else {
            let error = ProtocolError(.rateLimited, "more than \(limiter.perSecond) messages a second; slow down")
            reply(MessageCodec.errorReply(error, to: text))
            return .read
        }
        let message: ClientMessage
        do {
            message = try MessageCodec.decode(ClientMessage.self, from: text)
        } catch {
            logger.debug("bad message", metadata: ["error": "\(error)"])
            // A motion batch whose rows are refused ends its hold, as one refused by the hub does.
            // Only this connection's fighter can have a hold on it, so no token is needed to know whose.
            if let bound, let hold = MotionBatch.readableHold(in: text) {
                await hub.endHold(hold.hold, in: hold.fight, of: bound.fighter, connection: bound.connection)
            }
            reply(MessageCodec.errorReply(error, to: text))
            return .read
        }
        let session: SavedSession
        do {
            switch try await accounts.check(message.token, at: clock.now()) {
            case .valid(let valid):
                session = valid
            case .unknown:
                reply(
                    ServerMessage(
                        ref: message.ref,
                        .error(ProtocolError(.unauthorized, "token: not a session token; log in again", field: "token"))
                    ))
                return .read
            case .lapsed:
                let days = accounts.sessionLifetime / 86_400
                let error = ProtocolError(
                    .unauthorized, "token: the session lapsed after \(days) days unused; log in again", field: "token",
                    reason: .sessionExpired)
                reply(ServerMessage(ref: message.ref, .error(error)))
                return .read
            }
        } catch {
            return failed("token lookup", error, answering: message.ref, "could not check the token; try again")
        }
        let fighter = session.fighter
        let allowed: Bool
        do {
            allowed = try await fighterLimits.allow(fighter)
        } catch {
            return failed("rate lookup", error, answering: message.ref, "could not count the message; try again")
        }
        guard allowed else {
            let error = ProtocolError(
                .rateLimited,
                "more than \(fighterLimits.perSecond) messages a second from fighter \(fighter.rawValue) on all their connections; slow down"
            )
            reply(ServerMessage(ref: message.ref, .error(error)))
            return .read
        }
        if let bound, bound.fighter != fighter {
            reply(
                ServerMessage(
                    ref: message.ref,
                    .error(
                        ProtocolError(
                            .wrongFighter, "token: this connection belongs to fighter \(bound.fighter.rawValue)",
                            field: "token"))))
            return .read
        }
        if case .logout = message.request {
            return await logout(session, ref: message.ref)
        }
        let arriving = bound == nil
        if arriving {
            bound = (fighter, await hub.connect(fighter, session: session.key, outbox: outbox))
        }
        if let answer = await hub.answerReading(message.request, by: fighter, ref: message.ref) {
            reply(answer)
        } else if let answer = await hub.handle(
            message.request, by: fighter, ref: message.ref, connection: bound?.connection)
        {
            reply(answer)
        }
        if arriving { await hub.resumeOwedTurns(of: fighter) }
        return .read
    }

    /// Ends `session`: every other connection that began with it is told and closed by the hub,
    /// and this one, told, closes.
    private func logout(_ session: SavedSession, ref: Int?) async -> Next {
        do {
            try await accounts.logout(session)
        } catch {
            return failed("logout", error, answering: ref, "could not log out; try again")
        }
        await hub.endSession(session.key, of: session.fighter, except: bound?.connection)
        reply(ServerMessage(ref: ref, .loggedOut))
        return .close
    }

    /// Says that a message was not text.
    func refuseBinary() {
        reply(ServerMessage(.error(ProtocolError(.malformed, "expected a text message holding JSON, got binary"))))
    }

    /// Stops the hub pushing to this connection.
    func close() async {
        if let bound { await hub.disconnect(bound.fighter, connection: bound.connection) }
    }

    /// Logs that `what` failed with `error` (the database's, which the client is not shown) and
    /// answers `internalError` with `message`; the connection reads on.
    private func failed(_ what: String, _ error: any Error, answering ref: Int?, _ message: String) -> Next {
        logger.error("\(what) failed", metadata: ["error": "\(error)"])
        reply(ServerMessage(ref: ref, .error(ProtocolError(.internalError, message))))
        return .read
    }

    private func reply(_ message: ServerMessage) {
        outbox.yield(MessageCodec.encode(message))
    }
}
