import FightEngine

// MARK: - ProtocolError

/// Why a message was not acted on: the body of an `error` message. Nothing changed on the server,
/// and the connection stays open.
public struct ProtocolError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// What kind of problem, for programs.
    public var code: Code
    /// What went wrong, for people: names the field and what was expected.
    public var message: String
    /// The field at fault, when one is (`damage`, `token`, `latitude`, …).
    public var field: String?
    /// For `refused`: the engine's reason (`waitYourTurn`, `notInFight`, …); for `unauthorized`,
    /// `sessionExpired` when the token's session lapsed. A reason from a newer server that this
    /// build does not know is kept as `unknown`, and the error still reads.
    public var reason: OpenEnum<Reason>?

    /// Creates an error.
    public init(_ code: Code, _ message: String, field: String? = nil, reason: Reason? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason.map(OpenEnum.known)
    }

    /// The kinds of problem.
    public enum Code: String, Hashable, Sendable, Codable, CaseIterable {
        /// Not JSON, or not an object with `type` and `v`.
        case malformed
        /// `type` names no message.
        case unknownType
        /// `v` is not a version this server speaks.
        case unsupportedVersion
        /// A field is missing, has the wrong type, or breaks a rule.
        case invalid
        /// The message is longer than the server reads (`ProtocolLimits.maxMessageBytes`).
        case tooLarge
        /// The token is unknown (never issued, or logged out) or lapsed (`reason` `sessionExpired`),
        /// or the username and password do not match.
        case unauthorized
        /// The token belongs to another fighter than the one this connection said `hello` as.
        case wrongFighter
        /// More messages than the server takes from one connection, or from one fighter over all
        /// their connections; wait and send again.
        case rateLimited
        /// The fight changed since the sequence number the punch was thrown at.
        case stale
        /// The rules refuse it; `reason` says which.
        case refused
        /// A username that is taken (registration).
        case conflict
        /// The server failed; the message may be sent again.
        case internalError
    }

    /// Why a request was refused, as `reason` names it on the wire: the engine's refusals, and
    /// the one reason for `unauthorized`.
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// Registration: the username is taken (whatever the case).
        case usernameTaken
        /// No fighter has that id.
        case unknownFighter
        /// No fight has that id.
        case unknownFight
        /// A fighter cannot challenge themself.
        case cannotChallengeSelf
        /// The two fighters already have an open fight.
        case pairAlreadyFighting
        /// The sender is not in that fight.
        case notInFight
        /// Only the fighter challenged may answer the challenge.
        case notTheChallenged
        /// The challenge lapsed unanswered.
        case challengeExpired
        /// The challenge was already answered.
        case challengeNotPending
        /// The fight is not under way (not accepted yet, or over).
        case fightNotActive
        /// It is the other fighter's turn.
        case waitYourTurn
        /// Quick match: the fighter already waits in a room.
        case alreadyWaiting
        /// Leaving quick match: the fighter waits in no room.
        case notWaiting
        /// Matchmaking needs the fighter's location first.
        case noLocation
        /// `unauthorized`: the token's session lapsed unused.
        case sessionExpired
        /// `refused`: a punch without damage (from the power meter) came with no `windUp` before
        /// it on this connection, at the same sequence.
        case notWoundUp
        /// `refused`: a `teachMotion` or `teachDone` with no teaching under way (`teach` first).
        case notTeaching
        /// `refused`: a teaching hold's last batch came and no punch was found in it.
        case noPunchFound
        /// `refused`: `teachDone` with a kind taught fewer punches than a profile needs.
        case tooFewPunches
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

extension ProtocolError {
    /// The engine's refusal, with its case name as the reason (`invalid` and `stale` as their own
    /// codes, with the field at fault).
    public init(_ refusal: Refusal) {
        let reason: Reason
        var field: String?
        switch refusal {
        case .invalid(let error):
            self.init(.invalid, error.description, field: error.field.rawValue)
            return
        case .stale:
            // Its own code, not `refused`: the client replays and throws again.
            self.init(.stale, refusal.description, field: "after")
            return
        case .usernameTaken: reason = .usernameTaken
        case .unknownFighter: reason = .unknownFighter
        case .unknownFight: reason = .unknownFight; field = "fight"
        case .cannotChallengeSelf: reason = .cannotChallengeSelf
        case .pairAlreadyFighting: reason = .pairAlreadyFighting
        case .notInFight: reason = .notInFight; field = "fight"
        case .notTheChallenged: reason = .notTheChallenged
        case .challengeExpired: reason = .challengeExpired
        case .challengeNotPending: reason = .challengeNotPending
        case .fightNotActive: reason = .fightNotActive
        case .waitYourTurn: reason = .waitYourTurn
        case .alreadyWaiting: reason = .alreadyWaiting
        case .notWaiting: reason = .notWaiting
        case .noLocation: reason = .noLocation
        }
        self.init(.refused, refusal.description, field: field, reason: reason)
    }
}

// MARK: - Limits

/// How much the server takes from a client.
public enum ProtocolLimits {
    /// The longest message answered (bytes of UTF-8); a longer one gets `tooLarge`. Messages
    /// longer than `maxFrameBytes` close the connection (WebSocket status 1009).
    public static let maxMessageBytes = 16 * 1024
    /// The longest WebSocket message read at all.
    public static let maxFrameBytes = 1 << 20
}
