// MARK: - OpenEnum

/// A value of a set the protocol names and may grow: one this build knows, or a name from a newer
/// server kept as it came. A field such as `ProtocolError.reason` is a closed set for the code that
/// reads it (the compiler lists every place a case is used), yet a server that learns a new reason
/// must not make an older client fail to read the whole message.
///
/// On the wire it is the bare name, as before: `"waitYourTurn"`, `"knockout"`.
public enum OpenEnum<Known>: Hashable, Sendable, CustomStringConvertible
where Known: RawRepresentable<String> & CaseIterable & Hashable & Sendable {
    /// A name this build knows.
    case known(Known)
    /// A name this build does not know (a newer server's), as it came.
    case unknown(String)

    /// The value named `name`: known if any known case has that name.
    public init(_ name: String) {
        self = Known(rawValue: name).map(Self.known) ?? .unknown(name)
    }

    /// The name on the wire.
    public var rawValue: String {
        switch self {
        case .known(let value): value.rawValue
        case .unknown(let name): name
        }
    }

    /// The known value, or `nil` for a name this build does not know.
    public var known: Known? {
        if case .known(let value) = self { value } else { nil }
    }

    /// The name on the wire, for people.
    public var description: String { rawValue }
}

extension OpenEnum: Codable {
    /// Reads a bare name; one this build does not know becomes `unknown`, not an error.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Writes the bare name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
