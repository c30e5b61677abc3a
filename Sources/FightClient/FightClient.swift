import FightProtocol
import NIOConcurrencyHelpers

// MARK: - FightClient

/// A player's connection to a fight server: logs in over HTTP, then talks over the WebSocket.
public final class FightClient: Sendable {
    /// The session: the token every message carries, and the fighter it belongs to.
    public let session: Session
    private let socket: WebSocketConnection
    private let lastRef = NIOLockedValueBox(0)

    private init(session: Session, socket: WebSocketConnection) {
        self.session = session
        self.socket = socket
    }

    /// Logs in, registering first if the username is free.
    /// - Throws: `ProtocolError` when the server refuses (wrong password, invalid username, …),
    ///   `ConnectionError` or a network error when it cannot be reached.
    public static func signIn(_ credentials: Credentials, at address: ServerAddress) async throws -> Session {
        do {
            return try await account("/login", credentials, at: address)
        } catch let error as ProtocolError where error.code == .unauthorized {
            do {
                return try await account("/register", credentials, at: address)
            } catch let refusal as ProtocolError where refusal.code == .conflict {
                throw error  // the name exists: it was the password
            }
        }
    }

    /// How long `checkHealth` waits for an answer: a server that takes longer is as good as
    /// not there for a person waiting to be asked a password.
    public static let healthWait = Duration.seconds(10)

    /// `GET /health`: whether a fight server answers at `address`, asked before a person types a
    /// password for it.
    /// - Throws: `ConnectionError`, in words: nothing answers there, no answer within
    ///   `healthWait`, something there that is not a HitThat server, or its database not answering.
    public static func checkHealth(at address: ServerAddress) async throws(ConnectionError) {
        let answer: (status: Int, body: String)
        do {
            answer = try await withThrowingTaskGroup(of: (status: Int, body: String)?.self) { group in
                group.addTask { try await HTTPExchange.send(.GET, "/health", to: address) }
                group.addTask {
                    try await Task.sleep(for: FightClient.healthWait)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else {
                    throw ConnectionError(
                        "the server at \(address.host):\(address.port) did not answer within \(healthWait)")
                }
                return answer
            }
        } catch let error as ConnectionError {
            throw error
        } catch {
            throw ConnectionError(unreachable: address, error)
                ?? ConnectionError("cannot reach the server at \(address.host):\(address.port): \(error)")
        }
        guard case .health(let health)? = try? MessageCodec.decodeReply(answer.body).body else {
            throw ConnectionError(
                "\(address.host):\(address.port) answered /health with \(answer.status) and no HitThat health: is it a HitThat server?")
        }
        guard answer.status == 200 else {
            throw ConnectionError("the server at \(address.host):\(address.port) is up but not well: \(health.status)")
        }
    }

    /// `POST /register` or `POST /login`.
    public static func account(
        _ path: String, _ credentials: Credentials, at address: ServerAddress
    ) async throws -> Session {
        let (status, body) = try await HTTPExchange.send(
            .POST, path, body: MessageCodec.encode(credentials), to: address)
        let reply: ServerMessage
        do {
            reply = try MessageCodec.decodeReply(body)
        } catch {
            throw ConnectionError(
                "\(address)\(path) answered \(status) with something that is not a protocol message: \(error)")
        }
        switch reply.body {
        case .session(let session): return session
        case .error(let error): throw error
        default: throw ConnectionError("\(address)\(path) answered \(reply.body.type), expected session")
        }
    }

    /// Opens the WebSocket for `session`. Send `hello` first to start receiving events.
    public static func connect(_ session: Session, to address: ServerAddress) async throws -> FightClient {
        FightClient(session: session, socket: try await WebSocketConnection.connect(to: address))
    }

    /// What the server sends, decoded; a message that does not decode ends the stream with its error.
    public var messages: AsyncThrowingMapSequence<AsyncThrowingStream<String, any Error>, ServerMessage> {
        socket.messages.map { text in try MessageCodec.decodeReply(text) }
    }

    /// The raw text the server sends.
    public var texts: AsyncThrowingStream<String, any Error> { socket.messages }

    /// Sends `request` with the session's token and a new `ref`.
    /// - Returns: the `ref`, which the replies and events it causes carry.
    @discardableResult
    public func send(_ request: ClientRequest) async throws -> Int {
        let ref = newRef()
        try await send(request, ref: ref)
        return ref
    }

    /// A `ref` no request has carried yet, for `send(_:ref:)`: taken before sending, it can be
    /// looked for in replies that arrive while the request is still being written.
    public func newRef() -> Int {
        lastRef.withLockedValue { value in
            value += 1
            return value
        }
    }

    /// Sends `request` with the session's token and `ref` (from `newRef()`).
    public func send(_ request: ClientRequest, ref: Int) async throws {
        try await socket.send(MessageCodec.encode(ClientMessage(token: session.token, ref: ref, request)))
    }

    /// Sends text as it is (for tests of bad input).
    public func sendRaw(_ text: String) async throws {
        try await socket.send(text)
    }

    /// Drops the connection.
    public func close() async {
        await socket.close()
    }
}
