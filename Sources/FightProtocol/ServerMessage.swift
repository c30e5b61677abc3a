import FightEngine

// MARK: - ServerMessage

/// A message the server sends: replies on the WebSocket and the bodies of the HTTP routes.
public struct ServerMessage: Hashable, Sendable {
    /// The `ref` of the client message that caused this one, on the copy sent to that client.
    public var ref: Int?
    /// What the server says.
    public var body: ServerBody

    /// Creates a message.
    public init(ref: Int? = nil, _ body: ServerBody) {
        self.ref = ref
        self.body = body
    }
}

/// What the server says, one case per message type.
public enum ServerBody: Hashable, Sendable {
    /// `GET /health`.
    case health(Health)
    /// `POST /register` and `POST /login`: the token for the WebSocket.
    case session(Session)
    /// The answer to `hello`: who the connection belongs to and their open fights.
    case welcome(Welcome)
    /// A fighter's profile: one's own with location, another's without.
    case profile(ProfileReply)
    /// The versus screen; `matchup` is absent when nobody is left within reach.
    case opponent(OpponentReply)
    /// Something happened: pushed to every connection of each fighter concerned.
    case event(WireEvent)
    /// The answer to `replay`.
    case events(EventsReply)
    /// The answer to `fight`.
    case fight(FightReply)
    /// The answer to `history`.
    case history(HistoryReply)
    /// The answer to `statistics`.
    case statistics(StatisticsReply)
    /// The power meter started by a `windUp`, and its shape.
    case meter(MeterReply)
    /// A hold's last `motion` batch came and the detector found no punch in it: nothing landed.
    case holdEnded(HoldEnded)
    /// A refusal or a bad message; nothing changed.
    case error(ProtocolError)
    /// The session of the token is over (`logout`); the server closes the connection next.
    case loggedOut
    /// The other fighter of a fight under way came (their first connection opened) or went (their
    /// last one closed), or the fight just began: pushed to the fighter, never a fight event.
    case presence(Presence)
    /// How far a teaching is: after `teach`, and after each teaching punch found.
    case teaching(TeachingProgress)
    /// The punch profile a teaching learned, now the fighter's.
    case taught(TaughtReply)
    /// The fighter's stored punch profile, or none.
    case punchProfile(PunchProfileReply)

    /// The message types, named as on the wire: the one list of them. `kind` and the decoder
    /// switch over it, so that a type added here is a compile error until both handle it.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case health, session, welcome, profile, opponent, event, events, fight, history, statistics, meter, holdEnded
        case error, loggedOut, presence, teaching, taught, punchProfile
    }

    /// The message's type.
    public var kind: Kind {
        switch self {
        case .health: .health
        case .session: .session
        case .welcome: .welcome
        case .profile: .profile
        case .opponent: .opponent
        case .event: .event
        case .events: .events
        case .fight: .fight
        case .history: .history
        case .statistics: .statistics
        case .meter: .meter
        case .holdEnded: .holdEnded
        case .error: .error
        case .loggedOut: .loggedOut
        case .presence: .presence
        case .teaching: .teaching
        case .taught: .taught
        case .punchProfile: .punchProfile
        }
    }

    /// The message type on the wire.
    public var type: String { kind.rawValue }

    /// Every message type the server sends.
    public static let types = Kind.allCases.map(\.rawValue)
}

// MARK: - Bodies

/// The body of `health`.
public struct Health: Hashable, Sendable, Codable {
    /// `ok` while the server serves and its database answers; `database unreachable` when the
    /// database does not (the answer is then 503).
    public var status: String
    /// The database the server keeps everything in: `sqlite` or `postgres` (absent from servers
    /// older than the choice).
    public var database: String?

    /// Creates a health report.
    public init(status: String = "ok", database: String? = nil) {
        self.status = status
        self.database = database
    }
}

/// The body of `session`.
public struct Session: Hashable, Sendable, Codable {
    /// The bearer token to put in every WebSocket message.
    public var token: String
    /// The fighter the token belongs to.
    public var fighter: FighterCard

    /// Creates a session reply.
    public init(token: String, fighter: FighterCard) {
        self.token = token
        self.fighter = fighter
    }
}

/// The body of `welcome`.
public struct Welcome: Hashable, Sendable, Codable {
    /// The connection's fighter.
    public var fighter: FighterCard
    /// Fights waiting for an answer or under way; compare each `lastSequence` with the last event
    /// seen and `replay` what is missing.
    public var openFights: [FightView]
    /// For each fight under way, whether the other fighter is connected now: presence is no part
    /// of a fight's state (it has no sequence, and a replay cannot bring it back), so it comes
    /// beside the fights, and `presence` messages keep it up to date from here.
    public var presence: [Presence]
    /// The fighter's punch profile, when they taught the server their punches.
    public var punchProfile: WirePunchProfile?
    /// The rules the server plays by: a client shows and keeps to these, never numbers of its own.
    /// A server older than them sends none: they are then read as this build's own (the engine's
    /// and the protocol's), what such a server played by.
    public var rules: StatedRules

    /// Creates a welcome; `rules` default to the engine's and the protocol's own.
    public init(
        fighter: FighterCard, openFights: [FightView], presence: [Presence] = [], punchProfile: WirePunchProfile? = nil,
        rules: StatedRules = StatedRules()
    ) {
        self.fighter = fighter
        self.openFights = openFights
        self.presence = presence
        self.punchProfile = punchProfile
        self.rules = rules
    }

    enum CodingKeys: String, CodingKey { case fighter, openFights, presence, punchProfile, rules }

    /// Decodes a welcome; `rules` may be absent (a server from before them).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fighter = try container.decode(FighterCard.self, forKey: .fighter)
        openFights = try container.decode([FightView].self, forKey: .openFights)
        presence = try container.decode([Presence].self, forKey: .presence)
        punchProfile = try container.decodeIfPresent(WirePunchProfile.self, forKey: .punchProfile)
        rules = try container.decodeIfPresent(StatedRules.self, forKey: .rules) ?? StatedRules()
    }
}

/// The body of `presence`: whether a fighter, the other one of a fight under way, is connected.
public struct Presence: Hashable, Sendable, Codable {
    /// The fight under way.
    public var fight: FightID
    /// The fighter the message is about (not the one it is sent to).
    public var fighter: FighterID
    /// `connected` or `gone` (or, from a newer server, a state this build does not know).
    public var state: OpenEnum<State>
    /// When the state began, as the server knows it: when the fighter's first connection opened,
    /// or their last one closed. Absent when they have not been seen since the server started.
    public var since: WireTime?

    /// Creates a presence message.
    public init(fight: FightID, fighter: FighterID, state: State, since: Timestamp?) {
        self.fight = fight
        self.fighter = fighter
        self.state = .known(state)
        self.since = since.map(WireTime.init)
    }

    /// Whether a fighter is connected, as `state` names it on the wire.
    public enum State: String, Hashable, Sendable, CaseIterable {
        /// At least one connection of theirs is open: pushes reach them.
        case connected
        /// None is: they see nothing until they are back, and their turns lapse.
        case gone
    }
}

/// The body of `profile`.
public struct ProfileReply: Hashable, Sendable, Codable {
    /// The fighter, location included.
    public var fighter: FighterCard

    /// Creates a profile reply.
    public init(fighter: FighterCard) { self.fighter = fighter }
}

/// The body of `opponent`.
public struct OpponentReply: Hashable, Sendable, Codable {
    /// The opponent shown, or `nil` when nobody is left.
    public var matchup: WireMatchup?

    /// Creates an opponent reply.
    public init(matchup: WireMatchup?) { self.matchup = matchup }
}

/// The body of `events`.
public struct EventsReply: Hashable, Sendable, Codable {
    /// The fight.
    public var fight: FightID
    /// Its events after the sequence asked for, in order.
    public var events: [WireEvent]

    /// Creates an events reply.
    public init(fight: FightID, events: [WireEvent]) {
        self.fight = fight
        self.events = events
    }
}

/// The body of `fight`.
public struct FightReply: Hashable, Sendable, Codable {
    /// The fight as it is now.
    public var fight: FightView

    /// Creates a fight reply.
    public init(fight: FightView) { self.fight = fight }
}

/// The body of `meter`: the power meter a `windUp` started, on the server's clock from the moment
/// the `windUp` arrived. A client draws it from the moment it sent the `windUp`, so that the time
/// the messages take, the same both ways, cancels out.
public struct MeterReply: Hashable, Sendable, Codable {
    /// The fight.
    public var fight: FightID
    /// The sequence the punch that stops the meter must be thrown at.
    public var after: Int
    /// The meter: its sweep, the floor, and each kind's sweet spot and ceiling.
    public var meter: PowerMeter

    /// Creates a meter reply.
    public init(fight: FightID, after: Int, meter: PowerMeter) {
        self.fight = fight
        self.after = after
        self.meter = meter
    }
}

/// The body of `history`.
public struct HistoryReply: Hashable, Sendable, Codable {
    /// Every fight of the fighter, newest first.
    public var fights: [FightView]

    /// Creates a history reply.
    public init(fights: [FightView]) { self.fights = fights }
}

/// The body of `statistics`: the original apps' counters.
public struct StatisticsReply: Hashable, Sendable, Codable {
    /// The fighter's own line.
    public var fighter: WireStatLine
    /// Every fight on the server.
    public var overall: WireStatLine
    /// The fighter against the fighter asked for, if one was.
    public var versus: WireStatLine?

    /// Creates a statistics reply.
    public init(fighter: WireStatLine, overall: WireStatLine, versus: WireStatLine? = nil) {
        self.fighter = fighter
        self.overall = overall
        self.versus = versus
    }
}

// MARK: - Codable

extension ServerMessage: Codable {
    enum CodingKeys: String, CodingKey { case type, v, ref }

    /// Decodes the envelope, then the body its `type` names.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        try ProtocolVersion.check(try container.decode(Int.self, forKey: .v))
        ref = try container.decodeIfPresent(Int.self, forKey: .ref)
        guard let kind = ServerBody.Kind(rawValue: type) else {
            throw ProtocolError(
                .unknownType,
                "unknown message type '\(type)'; expected one of \(ServerBody.types.joined(separator: ", "))")
        }
        body =
            switch kind {
            case .health: .health(try Health(from: decoder))
            case .session: .session(try Session(from: decoder))
            case .welcome: .welcome(try Welcome(from: decoder))
            case .profile: .profile(try ProfileReply(from: decoder))
            case .opponent: .opponent(try OpponentReply(from: decoder))
            case .event: .event(try WireEvent(from: decoder))
            case .events: .events(try EventsReply(from: decoder))
            case .fight: .fight(try FightReply(from: decoder))
            case .history: .history(try HistoryReply(from: decoder))
            case .statistics: .statistics(try StatisticsReply(from: decoder))
            case .meter: .meter(try MeterReply(from: decoder))
            case .holdEnded: .holdEnded(try HoldEnded(from: decoder))
            case .error: .error(try ProtocolError(from: decoder))
            case .loggedOut: .loggedOut
            case .presence: .presence(try Presence(from: decoder))
            case .teaching: .teaching(try TeachingProgress(from: decoder))
            case .taught: .taught(try TaughtReply(from: decoder))
            case .punchProfile: .punchProfile(try PunchProfileReply(from: decoder))
            }
    }

    /// Encodes the envelope and the body's fields side by side in one object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(body.type, forKey: .type)
        try container.encode(ProtocolVersion.current, forKey: .v)
        try container.encodeIfPresent(ref, forKey: .ref)
        switch body {
        case .health(let value): try value.encode(to: encoder)
        case .session(let value): try value.encode(to: encoder)
        case .welcome(let value): try value.encode(to: encoder)
        case .profile(let value): try value.encode(to: encoder)
        case .opponent(let value): try value.encode(to: encoder)
        case .event(let value): try value.encode(to: encoder)
        case .events(let value): try value.encode(to: encoder)
        case .fight(let value): try value.encode(to: encoder)
        case .history(let value): try value.encode(to: encoder)
        case .statistics(let value): try value.encode(to: encoder)
        case .meter(let value): try value.encode(to: encoder)
        case .holdEnded(let value): try value.encode(to: encoder)
        case .error(let value): try value.encode(to: encoder)
        case .loggedOut: break
        case .presence(let value): try value.encode(to: encoder)
        case .teaching(let value): try value.encode(to: encoder)
        case .taught(let value): try value.encode(to: encoder)
        case .punchProfile(let value): try value.encode(to: encoder)
        }
    }
}
