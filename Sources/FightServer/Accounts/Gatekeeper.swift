import FightEngine
import FightProtocol
import FightStore

// MARK: - Gatekeeper

/// Registration and login: turns a username and password into a session token.
struct Gatekeeper: Sendable {
    let hub: FightHub
    let store: FightStore
    let accounts: Accounts
    let clock: ServerClock
    /// PBKDF2 rounds for new passwords.
    let passwordRounds: Int
    let hashing: PasswordHashing

    /// Creates the fighter and their account, and opens a session.
    func register(_ credentials: Credentials) async throws -> Session {
        try Self.check(credentials.password)
        let rounds = passwordRounds
        let hash = try await hashing.run {
            try PasswordHash(hashing: credentials.password, rounds: rounds)
        }
        let registration = Registration(
            username: credentials.username, displayName: credentials.displayName ?? credentials.username)
        let registered = try await hub.register(registration)
        let fighter: Fighter
        switch registered {
        case .success(let registered):
            fighter = registered
        case .failure(.usernameTaken):
            // A fighter without an account is left when the server stopped between the two
            // writes; the name is still free to claim. Anyone else's name is taken.
            guard let orphan = try await store.fighter(named: credentials.username),
                try await !accounts.hasAccount(orphan.id)
            else {
                throw ProtocolError(.conflict, "username: \(credentials.username) is taken", field: "username")
            }
            fighter = orphan
        case .failure(let refusal):
            throw ProtocolError(refusal)
        }
        guard try await accounts.create(fighter.id, hash: hash, at: clock.now()) else {
            throw ProtocolError(.conflict, "username: \(credentials.username) is taken", field: "username")
        }
        return Session(
            token: try await accounts.openSession(for: fighter.id, at: clock.now()),
            fighter: FighterCard(fighter, showingLocation: true))
    }

    /// Checks the password and opens a session.
    func login(_ credentials: Credentials) async throws -> Session {
        let refused = ProtocolError(.unauthorized, "username or password does not match", field: "password")
        guard let fighter = try await store.fighter(named: credentials.username),
            let hash = try await accounts.passwordHash(of: fighter.id)
        else { throw refused }
        let matches = try await hashing.run { try hash.matches(credentials.password) }
        guard matches else { throw refused }
        let token = try await accounts.openSession(for: fighter.id, at: clock.now())
        return Session(token: token, fighter: FighterCard(fighter, showingLocation: true))
    }

    private static func check(_ password: String) throws(ProtocolError) {
        guard Credentials.passwordLengths.contains(password.count) else {
            throw ProtocolError(
                .invalid,
                "password: expected \(Credentials.passwordLengths.lowerBound) to \(Credentials.passwordLengths.upperBound) characters, got \(password.count)",
                field: "password")
        }
    }
}
