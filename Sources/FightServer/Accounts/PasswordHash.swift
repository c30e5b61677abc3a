import Crypto
import CryptoExtras
import Foundation

// MARK: - PasswordHash

/// A password stored as PBKDF2-HMAC-SHA256 with a random salt, in one string:
/// `pbkdf2-sha256$ROUNDS$SALT$KEY` (salt and key in base64). The rounds travel with the hash, so
/// raising them later leaves old accounts working.
public struct PasswordHash: Hashable, Sendable {
    /// OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256.
    public static let defaultRounds = 600_000

    /// Iterations of HMAC-SHA256.
    public var rounds: Int
    /// 16 random bytes.
    public var salt: [UInt8]
    /// The 32-byte derived key.
    public var key: [UInt8]

    /// Hashes `password` with a new random salt.
    public init(hashing password: String, rounds: Int = defaultRounds) throws {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.init(rounds: rounds, salt: salt, key: try Self.derive(password, salt: salt, rounds: rounds))
    }

    init(rounds: Int, salt: [UInt8], key: [UInt8]) {
        self.rounds = rounds
        self.salt = salt
        self.key = key
    }

    /// Reads the stored form; `nil` when it is not one.
    public init?(stored: String) {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds > 0,
            let salt = Data(base64Encoded: String(parts[2])), let key = Data(base64Encoded: String(parts[3]))
        else { return nil }
        self.init(rounds: rounds, salt: Array(salt), key: Array(key))
    }

    /// The stored form.
    public var stored: String {
        "pbkdf2-sha256$\(rounds)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Whether `password` is the one hashed, compared in constant time.
    public func matches(_ password: String) throws -> Bool {
        let candidate = try Self.derive(password, salt: salt, rounds: rounds)
        guard candidate.count == key.count else { return false }
        return zip(candidate, key).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func derive(_ password: String, salt: [UInt8], rounds: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds)
        return key.withUnsafeBytes { Array($0) }
    }
}
