// MARK: - Credentials

/// The body of `POST /register` and `POST /login`.
public struct Credentials: Hashable, Sendable, Codable {
    /// 3–20 letters, digits or underscores; unique without regard to case.
    public var username: String
    /// 8–128 characters; stored only as a slow salted hash.
    public var password: String
    /// Registration only: the name to show (the username when absent).
    public var displayName: String?

    /// Creates credentials.
    public init(username: String, password: String, displayName: String? = nil) {
        self.username = username
        self.password = password
        self.displayName = displayName
    }

    /// The lengths a password may have.
    public static let passwordLengths = 8...128
}
