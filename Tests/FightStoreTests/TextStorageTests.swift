import FightEngine
import Testing

@testable import FightStore

/// What a fighter writes comes back as written: GRDB binds and reads a `String` as a C string,
/// which cut text at its first NUL ("ab\0cd" came back "ab"), so the store binds and reads
/// fighters' text by its length (`WholeText`).
@Suite struct TextStorageTests {
    @Test(arguments: Backend.available) func everyAcceptedNameAndBioComesBackWhole(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let texts = [
            "🥊 Rocky 🇮🇹", "👩🏽‍🦱 Zoë", "e\u{301}le\u{300}ve", "محمد علي", "李小龍", "  padded  ", "x",
            String(repeating: "🥊", count: 50),
        ]
        do {
            let store = try await database.open()
            for (n, text) in texts.enumerated() {
                try await store.run(
                    .register(Registration(username: "fighter\(n)", displayName: text, bio: "\(text)\n\tand more")))
            }
        }
        let reopened = try await database.open()  // read from the file, not from anything kept in memory
        for (n, text) in texts.enumerated() {
            let fighter = try #require(try await reopened.fighter(named: "FIGHTER\(n)"))
            #expect(fighter.displayName == text)
            #expect(fighter.displayName.unicodeScalars.elementsEqual(text.unicodeScalars))
            #expect(fighter.bio == "\(text)\n\tand more")
        }
        // Still TEXT in the file, so other readers and SQL comparisons see text (PostgreSQL's
        // columns are typed: nothing else can be in them).
        if backend == .sqlite {
            let types = try await reopened.sql("SELECT DISTINCT typeof(display_name) || typeof(bio) AS types FROM fighters")
                .map { try $0.get("types", as: String.self) }
            #expect(types == ["texttext"])
        }
    }

    /// SQLite keeps the NUL; PostgreSQL cannot hold one in text and refuses the write whole.
    @Test(arguments: Backend.available) func aNULTheStoreIsGivenIsKeptNotCut(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        let id = try await store.register("alice")
        var fighter = try #require(try await store.fighter(id))
        let original = fighter
        // The engine refuses these; the store, given them anyway, must not cut them.
        fighter.displayName = "ab\u{0}cd"
        fighter.bio = "\u{0}abc\u{0}"
        let save = { [fighter] in try await store.database.perform([.fighter(fighter, moved: false)]) }
        switch backend {
        case .sqlite:
            try await save()
            let read = try #require(try await store.fighter(id))
            #expect(Array(read.displayName.utf8) == Array("ab\u{0}cd".utf8))
            #expect(Array(read.bio.utf8) == Array("\u{0}abc\u{0}".utf8))
        case .postgres:
            await #expect { try await save() } throws: { ($0 as? PostgresFailure)?.sqlState == "22021" }
            #expect(try await store.fighter(id) == original)
        }
    }

    @Test(arguments: Backend.available) func aUsernameWithANULFindsNobody(backend: Backend) async throws {
        let database = try TestDatabase(backend)
        let store = try await database.open()
        _ = try await store.register("alice")
        // Bound as a C string, "alice\0x" was "alice": a login would have found alice.
        #expect(try await store.fighter(named: "alice\u{0}x") == nil)
        #expect(try await store.fighter(named: "ALICE") != nil)
        let outcome = try await store.execute(.register(Registration(username: "alice\u{0}x", displayName: "x")), at: start)
        guard case .failure(.invalid(let error)) = outcome else {
            Issue.record("registering alice\\0x: \(outcome)")
            return
        }
        #expect(error.field == .username)
    }
}
