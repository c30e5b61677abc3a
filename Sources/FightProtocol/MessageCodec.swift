import Foundation

// MARK: - MessageCodec

/// Turns protocol messages into JSON text and back, with every failure a `ProtocolError`.
public enum MessageCodec {
    /// Decodes a message of type `Message` from JSON text.
    ///
    /// Text longer than `limit` bytes (`ProtocolLimits.maxMessageBytes` unless told) is `tooLarge`
    /// before it is parsed; text that is not JSON is `malformed`; a missing or mistyped field is
    /// `invalid` naming the field's path; an unknown `type` is `unknownType`.
    public static func decode<Message: Decodable>(
        _ type: Message.Type, from text: String, limit: Int = ProtocolLimits.maxMessageBytes
    ) throws(ProtocolError) -> Message {
        let bytes = text.utf8.count
        guard bytes <= limit else {
            throw ProtocolError(.tooLarge, "message is \(bytes) bytes; expected at most \(limit)")
        }
        let data = Data(text.utf8)
        do {
            return try JSONDecoder().decode(Message.self, from: data)
        } catch let error as ProtocolError {
            throw error
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw fractionalField(in: data) ?? ProtocolError(.malformed, "expected a JSON object: not valid JSON")
        } catch let error as DecodingError {
            throw ProtocolError(decoding: error)
        } catch {
            throw ProtocolError(.malformed, "expected a JSON object: \(error)")
        }
    }

    /// The answer to a client's message that was not acted on (it did not decode, or came too
    /// fast): `error`, carrying the message's `ref` when that can be read, so that a client waiting
    /// on its `ref` hears of the refusal. Text that is not a JSON object, or longer than
    /// `ProtocolLimits.maxMessageBytes` (not parsed at all), has no readable `ref`.
    public static func errorReply(_ error: ProtocolError, to text: String) -> ServerMessage {
        ServerMessage(ref: readableRef(in: text), .error(error))
    }

    /// The integer `ref` of the JSON object `text`, whatever else in it is wrong.
    static func readableRef(in text: String) -> Int? {
        guard text.utf8.count <= ProtocolLimits.maxMessageBytes else { return nil }
        // Only `ref` is decoded, so a bad `type`, `v`, token or body field does not hide it; a
        // `ref` that is not an integer is not one the client can be waiting on.
        struct Envelope: Decodable { var ref: Int? }
        return (try? JSONDecoder().decode(Envelope.self, from: Data(text.utf8)))?.ref
    }

    /// Decodes what the server sent. Its replies are not held to `maxMessageBytes` (a long history
    /// or replay is longer), only to the WebSocket's `maxFrameBytes`.
    public static func decodeReply(_ text: String) throws(ProtocolError) -> ServerMessage {
        try decode(ServerMessage.self, from: text, limit: ProtocolLimits.maxFrameBytes)
    }

    /// Foundation reports a fraction where an integer belongs (`"damage": 9.5`) as invalid JSON
    /// with no field; every integer of the protocol's client messages is a top-level field, so
    /// the field is found by looking.
    private static func fractionalField(in data: Data) -> ProtocolError? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            guard let number = value as? NSNumber, !(number is Bool) else { continue }
            let double = number.doubleValue
            if double.rounded() != double || abs(double) > 9.0e15 {
                return ProtocolError(.invalid, "\(key): expected an integer, found \(number)", field: key)
            }
        }
        return nil
    }

    /// Encodes a message as one line of JSON with its keys sorted, so the same message is the same text.
    public static func encode(_ message: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every protocol value is a number, a string, a Boolean or a container of them, so
        // encoding cannot fail; a bug that made it fail must not take a connection down.
        guard let data = try? encoder.encode(message) else {
            return #"{"code":"internalError","message":"could not encode a reply","type":"error","v":1}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}

// MARK: - Decoding errors

extension ProtocolError {
    /// Names the field and what was expected, e.g. `damage: expected Int, found a string`.
    init(decoding error: DecodingError) {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            self.init(.invalid, "\(field): expected a value, found none", field: field)
        case .typeMismatch(_, let context) where context.codingPath.isEmpty,
            .valueNotFound(_, let context) where context.codingPath.isEmpty:
            self.init(.malformed, "expected a JSON object with type and v")
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            self.init(.invalid, "\(field): expected \(Self.describe(type)), \(context.debugDescription)", field: field)
        case .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            self.init(.invalid, "\(field): expected \(Self.describe(type)), found null", field: field)
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self.init(
                .malformed,
                "expected a JSON object: \(context.underlyingError.map { "\($0)" } ?? context.debugDescription)")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            self.init(.invalid, "\(field): \(context.debugDescription)", field: field)
        @unknown default:
            self.init(.malformed, "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }
}
