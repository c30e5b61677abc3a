import FightClient
import FightProtocol
import Foundation
import Glibc
import Testing

/// The client's one-shot HTTP requests (register, log in) when the server is not there.
@Suite struct HTTPExchangeTests {
    /// A port that nothing listens on: bound by the kernel's choice, then let go.
    static func closedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A refused connection is an error to the caller. The request's promise must still be
    /// completed: the handler never sees the channel active, and a promise dropped unfulfilled
    /// stops a debug build ("leaking promise"), which is how `hitthat-load` died when it logged
    /// in while the server was being restarted.
    @Test func aRefusedConnectionThrows() async throws {
        let address = ServerAddress(host: "127.0.0.1", port: try Self.closedPort())
        for _ in 0..<3 {
            await #expect(throws: (any Error).self) {
                _ = try await HTTPExchange.send(.POST, "/login", body: "{}", to: address)
            }
        }
    }

    /// The Connector, which play and hitthat-load connect through, says in words that nothing
    /// answered, rather than passing NIO's error on.
    @Test func theConnectorSaysTheServerCannotBeReached() async throws {
        let port = try Self.closedPort()
        let connector = Connector(
            address: ServerAddress(host: "127.0.0.1", port: port),
            credentials: Credentials(username: "alice", password: "password1"))
        let ending = await connector.connectAndRead(opened: { _, _ in true }, received: { _ in true })
        guard case .notConnected(.unreachable(let reason)) = ending else {
            Issue.record("expected unreachable, got \(ending)")
            return
        }
        #expect(reason.description == "cannot reach the server at 127.0.0.1:\(port): connection refused")
    }
}
