import FightServer
import Foundation
import Testing

@Suite struct PasswordHashTests {
    @Test func theHashMatchesItsPasswordAndNoOther() throws {
        let hash = try PasswordHash(hashing: "correct horse", rounds: 1_000)
        #expect(try hash.matches("correct horse"))
        #expect(try !hash.matches("correct horsE"))
        #expect(try !hash.matches(""))
    }

    @Test func theStoredFormKeepsRoundsSaltAndKeyAndNotThePassword() throws {
        let hash = try PasswordHash(hashing: "correct horse", rounds: 1_234)
        #expect(!hash.stored.contains("correct"))
        #expect(hash.stored.hasPrefix("pbkdf2-sha256$1234$"))
        let read = try #require(PasswordHash(stored: hash.stored))
        #expect(read == hash)
        #expect(try read.matches("correct horse"))
    }

    @Test func twoHashesOfOnePasswordDiffer() throws {
        let (a, b) = (
            try PasswordHash(hashing: "same", rounds: 1_000), try PasswordHash(hashing: "same", rounds: 1_000)
        )
        #expect(a.salt != b.salt && a.key != b.key)
    }

    /// RFC 7914 §11 gives PBKDF2-HMAC-SHA256 of "passwd" with salt "salt", 1 round, 64 bytes; its
    /// first 32 bytes are what one round with a 32-byte key must give.
    @Test func oneRoundMatchesRFC7914() throws {
        let expected: [UInt8] = [
            0x55, 0xac, 0x04, 0x6e, 0x56, 0xe3, 0x08, 0x9f, 0xec, 0x16, 0x91, 0xc2, 0x25, 0x44, 0xb6, 0x05,
            0xf9, 0x41, 0x85, 0x21, 0x6d, 0xde, 0x04, 0x65, 0xe6, 0x8b, 0x9d, 0x57, 0xc2, 0x0d, 0xac, 0xbc,
        ]
        let stored =
            "pbkdf2-sha256$1$\(Data("salt".utf8).base64EncodedString())$\(Data(expected).base64EncodedString())"
        let hash = try #require(PasswordHash(stored: stored))
        #expect(try hash.matches("passwd"))
    }

    @Test(arguments: [
        "", "bcrypt$1$a$b", "pbkdf2-sha256$0$AAAA$AAAA", "pbkdf2-sha256$x$AAAA$AAAA", "pbkdf2-sha256$1$!!$AAAA",
    ])
    func malformedStoredFormsAreNotHashes(_ stored: String) {
        #expect(PasswordHash(stored: stored) == nil)
    }
}
