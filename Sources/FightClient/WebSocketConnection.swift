import FightProtocol
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - ServerAddress

/// Where a fight server is: `ws://HOST:PORT` (the path is the protocol's).
public struct ServerAddress: Hashable, Sendable, CustomStringConvertible {
    /// Host name or address.
    public var host: String
    /// TCP port.
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `ws://HOST:PORT`, `HOST:PORT` or `ws://HOST` (port 8080); `nil` for anything else.
    public init?(_ text: String) {
        var rest = Substring(text)
        if rest.hasPrefix("ws://") { rest = rest.dropFirst(5) }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty else { return nil }
        guard let port = parts.count == 2 ? Int(parts[1]) : 8080, (1...65535).contains(port) else { return nil }
        self.init(host: String(parts[0]), port: port)
    }

    /// `ws://HOST:PORT`.
    public var description: String { "ws://\(host):\(port)" }
}

/// A connection failure: the server is not there or did not answer as a fight server does.
public struct ConnectionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// Creates an error.
    public init(_ description: String) { self.description = description }

    /// "cannot reach the server at HOST:PORT: connection refused" when `error` is a failure to
    /// connect to `address` (nothing listening, no route, an unknown host, no answer in time);
    /// `nil` for any other error, such as a connection that was made and then lost.
    public init?(unreachable address: ServerAddress, _ error: any Error) {
        guard let reason = Self.reason(error) else { return nil }
        self.init("cannot reach the server at \(address.host):\(address.port): \(reason)")
    }

    /// Why a connection could not be made, in words, from the errors NIO reports it with.
    private static func reason(_ error: any Error) -> String? {
        switch error {
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "unknown host" }
            return error.connectionErrors.lazy.compactMap { reason($0.error) }.first ?? "no address to connect to"
        case let error as IOError:
            // strerror's words, lowercased to sit inside a sentence: "connection refused".
            let words = String(cString: strerror(error.errnoCode))
            return words.prefix(1).lowercased() + words.dropFirst()
        case ChannelError.connectTimeout(let timeout):
            return "no answer within \(timeout.nanoseconds / 1_000_000_000) s"
        default:
            return nil
        }
    }
}

// MARK: - HTTP

/// One HTTP/1.1 exchange on its own connection: enough for the three routes a client needs.
public enum HTTPExchange {
    /// Sends `body` (JSON) to `path` with `method` and returns the status and body of the answer.
    public static func send(
        _ method: HTTPMethod, _ path: String, body: String = "", to address: ServerAddress
    ) async throws -> (status: Int, body: String) {
        let (channel, response) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: address.host, port: address.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let promise = channel.eventLoop.makePromise(of: (status: Int, body: String).self)
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        ResponseCollector(
                            method: method, path: path, host: address.description, body: body, promise: promise))
                    return (channel, promise.futureResult)
                }
            }
        // A task cancelled while waiting (a player who quit) closes the connection, which fails
        // the answer, rather than waiting on a server that may never answer.
        return try await withTaskCancellationHandler {
            try await response.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// Sends the request when connected and completes the promise with the whole response.
    private final class ResponseCollector: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        let request: (method: HTTPMethod, path: String, host: String, body: String)
        let promise: EventLoopPromise<(status: Int, body: String)>
        var status = 0
        var body = ByteBuffer()

        init(
            method: HTTPMethod, path: String, host: String, body: String,
            promise: EventLoopPromise<(status: Int, body: String)>
        ) {
            request = (method, path, host, body)
            self.promise = promise
        }

        func channelActive(context: ChannelHandlerContext) {
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: request.host)
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: "\(request.body.utf8.count)")
            headers.add(name: "Connection", value: "close")
            let head = HTTPRequestHead(version: .http1_1, method: request.method, uri: request.path, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: request.body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): status = Int(head.status.code)
            case .body(var part): body.writeBuffer(&part)
            case .end:
                promise.succeed((status, String(buffer: body)))
                context.close(promise: nil)
            }
        }

        /// Called however the channel ends, even when it never connected (refused, unreachable), where
        /// `channelInactive` is not: the promise must not be dropped unfulfilled. After an answer,
        /// failing it does nothing.
        func handlerRemoved(context: ChannelHandlerContext) {
            promise.fail(ConnectionError("the server closed the connection before answering"))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.close(promise: nil)
        }
    }
}

// MARK: - WebSocket

/// A client WebSocket on swift-nio's own upgrader: text messages in and out.
public final class WebSocketConnection: Sendable {
    private let channel: any Channel
    /// The text messages the server sends, in order; ends when the connection closes.
    public let messages: AsyncThrowingStream<String, any Error>

    private init(channel: any Channel, messages: AsyncThrowingStream<String, any Error>) {
        self.channel = channel
        self.messages = messages
    }

    /// Opens a WebSocket to `path` at `address`.
    public static func connect(to address: ServerAddress, path: String = "/ws") async throws -> WebSocketConnection {
        let (messages, continuation) = AsyncThrowingStream.makeStream(of: String.self)
        let (channel, upgraded) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: address.host, port: address.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
                        maxFrameSize: ProtocolLimits.maxFrameBytes,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    MessageCollector(continuation: continuation))
                                return true
                            }
                        })
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "\(address.host):\(address.port)")
                    headers.add(name: "Content-Length", value: "0")
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
                        upgradeRequestHead: HTTPRequestHead(
                            version: .http1_1, method: .GET, uri: path, headers: headers),
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(false) })
                    let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                    return (channel, upgraded)
                }
            }
        // As for HTTP: cancelled while waiting for the upgrade, the connection closes.
        let accepted = try await withTaskCancellationHandler {
            try await upgraded.get()
        } onCancel: {
            channel.close(promise: nil)
        }
        guard accepted else {
            try? await channel.close()
            throw ConnectionError("\(address) did not accept a WebSocket at \(path)")
        }
        return WebSocketConnection(channel: channel, messages: messages)
    }

    /// Sends one text message (masked, as a client must).
    public func send(_ text: String) async throws {
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        try await channel.writeAndFlush(frame)
    }

    /// Closes the connection without the closing handshake, as a dropped network would.
    public func close() async {
        try? await channel.close()
    }

    /// Joins fragments into messages, answers pings, and ends the stream when the server closes.
    private final class MessageCollector: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        let continuation: AsyncThrowingStream<String, any Error>.Continuation
        var fragments: ByteBuffer?

        init(continuation: AsyncThrowingStream<String, any Error>.Continuation) {
            self.continuation = continuation
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text:
                var data = frame.unmaskedData
                if frame.fin { continuation.yield(String(buffer: data)) } else { fragments = data; data.clear() }
            case .continuation:
                var data = frame.unmaskedData
                fragments?.writeBuffer(&data)
                if frame.fin, let whole = fragments {
                    continuation.yield(String(buffer: whole))
                    fragments = nil
                }
            case .ping:
                let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            case .connectionClose:
                let close = WebSocketFrame(
                    fin: true, opcode: .connectionClose, maskKey: .random(), data: frame.unmaskedData)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
            default:
                break
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            continuation.finish()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            continuation.finish(throwing: error)
            context.close(promise: nil)
        }
    }
}
