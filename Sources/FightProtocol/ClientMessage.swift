import FightEngine

// MARK: - ClientMessage

/// A message a player's client sends over the WebSocket: `{"type": …, "v": 1, "token": …, …}`.
///
/// Every message carries the session token from `POST /login`, so each one is checked on its own;
/// `ref`, when given, is echoed on the replies and events the message causes.
public struct ClientMessage: Hashable, Sendable {
    /// The session token.
    public var token: String
    /// A number of the client's choosing, echoed on what this message causes.
    public var ref: Int?
    /// What the client asks for.
    public var request: ClientRequest

    /// Creates a message.
    public init(token: String, ref: Int? = nil, _ request: ClientRequest) {
        self.token = token
        self.ref = ref
        self.request = request
    }
}

/// What a client can ask for, one case per message type.
public enum ClientRequest: Hashable, Sendable {
    /// Binds the connection to the token's fighter: live events start; answered by `welcome`.
    case hello
    /// A fighter's profile (one's own, location included, unless `fighter` names another);
    /// answered by `profile`.
    case profile(ProfileRequest)
    /// Replaces display name, bio and stats; answered by `event`s.
    case updateProfile(ProfileUpdate)
    /// Sets the fighter's location; answered by an `event`.
    case move(Location)
    /// The versus screen: the nearest fighter not shown before; answered by `opponent`.
    case nextOpponent
    /// Declines the opponent shown and shows the next; answered by `opponent`.
    case backDown
    /// Challenges a fighter; answered by `event`s.
    case challenge(OpponentRef)
    /// Accepts a challenge.
    case accept(FightRef)
    /// Declines a challenge.
    case decline(FightRef)
    /// Joins the oldest waiting fighter, or opens a room.
    case quickMatch
    /// Closes one's own quick-match room.
    case leaveQuickMatch
    /// Starts the power meter for a punch in the sender's turn; answered by `meter`.
    case windUp(WindUpRequest)
    /// Throws a punch: from the wind-up's meter, or at a sensor's damage.
    case punch(PunchRequest)
    /// A batch of a sensor's samples while the punch button is held: the server's detector finds
    /// the punch; answered by the `punched` event when it does, by `holdEnded` when the hold's last
    /// batch came without one, and by nothing otherwise.
    case motion(MotionBatch)
    /// Takes up a guard in a fight under way; answered by `fight`, the fight with `ownGuard` set.
    case raiseGuard(GuardRequest)
    /// Gives up a fight.
    case forfeit(FightRef)
    /// One fight's current state; answered by `fight`.
    case fight(FightRef)
    /// The events of a fight after a sequence number; answered by `events`.
    case replay(ReplayRequest)
    /// Every fight the fighter was in; answered by `history`.
    case history
    /// Statistics for the fighter, overall, and against one fighter; answered by `statistics`.
    case statistics(StatisticsRequest)
    /// Ends the token's session; answered by `loggedOut`, then the connection is closed.
    case logout
    /// Starts teaching the server this fighter's punches; answered by `teaching`.
    case teach(TeachRequest)
    /// A batch of a teaching hold; answered by `teaching` (or `taught`) when its punch is found,
    /// by `noPunchFound` when the hold's last batch came without one, and by nothing otherwise.
    case teachMotion(TeachingBatch)
    /// Learns the profile from the punches taught so far; answered by `taught`.
    case teachDone
    /// The fighter's stored punch profile; answered by `punchProfile`.
    case punchProfile
    /// Deletes the fighter's punch profile; answered by `punchProfile` without one.
    case forgetPunchProfile

    /// The message types, named as on the wire: the one list of them. `kind` and the decoder
    /// switch over it, so that a type added here is a compile error until both handle it.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case hello, profile, updateProfile, move, nextOpponent, backDown, challenge, accept, decline
        case quickMatch, leaveQuickMatch, windUp, punch, motion, raiseGuard, forfeit, fight, replay, history, statistics
        case logout, teach, teachMotion, teachDone, punchProfile, forgetPunchProfile
    }

    /// The message's type.
    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .profile: .profile
        case .updateProfile: .updateProfile
        case .move: .move
        case .nextOpponent: .nextOpponent
        case .backDown: .backDown
        case .challenge: .challenge
        case .accept: .accept
        case .decline: .decline
        case .quickMatch: .quickMatch
        case .leaveQuickMatch: .leaveQuickMatch
        case .windUp: .windUp
        case .punch: .punch
        case .motion: .motion
        case .raiseGuard: .raiseGuard
        case .forfeit: .forfeit
        case .fight: .fight
        case .replay: .replay
        case .history: .history
        case .statistics: .statistics
        case .logout: .logout
        case .teach: .teach
        case .teachMotion: .teachMotion
        case .teachDone: .teachDone
        case .punchProfile: .punchProfile
        case .forgetPunchProfile: .forgetPunchProfile
        }
    }

    /// The message type on the wire.
    public var type: String { kind.rawValue }

    /// The fight the request acts in, if it names one.
    public var fight: FightID? {
        switch self {
        case .accept(let ref), .decline(let ref), .forfeit(let ref), .fight(let ref): ref.fight
        case .windUp(let request): request.fight
        case .punch(let request): request.fight
        case .motion(let batch): batch.fight
        case .raiseGuard(let request): request.fight
        case .replay(let request): request.fight
        case .hello, .profile, .updateProfile, .move, .nextOpponent, .backDown, .challenge, .quickMatch,
            .leaveQuickMatch, .history, .statistics, .logout, .teach, .teachMotion, .teachDone, .punchProfile,
            .forgetPunchProfile:
            nil
        }
    }

    /// Every message type a client may send.
    public static let types = Kind.allCases.map(\.rawValue)
}

// MARK: - Payloads

/// The body of `profile`.
public struct ProfileRequest: Hashable, Sendable, Codable {
    /// Another fighter, whose card (without location) is wanted; absent for one's own profile.
    public var fighter: FighterID?

    /// Asks for one's own profile, or `fighter`'s card.
    public init(fighter: FighterID? = nil) { self.fighter = fighter }
}

/// The body of `updateProfile`.
public struct ProfileUpdate: Hashable, Sendable, Codable {
    /// The name to show, 1–50 characters.
    public var displayName: String
    /// A short introduction, at most 300 characters.
    public var bio: String
    /// Height in centimetres, if shared.
    public var heightCm: Int?
    /// Weight in kilograms, if shared.
    public var weightKg: Int?
    /// Reach in centimetres, if shared.
    public var reachCm: Int?

    /// Creates a profile update.
    public init(displayName: String, bio: String, heightCm: Int? = nil, weightKg: Int? = nil, reachCm: Int? = nil) {
        self.displayName = displayName
        self.bio = bio
        self.heightCm = heightCm
        self.weightKg = weightKg
        self.reachCm = reachCm
    }
}

/// The body of `move`: degrees, WGS 84.
public struct Location: Hashable, Sendable, Codable {
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double

    /// Creates a location.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// The body of `challenge`: whom.
public struct OpponentRef: Hashable, Sendable, Codable {
    /// The fighter challenged.
    public var opponent: FighterID

    /// Names the fighter to challenge.
    public init(opponent: FighterID) { self.opponent = opponent }
}

/// The body of messages about one fight.
public struct FightRef: Hashable, Sendable, Codable {
    /// The fight.
    public var fight: FightID

    /// Names a fight.
    public init(fight: FightID) { self.fight = fight }
}

/// The body of `windUp`.
public struct WindUpRequest: Hashable, Sendable, Codable {
    /// The fight.
    public var fight: FightID
    /// The last sequence number of the fight the client has seen: the punch that stops this
    /// meter must be thrown at the same one.
    public var after: Int

    /// Creates a wind-up.
    public init(fight: FightID, after: Int) {
        self.fight = fight
        self.after = after
    }
}

/// The body of `punch`: the power meter's punch, stopping the `windUp` before it. No client states
/// a damage: the server works it out from what it can check, the time since the `windUp` on its own
/// clock (a sensor's punches come as `motion`, judged by the server's detector).
public struct PunchRequest: Hashable, Sendable {
    /// The fight.
    public var fight: FightID
    /// `jab`, `uppercut` or `hook`.
    public var kind: PunchType
    /// The last sequence number of the fight the client has seen. A punch is thrown at the fight
    /// as the client saw it: if anything happened since (or the punch already landed), it is
    /// refused as `stale` instead of landing on a fight the player has not seen, or landing twice.
    public var after: Int

    /// Creates a punch.
    public init(fight: FightID, kind: PunchType, after: Int) {
        self.fight = fight
        self.kind = kind
        self.after = after
    }
}

extension PunchRequest: Codable {
    private enum CodingKeys: String, CodingKey { case fight, kind, after, damage }

    /// Decodes a punch; one stating a `damage` is refused by name rather than its damage ignored,
    /// so that a client written for when a sensor's punch stated its damage learns why.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard !container.contains(.damage) else {
            throw ProtocolError(
                .invalid,
                "damage: not taken; the server works a punch's damage out itself: windUp then punch for the power meter, motion for a sensor",
                field: "damage")
        }
        fight = try container.decode(FightID.self, forKey: .fight)
        kind = try container.decode(PunchType.self, forKey: .kind)
        after = try container.decode(Int.self, forKey: .after)
    }

    /// Encodes the punch's fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fight, forKey: .fight)
        try container.encode(kind, forKey: .kind)
        try container.encode(after, forKey: .after)
    }
}

/// The body of `raiseGuard`.
public struct GuardRequest: Hashable, Sendable, Codable {
    /// The fight.
    public var fight: FightID
    /// `high` (blunts jabs and hooks) or `low` (blunts uppercuts).
    public var `guard`: Guard

    /// Takes up `guard` in `fight`.
    public init(fight: FightID, guard: Guard) {
        self.fight = fight
        self.guard = `guard`
    }
}

/// The body of `replay`.
public struct ReplayRequest: Hashable, Sendable, Codable {
    /// The fight.
    public var fight: FightID
    /// The last sequence number the client has; events after it come back (0 for all).
    public var after: Int

    /// Asks for the events of `fight` after `after`.
    public init(fight: FightID, after: Int) {
        self.fight = fight
        self.after = after
    }
}

/// The body of `statistics`.
public struct StatisticsRequest: Hashable, Sendable, Codable {
    /// Also the line against this fighter.
    public var versus: FighterID?

    /// Asks for statistics, optionally against one fighter.
    public init(versus: FighterID? = nil) { self.versus = versus }
}

// MARK: - Codable

extension ClientMessage: Codable {
    enum CodingKeys: String, CodingKey { case type, v, token, ref }

    /// Decodes the envelope first, then the body its `type` names; an unknown type or version is a
    /// `ProtocolError`, a missing or mistyped field a `DecodingError` naming the field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        try ProtocolVersion.check(try container.decode(Int.self, forKey: .v))
        token = try container.decode(String.self, forKey: .token)
        ref = try container.decodeIfPresent(Int.self, forKey: .ref)
        guard let kind = ClientRequest.Kind(rawValue: type) else {
            throw ProtocolError(
                .unknownType,
                "unknown message type '\(type)'; expected one of \(ClientRequest.types.joined(separator: ", "))")
        }
        request =
            switch kind {
            case .hello: .hello
            case .profile: .profile(try ProfileRequest(from: decoder))
            case .updateProfile: .updateProfile(try ProfileUpdate(from: decoder))
            case .move: .move(try Location(from: decoder))
            case .nextOpponent: .nextOpponent
            case .backDown: .backDown
            case .challenge: .challenge(try OpponentRef(from: decoder))
            case .accept: .accept(try FightRef(from: decoder))
            case .decline: .decline(try FightRef(from: decoder))
            case .quickMatch: .quickMatch
            case .leaveQuickMatch: .leaveQuickMatch
            case .windUp: .windUp(try WindUpRequest(from: decoder))
            case .punch: .punch(try PunchRequest(from: decoder))
            case .motion: .motion(try MotionBatch(from: decoder))
            case .raiseGuard: .raiseGuard(try GuardRequest(from: decoder))
            case .forfeit: .forfeit(try FightRef(from: decoder))
            case .fight: .fight(try FightRef(from: decoder))
            case .replay: .replay(try ReplayRequest(from: decoder))
            case .history: .history
            case .statistics: .statistics(try StatisticsRequest(from: decoder))
            case .logout: .logout
            case .teach: .teach(try TeachRequest(from: decoder))
            case .teachMotion: .teachMotion(try TeachingBatch(from: decoder))
            case .teachDone: .teachDone
            case .punchProfile: .punchProfile
            case .forgetPunchProfile: .forgetPunchProfile
            }
    }

    /// Encodes the envelope and the body's fields side by side in one object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(request.type, forKey: .type)
        try container.encode(ProtocolVersion.current, forKey: .v)
        try container.encode(token, forKey: .token)
        try container.encodeIfPresent(ref, forKey: .ref)
        switch request {
        case .hello, .nextOpponent, .backDown, .quickMatch, .leaveQuickMatch, .history, .logout, .teachDone,
            .punchProfile, .forgetPunchProfile:
            break
        case .profile(let body): try body.encode(to: encoder)
        case .updateProfile(let body): try body.encode(to: encoder)
        case .move(let body): try body.encode(to: encoder)
        case .challenge(let body): try body.encode(to: encoder)
        case .accept(let body), .decline(let body), .forfeit(let body), .fight(let body): try body.encode(to: encoder)
        case .windUp(let body): try body.encode(to: encoder)
        case .punch(let body): try body.encode(to: encoder)
        case .motion(let body): try body.encode(to: encoder)
        case .raiseGuard(let body): try body.encode(to: encoder)
        case .replay(let body): try body.encode(to: encoder)
        case .statistics(let body): try body.encode(to: encoder)
        case .teach(let body): try body.encode(to: encoder)
        case .teachMotion(let body): try body.encode(to: encoder)
        }
    }
}

// MARK: - Version

/// The protocol's version: the `v` of every message.
public enum ProtocolVersion {
    /// The only version this server speaks.
    public static let current = 1

    static func check(_ version: Int) throws(ProtocolError) {
        guard version == current else {
            throw ProtocolError(.unsupportedVersion, "v: expected \(current), got \(version)", field: "v")
        }
    }
}
