import FightEngine
import FightProtocol

// MARK: - Fuzz entry points

/// What the ServerMessages fuzz target does with one input, shared by the libFuzzer driver
/// (`Fuzz/ServerMessages/main.swift`, built by `tools/fuzz.sh`) and the regression test that
/// replays `Tests/Fixtures/fuzz/ServerMessages/` in a plain `swift test`.
///
/// The fuzz build compiles only `Sources/FightProtocol`, so this uses nothing of the server that
/// needs Hummingbird or the store.
enum FightProtocolFuzzEntryPoints {
    /// Reads `bytes` as the server reads a WebSocket text or an account request's body, and as the
    /// client reads what the server sends.
    static func serverMessages(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        clientMessage(text)
        _ = try? MessageCodec.decode(Credentials.self, from: text)
        serverMessage(text)
    }

    // MARK: - Both sides

    /// What `ClientSession` does before the token lookup: decode, or answer with the error; then
    /// the checks made before the store is touched (the hub's on a punch, the engine's on a profile
    /// or a move).
    private static func clientMessage(_ text: String) {
        let message: ClientMessage
        do {
            message = try MessageCodec.decode(ClientMessage.self, from: text)
        } catch {
            // The error goes back to the client, which must read the same error.
            let reply = MessageCodec.errorReply(error, to: text)
            precondition(
                (try? MessageCodec.decodeReply(MessageCodec.encode(reply))) == reply, "the client cannot read \(reply)")
            return
        }
        // The client library encodes what the server decodes: both must agree.
        let encoded = MessageCodec.encode(message)
        precondition(
            (try? MessageCodec.decode(ClientMessage.self, from: encoded, limit: ProtocolLimits.maxFrameBytes))
                == message, "\(message) does not survive encoding as \(encoded)")
        switch message.request {
        case .updateProfile(let update):
            _ = try? Fighter.validate(displayName: update.displayName)
            _ = try? Fighter.validate(bio: update.bio)
            _ = try? ProfileStats(heightCm: update.heightCm, weightKg: update.weightKg, reachCm: update.reachCm)
                .validate()
        case .move(let location):
            _ = try? Coordinate(latitude: location.latitude, longitude: location.longitude).validate()
        default:
            break
        }
    }

    /// What the client does with a server message: decode it. Up to `maxMessageBytes`, what it
    /// decoded must also encode to text that decodes to the same (the server's encoder and the
    /// client's decoder agree); a longer reply, up to the 1 MB frame limit, is only decoded, as the
    /// client does, so that a 1 MB input costs the target what it costs the client.
    private static func serverMessage(_ text: String) {
        guard let message = try? MessageCodec.decodeReply(text), text.utf8.count <= ProtocolLimits.maxMessageBytes
        else { return }
        let encoded = MessageCodec.encode(message)
        precondition((try? MessageCodec.decodeReply(encoded)) == message, "\(message) does not survive encoding as \(encoded)")
    }
}
