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
    public var id: FighterID
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
        id = fighter.id
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
    public var id: FightID
    /// The fighter who challenged (or whose room was joined); throws first.
    public var challenger: FighterID
    /// The other fighter.
    public var opponent: FighterID
    /// Where the fight stands; it says which of the fields below are set.
    public var phase: Phase
    /// While `challenged`: when the challenge lapses.
    public var expiresAt: WireTime?
    /// While `active`: who may punch, until `deadline`.
    public var turn: FighterID?
    /// While `active`: when the turn passes if nobody punches.
    public var deadline: WireTime?
    /// When `finished`: `declined`, `expired`, `knockout`, `forfeit` or `points` (or, from a newer
    /// server, a way to end this build does not know).
    public var ending: OpenEnum<Ending>?
    /// When `finished` with a winner.
    public var winner: FighterID?
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
    /// While `active`: turns the challenger let lapse in a row since their last punch; at
    /// `Rules.missedTurnsToForfeit` they lose by forfeit.
    public var missedTurnsChallenger: Int?
    /// While `active`: turns the opponent let lapse in a row since their last punch.
    public var missedTurnsOpponent: Int?
    /// The sequence number of the fight's latest event.
    public var lastSequence: Int
    /// While `active`, to one of its fighters: the guard they have taken up, if any. Never the
    /// other's: a guard stays hidden from the attacker until it blunts a punch.
    public var ownGuard: Guard?

    /// The wire form of an engine fight as `viewer` sees it: their own guard shown.
    public init(_ fight: Fight, seenBy viewer: FighterID) {
        self.init(fight)
        if case .active = fight.phase, let corner = fight.corner(of: viewer) { ownGuard = fight.guards[corner] }
    }

    /// The wire form of an engine fight, no guard shown.
    public init(_ fight: Fight) {
        id = fight.id
        challenger = fight.challenger
        opponent = fight.opponent
        staminaChallenger = fight.stamina.challenger
        staminaOpponent = fight.stamina.opponent
        punchesChallenger = fight.punches.challenger
        punchesOpponent = fight.punches.opponent
        lastSequence = fight.lastSequence
        switch fight.phase {
        case .challenged(let expiresAt):
            phase = .challenged
            self.expiresAt = WireTime(expiresAt)
        case .active(let turn, let deadline):
            phase = .active
            self.turn = fight.fighter(in: turn)
            self.deadline = WireTime(deadline)
            // Only while it is fought: the lapse that ends a fight by forfeit is told by `ended`
            // alone, so a finished fight's counts are not what its events add up to.
            missedTurns = fight.missedTurns
        case .finished(let ending, let at):
            phase = .finished
            finishedAt = WireTime(at)
            switch ending {
            case .declined: self.ending = .known(.declined)
            case .expired: self.ending = .known(.expired)
            case .decided(let result):
                self.ending = .known(Ending(result.decision))
                winner = result.winner
            }
        }
    }
}

extension FightView {
    /// While `active`: both fighters' missed turns in a row, as the engine counts them.
    public var missedTurns: Both<Int>? {
        get { missedTurnsChallenger.flatMap { challenger in missedTurnsOpponent.map { Both(challenger, $0) } } }
        set { (missedTurnsChallenger, missedTurnsOpponent) = (newValue?.challenger, newValue?.opponent) }
    }

    /// The corner `fighter` fights from, or `nil` when they are not in this fight.
    public func corner(of fighter: FighterID) -> Corner? {
        fighter == challenger ? .challenger : fighter == opponent ? .opponent : nil
    }

    /// Where a fight stands, as `phase` names it on the wire.
    public enum Phase: String, Hashable, Sendable, Codable, CaseIterable {
        /// A challenge waits for its answer (`expiresAt`).
        case challenged
        /// The fight is on (`turn`, `deadline`).
        case active
        /// The fight is over (`ending`, `winner`, `finishedAt`).
        case finished
    }

    /// How a fight ended, as `ending` names it on the wire: the challenge's two ways not to be
    /// fought, then the engine's decisions.
    public enum Ending: String, Hashable, Sendable, CaseIterable {
        /// The challenge was declined.
        case declined
        /// The challenge lapsed unanswered.
        case expired
        /// A punch took the loser's stamina to zero.
        case knockout
        /// The loser gave up.
        case forfeit
        /// Decided on stamina after every punch was thrown.
        case points

        /// Whether the fight was fought to a result, which changed both records (not declined or
        /// expired).
        public var isDecided: Bool {
            switch self {
            case .declined, .expired: false
            case .knockout, .forfeit, .points: true
            }
        }

        /// The ending a fight fought to `decision` has.
        public init(_ decision: FightResult.Decision) {
            switch decision {
            case .knockout: self = .knockout
            case .forfeit: self = .forfeit
            case .points: self = .points
            }
        }
    }
}

extension OpenEnum where Known == FightView.Ending {
    /// The ending of a fight decided by `decision`, a name this build does not know kept as it came.
    public init(_ decision: OpenEnum<FightResult.Decision>) {
        switch decision {
        case .known(let decision): self = .known(FightView.Ending(decision))
        case .unknown(let name): self = .unknown(name)
        }
    }
}

// MARK: - Events

/// One event, flat: `kind` says which fields are present (see docs/PROTOCOL.md).
public struct WireEvent: Hashable, Sendable, Codable {
    /// What happened; it says which of the other fields are set.
    public var kind: Kind
    /// When it happened.
    public var at: WireTime
    /// Fight events: the fight and the event's place in its log (1, 2, 3, …).
    public var fight: FightID?
    /// Fight events: the event's place in the fight's log.
    public var sequence: Int?
    /// Fighter events: whose.
    public var fighter: FighterID?
    /// `challenged`, `matched`, `ended`: who challenged.
    public var challenger: FighterID?
    /// `challenged`, `matched`, `ended`: who was challenged.
    public var opponent: FighterID?
    /// `challenged`: when the challenge lapses.
    public var expiresAt: WireTime?
    /// Who may punch next (absent when the fight is over).
    public var turn: FighterID?
    /// Until when `turn` may punch.
    public var deadline: WireTime?
    /// `punched`: who threw it.
    public var by: FighterID?
    /// `punched`: what kind of punch.
    public var punch: PunchType?
    /// `punched`: the damage it did.
    public var damage: Int?
    /// `punched`: the defender's guard, when it halved the punch.
    public var bluntedBy: Guard?
    /// `punched`: the stamina the other fighter has left.
    public var staminaLeft: Int?
    /// `punched`: `true` when the sensor that measured the punch was at its full scale at the
    /// stop, so the swing was harder than it could measure (absent otherwise).
    public var clipped: Bool?
    /// `turnPassed`: how many turns in a row were let pass.
    public var missedTurns: Int?
    /// `ended`: the winner (absent for a draw) and how it was decided.
    public var winner: FighterID?
    /// `ended`: `knockout`, `forfeit` or `points` (or, from a newer server, a decision this build
    /// does not know).
    public var decision: OpenEnum<FightResult.Decision>?
    /// `moved`: degrees north.
    public var latitude: Double?
    /// `moved`: degrees east.
    public var longitude: Double?

    /// An event with only its kind and moment set.
    public init(kind: Kind, at: Timestamp) {
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
        switch event.change {
        case .challenged(let challenger, let opponent, let expiresAt):
            self.init(kind: .challenged, at: event.at)
            self.challenger = challenger
            self.opponent = opponent
            self.expiresAt = WireTime(expiresAt)
        case .matched(let challenger, let opponent, let turn):
            self.init(kind: .matched, at: event.at)
            self.challenger = challenger
            self.opponent = opponent
            set(turn)
        case .accepted(let turn):
            self.init(kind: .accepted, at: event.at)
            set(turn)
        case .declined: self.init(kind: .declined, at: event.at)
        case .expired: self.init(kind: .expired, at: event.at)
        case .punched(let by, let punch, let damage, let bluntedBy, let staminaLeft, let turn, let clipped):
            self.init(kind: .punched, at: event.at)
            self.by = by
            self.punch = punch
            self.damage = damage
            self.bluntedBy = bluntedBy
            self.staminaLeft = staminaLeft
            self.clipped = clipped
            if let turn { set(turn) }
        case .turnPassed(let missedTurns, let turn):
            self.init(kind: .turnPassed, at: event.at)
            self.missedTurns = missedTurns
            set(turn)
        case .ended(let result):
            self.init(kind: .ended, at: event.at)
            challenger = result.challenger
            opponent = result.opponent
            winner = result.winner
            decision = .known(result.decision)
        }
        fight = event.fight
        sequence = event.sequence
    }

    /// The wire form of a fighter event.
    public init(_ event: FighterEvent) {
        switch event.change {
        case .registered: self.init(kind: .registered, at: event.at)
        case .profileUpdated: self.init(kind: .profileUpdated, at: event.at)
        case .moved(let location):
            self.init(kind: .moved, at: event.at)
            latitude = location.latitude
            longitude = location.longitude
        case .openedRoom: self.init(kind: .openedRoom, at: event.at)
        case .leftRoom: self.init(kind: .leftRoom, at: event.at)
        }
        fighter = event.fighter
    }

    private mutating func set(_ turn: Turn) {
        self.turn = turn.fighter
        deadline = WireTime(turn.deadline)
    }

    /// The engine's change this fight event stands for (what `init(_:)` made it from), so that a
    /// client counts with the engine's own rules (`Both.counting(_:corner:)`); `nil` for a fighter
    /// event, a field missing, or a decision this build does not know.
    public var fightChange: FightEvent.Change? {
        let turn = self.turn.flatMap { fighter in deadline.map { Turn(fighter: fighter, deadline: $0.timestamp) } }
        switch kind {
        case .challenged:
            guard let challenger, let opponent, let expiresAt else { return nil }
            return .challenged(challenger: challenger, opponent: opponent, expiresAt: expiresAt.timestamp)
        case .matched:
            guard let challenger, let opponent, let turn else { return nil }
            return .matched(challenger: challenger, opponent: opponent, turn: turn)
        case .accepted:
            return turn.map { .accepted(turn: $0) }
        case .declined: return .declined
        case .expired: return .expired
        case .punched:
            guard let by, let punch, let damage, let staminaLeft else { return nil }
            return .punched(
                by: by, kind: punch, damage: damage, bluntedBy: bluntedBy, staminaLeft: staminaLeft, turn: turn,
                clipped: clipped)
        case .turnPassed:
            guard let missedTurns, let turn else { return nil }
            return .turnPassed(missedTurns: missedTurns, turn: turn)
        case .ended:
            guard let challenger, let opponent, let decision = decision?.known else { return nil }
            return .ended(FightResult(challenger: challenger, opponent: opponent, winner: winner, decision: decision))
        case .registered, .profileUpdated, .moved, .openedRoom, .leftRoom:
            return nil
        }
    }
}

extension WireEvent {
    /// The kinds of event, as `kind` names them on the wire. A kind not listed here does not
    /// decode: the client and the server are built from the same list.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// A fight event: a fighter challenged another (`challenger`, `opponent`, `expiresAt`).
        case challenged
        /// A fight event: quick match paired two fighters, and the fight is on (`turn`).
        case matched
        /// A fight event: the challenge was accepted, and the fight is on (`turn`).
        case accepted
        /// A fight event: the challenge was declined; the fight is over.
        case declined
        /// A fight event: the challenge lapsed unanswered; the fight is over.
        case expired
        /// A fight event: a punch landed (`by`, `punch`, `damage`, `bluntedBy` when a guard halved
        /// it, `staminaLeft`, then `turn`; `clipped` when a sensor measured it at its full scale).
        case punched
        /// A fight event: the turn lapsed unused and passed to the other (`missedTurns`, `turn`).
        case turnPassed
        /// A fight event: the fight is decided (`winner`, `decision`).
        case ended
        /// A fighter event: the fighter registered.
        case registered
        /// A fighter event: the profile changed.
        case profileUpdated
        /// A fighter event: the fighter shared a location (`latitude`, `longitude`).
        case moved
        /// A fighter event: the fighter opened a quick-match room and waits in it.
        case openedRoom
        /// A fighter event: the fighter closed their quick-match room without a match.
        case leftRoom
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
