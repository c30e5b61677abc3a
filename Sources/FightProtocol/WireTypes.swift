import FightEngine

// The engine's types as the protocol shows them: flat objects with plain numbers for
// identifiers and ISO 8601 strings for moments, so that a client in any language reads them
// without knowing how Swift encodes enums.

// MARK: - Moments

/// A moment on the wire: ISO 8601 in UTC, whole seconds (`2026-11-22T05:00:00Z`).
public struct WireTime: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The moment.
    public var timestamp: Timestamp

    /// Wraps a moment.
    public init(_ timestamp: Timestamp) { self.timestamp = timestamp }

    /// Parses `2026-11-22T05:00:00Z` (an offset such as `+01:00` and a fraction of a second are accepted).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let timestamp = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected an ISO 8601 time like 2026-11-22T05:00:00Z, found '\(text)'")
        }
        self.timestamp = timestamp
    }

    /// Writes the moment as ISO 8601 in UTC.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(timestamp.iso8601)
    }

    /// The ISO 8601 text.
    public var description: String { timestamp.iso8601 }
}

// MARK: - Fighters

/// A fighter as others see them; `latitude`/`longitude` only on one's own profile.
public struct FighterCard: Hashable, Sendable, Codable {
    /// The fighter's identifier.
    public var id: Int64
    /// The unique handle.
    public var username: String
    /// The name shown.
    public var displayName: String
    /// A short introduction.
    public var bio: String
    /// Degrees north (own profile only).
    public var latitude: Double?
    /// Degrees east (own profile only).
    public var longitude: Double?
    /// Height in centimetres, if shared.
    public var heightCm: Int?
    /// Weight in kilograms, if shared.
    public var weightKg: Int?
    /// Reach in centimetres, if shared.
    public var reachCm: Int?
    /// Fights won.
    public var wins: Int
    /// Fights lost.
    public var losses: Int
    /// Fights drawn.
    public var draws: Int
    /// When the fighter registered.
    public var joinedAt: WireTime

    /// The card of `fighter`; the location only when `showingLocation` (one's own profile).
    public init(_ fighter: Fighter, showingLocation: Bool) {
        id = fighter.id.rawValue
        username = fighter.username.rawValue
        displayName = fighter.displayName
        bio = fighter.bio
        latitude = showingLocation ? fighter.location?.latitude : nil
        longitude = showingLocation ? fighter.location?.longitude : nil
        heightCm = fighter.profile.heightCm
        weightKg = fighter.profile.weightKg
        reachCm = fighter.profile.reachCm
        wins = fighter.record.wins
        losses = fighter.record.losses
        draws = fighter.record.draws
        joinedAt = WireTime(fighter.joinedAt)
    }
}

/// The body of the versus screen: the opponent, the distance and the odds.
public struct WireMatchup: Hashable, Sendable, Codable {
    /// The fighter shown.
    public var opponent: FighterCard
    /// Great-circle distance, kilometres.
    public var distanceKm: Double
    /// The chance the viewer wins, 0…1 (the engine's `Odds`).
    public var winChance: Double
    /// Decimal odds on the viewer, `1 / winChance`.
    public var decimalOdds: Double

    /// The wire form of an engine matchup.
    public init(_ matchup: Matchup) {
        opponent = FighterCard(matchup.opponent, showingLocation: false)
        distanceKm = matchup.distanceKm
        winChance = matchup.odds.viewerWins
        decimalOdds = matchup.odds.viewerDecimalOdds
    }
}

// MARK: - Fights

/// A fight as it stands.
public struct FightView: Hashable, Sendable, Codable {
    /// The fight's identifier.
    public var id: Int64
    /// The fighter who challenged (or whose room was joined); throws first.
    public var challenger: Int64
    /// The other fighter.
    public var opponent: Int64
    /// `challenged`, `active` or `finished`.
    public var phase: String
    /// While `challenged`: when the challenge lapses.
    public var expiresAt: WireTime?
    /// While `active`: who may punch, until `deadline`.
    public var turn: Int64?
    /// While `active`: when the turn passes if nobody punches.
    public var deadline: WireTime?
    /// When `finished`: `declined`, `expired`, `knockout`, `forfeit` or `points`.
    public var ending: String?
    /// When `finished` with a winner.
    public var winner: Int64?
    /// When `finished`: when.
    public var finishedAt: WireTime?
    /// The challenger's stamina left.
    public var staminaChallenger: Int
    /// The opponent's stamina left.
    public var staminaOpponent: Int
    /// Punches the challenger has thrown.
    public var punchesChallenger: Int
    /// Punches the opponent has thrown.
    public var punchesOpponent: Int
    /// The sequence number of the fight's latest event.
    public var lastSequence: Int

    /// The wire form of an engine fight.
    public init(_ fight: Fight) {
        id = fight.id.rawValue
        challenger = fight.challenger.rawValue
        opponent = fight.opponent.rawValue
        staminaChallenger = fight.stamina.challenger
        staminaOpponent = fight.stamina.opponent
        punchesChallenger = fight.punches.challenger
        punchesOpponent = fight.punches.opponent
        lastSequence = fight.lastSequence
        switch fight.phase {
        case .challenged(let expiresAt):
            phase = "challenged"
            self.expiresAt = WireTime(expiresAt)
        case .active(let turn, let deadline):
            phase = "active"
            self.turn = fight.fighter(in: turn).rawValue
            self.deadline = WireTime(deadline)
        case .finished(let ending, let at):
            phase = "finished"
            finishedAt = WireTime(at)
            switch ending {
            case .declined: self.ending = "declined"
            case .expired: self.ending = "expired"
            case .decided(let result):
                self.ending = result.decision.rawValue
                winner = result.winner?.rawValue
            }
        }
    }
}

// MARK: - Events

/// One event, flat: `kind` says which fields are present (see docs/PROTOCOL.md).
public struct WireEvent: Hashable, Sendable, Codable {
    /// `challenged`, `matched`, `accepted`, `declined`, `expired`, `punched`, `turnPassed`, `ended`
    /// for fight events; `registered`, `profileUpdated`, `moved`, `openedRoom`, `leftRoom` for a
    /// fighter's own.
    public var kind: String
    /// When it happened.
    public var at: WireTime
    /// Fight events: the fight and the event's place in its log (1, 2, 3, …).
    public var fight: Int64?
    /// Fight events: the event's place in the fight's log.
    public var sequence: Int?
    /// Fighter events: whose.
    public var fighter: Int64?
    /// `challenged`, `matched`, `ended`: who challenged.
    public var challenger: Int64?
    /// `challenged`, `matched`, `ended`: who was challenged.
    public var opponent: Int64?
    /// `challenged`: when the challenge lapses.
    public var expiresAt: WireTime?
    /// Who may punch next (absent when the fight is over).
    public var turn: Int64?
    /// Until when `turn` may punch.
    public var deadline: WireTime?
    /// `punched`: who threw it.
    public var by: Int64?
    /// `punched`: what kind of punch.
    public var punch: PunchType?
    /// `punched`: the damage it did.
    public var damage: Int?
    /// `punched`: the stamina the other fighter has left.
    public var staminaLeft: Int?
    /// `turnPassed`: how many turns in a row were let pass.
    public var missedTurns: Int?
    /// `ended`: the winner (absent for a draw) and how it was decided.
    public var winner: Int64?
    /// `ended`: `knockout`, `forfeit` or `points`.
    public var decision: String?
    /// `moved`: degrees north.
    public var latitude: Double?
    /// `moved`: degrees east.
    public var longitude: Double?

    /// An event with only its kind and moment set.
    public init(kind: String, at: Timestamp) {
        self.kind = kind
        self.at = WireTime(at)
    }

    /// The wire form of an engine event.
    public init(_ event: Event) {
        switch event {
        case .fight(let event): self.init(event)
        case .fighter(let event): self.init(event)
        }
    }

    /// The wire form of a fight event.
    public init(_ event: FightEvent) {
        self.init(kind: "", at: event.at)
        fight = event.fight.rawValue
        sequence = event.sequence
        switch event.change {
        case .challenged(let challenger, let opponent, let expiresAt):
            kind = "challenged"
            self.challenger = challenger.rawValue
            self.opponent = opponent.rawValue
            self.expiresAt = WireTime(expiresAt)
        case .matched(let challenger, let opponent, let turn):
            kind = "matched"
            self.challenger = challenger.rawValue
            self.opponent = opponent.rawValue
            set(turn)
        case .accepted(let turn):
            kind = "accepted"
            set(turn)
        case .declined: kind = "declined"
        case .expired: kind = "expired"
        case .punched(let by, let punch, let damage, let staminaLeft, let turn):
            kind = "punched"
            self.by = by.rawValue
            self.punch = punch
            self.damage = damage
            self.staminaLeft = staminaLeft
            if let turn { set(turn) }
        case .turnPassed(let missedTurns, let turn):
            kind = "turnPassed"
            self.missedTurns = missedTurns
            set(turn)
        case .ended(let result):
            kind = "ended"
            challenger = result.challenger.rawValue
            opponent = result.opponent.rawValue
            winner = result.winner?.rawValue
            decision = result.decision.rawValue
        }
    }

    /// The wire form of a fighter event.
    public init(_ event: FighterEvent) {
        self.init(kind: "", at: event.at)
        fighter = event.fighter.rawValue
        switch event.change {
        case .registered: kind = "registered"
        case .profileUpdated: kind = "profileUpdated"
        case .moved(let location):
            kind = "moved"
            latitude = location.latitude
            longitude = location.longitude
        case .openedRoom: kind = "openedRoom"
        case .leftRoom: kind = "leftRoom"
        }
    }

    private mutating func set(_ turn: Turn) {
        self.turn = turn.fighter.rawValue
        deadline = WireTime(turn.deadline)
    }
}

// MARK: - Statistics

/// One line of statistics, as the original apps kept them.
public struct WireStatLine: Hashable, Sendable, Codable {
    /// Fights fought to a result.
    public var qtyBattles: Int
    /// Of those, fights won (overall: fights that had a winner).
    public var qtyWins: Int
    /// When the latest battle ended.
    public var lastBattle: WireTime?
    /// When the latest win was.
    public var lastWin: WireTime?

    /// The wire form of a statistics line.
    public init(_ line: StatLine) {
        qtyBattles = line.qtyBattles
        qtyWins = line.qtyWins
        lastBattle = line.lastBattle.map(WireTime.init)
        lastWin = line.lastWin.map(WireTime.init)
    }
}
