import FightEngine
import FightProtocol
import Foundation

// The full-screen client's text, kept apart from the terminal (which `hitthat play` drives) so
// that tests can read it without a process. The keys are in KeyReader.swift, what the screen
// says of the keys and rules in ScreenHelp.swift, a knockout's margins in KnockoutTrail.swift.

// MARK: - Screen model

/// What the full-screen client knows and shows, and the text of its screen, laid out for 80×24,
/// the smallest terminal it is meant for.
public struct ScreenModel: Sendable {
    /// The width the text is laid out for, in columns.
    public static let width = 80
    /// The height the text is laid out for, in lines.
    public static let height = 24
    /// The keys out of a fight, on the last line (the input line takes its place while a question
    /// is asked; a fight under way has its own, `keyLegend`). `a` and `d` are named on the fight's
    /// line when there is a challenge to answer; `?` lists every key, since all of them here would
    /// not fit 80 columns.
    public static let keyBar = "n next  b back  c challenge  m match  l location  p profile  ? all keys  q quit"

    /// How far away opponents are looked for, as the note says it ("50 km"): the server's rule.
    public var reach: String { "\(rules.matchRadiusKm.formatted(.number)) km" }

    /// The player's username, on the top line.
    public var user: String
    /// The player's fighter, once signed in.
    public var me: FighterID?
    /// The player's fights as the client follows them.
    public var fights: [FightID: FightView] = [:]
    /// The opponent on the versus screen.
    public var shown: WireMatchup?
    /// Fighters' cards by id: names for the log and the fight, stats for the versus screen, and
    /// this player's location.
    public var cards: [FighterID: FighterCard] = [:]
    /// The latest events, described when drawn: a name that arrives after its event still shows.
    public var log: [WireEvent] = []
    /// The fight events in the log, by fight and sequence: one that comes again (a replay after a
    /// reconnect overlapping what was pushed) is not logged twice.
    private var logged: Set<FightEventKey> = []
    /// How far past 0 each knockout went, from the events.
    public var trail = KnockoutTrail()
    /// The rules the fights are played by, for what the screen says of them (`?`, the answer's
    /// starting stamina, the matchmaking radius, the missed turns): as the server's `welcome`
    /// states them, and this build's own until it has.
    public var rules = StatedRules()
    /// Whether `rules` are the server's (its `welcome` came), not yet this build's own.
    public var rulesStated = false
    /// Whether the rules are shown (`?`) in place of the log.
    public var showsRules = false
    /// Whether the other fighter of each fight under way is there, as the server last said.
    public var presence: [FightID: OpponentPresence] = [:]
    /// The connection's state.
    public var status = "connecting…"
    /// The connection's state and when it was given (seconds since 1970), for a wait that counts
    /// down on the screen; nil before the first.
    public private(set) var connection: (status: ConnectionStatus, since: Int64)?

    /// Takes the connection's state, given at `now` (seconds since 1970).
    public mutating func setStatus(_ status: ConnectionStatus, at now: Int64) {
        connection = (status, now)
        self.status = status.description
    }
    /// The last error or remark, until the player's next request succeeds or a fight moves on.
    public var note = ""
    /// The power meter the player wound up, while it sweeps.
    public var meter: AimedMeter?
    /// The input line's question, in place of the key bar.
    public var prompt: String?

    /// The screen of `user` before anything came from the server.
    public init(user: String) { self.user = user }

    /// Takes in a message; `answersPlayer` when it answers a request the player made. Returns
    /// whether to ring the bell (the player was hit).
    public mutating func apply(
        _ message: ServerMessage, answersPlayer: Bool, fights: [FightID: FightView], me: FighterID?
    ) -> Bool {
        let before = self.fights
        self.fights = fights
        self.me = me
        // The player's next request that succeeds clears the last error.
        if answersPlayer { note = "" }
        var bell = false
        switch message.body {
        case .welcome(let welcome):
            rules = welcome.rules
            rulesStated = true
            cards[welcome.fighter.id] = welcome.fighter
            for report in welcome.presence { learn(report) }
        case .presence(let report): learn(report)
        case .profile(let reply): cards[reply.fighter.id] = reply.fighter
        case .opponent(let reply):
            shown = reply.matchup
            if let card = reply.matchup?.opponent { cards[card.id] = card }
            if reply.matchup == nil { note = "nobody else within reach (\(reach)) for now" }
        case .event(let event):
            if event.kind == .moved, let id = event.fighter {
                cards[id]?.latitude = event.latitude
                cards[id]?.longitude = event.longitude
            }
            record([event], before: before)
            // A fight moved on (a punch, a turn, an end): a refusal of a moment ago no longer holds.
            if event.fight != nil { note = "" }
            if event.kind == .punched, event.by != me { bell = true }
        case .events(let reply):
            // A replay (after a reconnect, or of a fight's start after a restart): the fight's
            // past, into the log as if it had been seen.
            record(reply.events.sorted { ($0.sequence ?? 0) < ($1.sequence ?? 0) }, before: before)
        case .error(let error):
            note = error.reason == .known(.noLocation) ? "set your location first: press l" : error.message
        default:
            break
        }
        return bell
    }

    /// Logs `events` (a fight event once), in the order they happened, and follows how far past 0
    /// each knockout went; `before` is the fights as they stood before them.
    private mutating func record(_ events: [WireEvent], before: [FightID: FightView]) {
        for event in events {
            if let fight = event.fight, let sequence = event.sequence {
                trail.take(event, before: before[fight], startingStamina: rules.startingStamina)
                guard logged.insert(FightEventKey(fight: fight, sequence: sequence)).inserted else { continue }
            }
            log.append(event)
        }
        // Replayed events are older than some already logged: the log reads in time order.
        if events.count > 1 || log.count > 1 && log[log.count - 2].at.timestamp > log[log.count - 1].at.timestamp {
            log = log.enumerated().sorted { ($0.element.at.timestamp, $0.offset) < ($1.element.at.timestamp, $1.offset) }.map(\.element)
        }
        log = Array(log.suffix(Self.height))
    }

    private mutating func learn(_ report: Presence) {
        presence[report.fight] = OpponentPresence(report, after: presence[report.fight])
    }

    /// The screen's lines at `now` (seconds since 1970, for the countdown) and `instant` (for the
    /// power meter; its start when not given): at most `height` lines of at most `width`
    /// characters. The log shows as many of the latest events as fit.
    public func lines(now: Int64, at instant: ContinuousClock.Instant? = nil) -> [String] {
        let shownStatus = connection.map { $0.status.description(elapsed: .seconds(max(0, now - $0.since))) } ?? status
        let title = "HitThat — \(user)   \(shownStatus)"
        if showsRules {
            // The note and the keys stay in view whatever the rules take.
            let room = Self.height - 5
            return ([title, ""] + rulesLines.prefix(room) + ["", note, prompt ?? keyLegend]).map(Self.clipped)
        }
        var top = [title, whereabouts, ""]
        // The versus card is for finding a fight: gone while one is fought.
        if let shown, current?.phase != .active { top += versus(shown) }
        if let fight = current, let me {
            top += self.fight(fight, me: me, now: now, instant: instant)
        }
        let bottom = ["", note, prompt ?? keyLegend]
        let room = max(0, Self.height - top.count - bottom.count)
        let described = log.compactMap(describe).suffix(room).map { "  " + $0 }
        return (top + described + bottom).prefix(Self.height).map(Self.clipped)
    }

    /// Where this player is, or how to say it: opponents are found near a location.
    private var whereabouts: String {
        guard let me, let card = cards[me] else { return "" }
        guard let latitude = card.latitude, let longitude = card.longitude else {
            // A hint for finding a fight: in one, it is not what to do now.
            if current?.phase == .active { return "" }
            return "No location yet: press l and type LAT,LON to find opponents near you."
        }
        return "You are at \(Location(latitude: latitude, longitude: longitude).text) (l changes it)."
    }

    private func versus(_ shown: WireMatchup) -> [String] {
        // The card asked for since (after a fight with them, say) has their record as it is now.
        let card = cards[shown.opponent.id] ?? shown.opponent
        var lines = [
            "Versus: \(card.displayName) (@\(card.username))  \(String(format: "%.1f", shown.distanceKm)) km away",
            "  record \(card.wins)-\(card.losses)-\(card.draws)   height \(Self.stat(card.heightCm)) cm   weight \(Self.stat(card.weightKg)) kg   reach \(Self.stat(card.reachCm)) cm",
            "  your chance \(Int((shown.winChance * 100).rounded()))%  (odds \(String(format: "%.2f", shown.decimalOdds)))   c challenges, b passes",
        ]
        if let edges = Self.edges(mine: me.flatMap { cards[$0] }, theirs: card) { lines.append("  " + edges) }
        return lines + [""]
    }

    private func fight(_ fight: FightView, me: FighterID, now: Int64, instant: ContinuousClock.Instant?) -> [String] {
        let mine = fight.challenger == me
        let them = mine ? fight.opponent : fight.challenger
        var lines = [
            "Fight \(fight.id.rawValue) against \(name(them)): \(fight.phase)",
            "  you   \(Self.bar(mine ? fight.staminaChallenger : fight.staminaOpponent, pastZero: trail.pastZero(of: me, in: fight.id)))",
            "  them  \(Self.bar(mine ? fight.staminaOpponent : fight.staminaChallenger, pastZero: trail.pastZero(of: them, in: fight.id)))",
        ]
        switch fight.phase {
        case .active:
            let left = max(0, (fight.deadline?.timestamp.secondsSince1970 ?? now) - now)
            // The one whose turn it is with no stamina left was knocked out: their answer is due.
            let down = (fight.turn == fight.challenger ? fight.staminaChallenger : fight.staminaOpponent) == 0
            let other = name(mine ? fight.opponent : fight.challenger)
            // Without the server, the deadline and the other's presence are not known; a server
            // that comes back starts the turn afresh, so the clock shown would only alarm.
            if case .retrying = connection?.status {
                lines.append("  \(fight.turn == me ? "YOUR" : "their") turn — it starts afresh when the server is back")
                lines.append("  " + Self.guardLine(fight.ownGuard))
                lines.append("  \(other): not known while the server is gone")
                return lines + [""]
            }
            switch (fight.turn == me, down) {
            case (true, false):
                lines.append("  YOUR TURN — \(left) s left: j jab, u uppercut, k hook wind up; again throws")
            case (true, true):
                let how = trail.pastZero(of: me, in: fight.id).map { " \($0) past 0" } ?? ""
                lines.append("  YOUR TURN — knocked out\(how): answer with one last punch, \(left) s left")
            case (false, false):
                lines.append("  their turn — \(left) s left")
            case (false, true):
                let how = trail.pastZero(of: them, in: fight.id).map { " \($0) past 0" } ?? ""
                lines.append("  their turn — knocked out\(how), they answer with one last punch: \(left) s left")
            }
            if down, let turn = fight.turn, let margin = trail.pastZero(of: turn, in: fight.id) {
                let standing = turn == fight.challenger ? fight.staminaOpponent : fight.staminaChallenger
                let most = PunchType.allCases.map { rules.meter.spot(for: $0).ceiling }.max() ?? 0
                lines.append(
                    "  " + Self.answerNeeds(margin: margin, left: standing, most: most, answeringIsMe: turn == me))
            } else if down {
                lines.append("  if the answer floors the other too, the blow that went further past 0 wins")
            }
            // The meter sweeps right under the turn it is for, where the eye already is.
            if let meter, meter.fight == fight.id { lines += Self.meterLines(meter, at: instant ?? meter.since) }
            lines.append("  " + Self.guardLine(fight.ownGuard))
            if let presence = presence[fight.id] {
                lines.append("  " + presence.description(of: other, now: now))
            }
            if let corner = fight.corner(of: me), let missed = fight.missedTurns?[corner],
                let warning = Self.missedTurnsWarning(missed, limit: rules.missedTurnsToForfeit)
            {
                lines.append("  " + warning)
            }
        case .challenged:
            lines.append(fight.opponent == me ? "  challenged: a accept, d decline" : "  waiting for an answer")
        case .finished:
            let result = fight.winner == nil ? "a draw" : fight.winner == me ? "YOU WIN" : "you lose"
            lines.append("  \(result) (\(fight.ending?.rawValue ?? "over"))   r rematch")
        }
        return lines + [""]
    }

    /// The fight the screen shows: the newest not over, or else the newest.
    var current: FightView? {
        let sorted = fights.values.sorted { $0.id > $1.id }
        return sorted.first(where: { $0.phase != .finished }) ?? sorted.first
    }

    /// Whom `r` challenges: the opponent of the fight shown, once it is over.
    public var rematchOpponent: FighterID? {
        guard let fight = current, fight.phase == .finished, let me else { return nil }
        return fight.challenger == me ? fight.opponent : fight.challenger
    }

    /// A fighter's name: "you", the display name once the card is in, a number until then.
    public func name(_ id: FighterID?) -> String {
        guard let id else { return "?" }
        return id == me ? "you" : cards[id]?.displayName ?? id.description
    }

    /// The damage from which a punch is a big hit: more than the jab's ceiling, which only a
    /// well-timed hook or uppercut (or a hard swing of a sensor) does.
    var bigHit: Int { rules.meter.jab.ceiling + 1 }

    /// One line of the log, or `nil` for events not worth a line.
    public func describe(_ event: WireEvent) -> String? {
        switch event.kind {
        case .punched:
            let kind = event.punch?.rawValue ?? "punch"
            // Whose stamina is left: the one hit, the thrower's opponent.
            let whose = event.by == me ? "their" : "your"
            let guarded = event.bluntedBy.map { ", halved by \(whose) \($0) guard" } ?? ""
            // A hit near the top of what any kind does is worth a moment.
            let big = (event.damage ?? 0) >= bigHit ? " — BIG HIT" : ""
            // A knockout's blow says how far past 0 it went: what an answer is measured against.
            let target = event.fight.flatMap { fights[$0] }.map { $0.challenger == event.by ? $0.opponent : $0.challenger }
            let past = event.staminaLeft == 0 ? target.flatMap { trail.pastZero(of: $0, in: event.fight!) } : nil
            let left = past.map { "0, \($0) past 0" } ?? "\(event.staminaLeft ?? 0)"
            return
                "\(name(event.by)) threw a\(event.punch == .uppercut ? "n" : "") \(kind) for \(event.damage ?? 0)\(big)\(guarded) (\(whose) stamina \(left))"
        case .challenged: return "\(name(event.challenger)) challenged \(name(event.opponent))"
        case .accepted, .matched: return "the fight is on: \(name(event.turn)) first"
        case .turnPassed where event.missedTurns == 0:
            return "the server is back: " + (event.turn == me ? "your turn, in full" : "\(name(event.turn))'s turn, in full")
        case .turnPassed: return "the turn passed to \(name(event.turn))"
        case .ended where event.decision == .known(.knockout):
            // The end of the fight worth a moment: the bell rang on each hit, this is the last.
            return knockoutLine(event)
        case .ended:
            return event.winner == nil
                ? "a draw" : "\(name(event.winner)) won by \(event.decision?.rawValue ?? "decision")"
        case .declined, .expired: return "the challenge was \(event.kind)"
        case .openedRoom: return "waiting for anyone to fight…"
        case .moved:
            guard let latitude = event.latitude, let longitude = event.longitude else { return nil }
            return "your location is now \(Location(latitude: latitude, longitude: longitude).text)"
        default: return nil
        }
    }

    /// The player's guard and what it does, with the key that switches it.
    static func guardLine(_ stance: Guard?) -> String {
        switch stance {
        case nil: "guard: none — g raises it (high blunts jabs and hooks, low uppercuts)"
        case .high: "guard: HIGH, halves their jabs and hooks (g switches to low)"
        case .low: "guard: LOW, halves their uppercuts (g switches to high)"
        }
    }

    /// The width of the power meter's bar, in cells.
    static let meterCells = 40

    /// The power meter at `instant`: the bar with the aimed kind's sweet spot drawn in it (█ where
    /// a stop does at least 60 % of the way from floor to ceiling, ▒ where it does more than the
    /// floor) and what a stop now would do, then a caret under the level.
    static func meterLines(_ aimed: AimedMeter, at instant: ContinuousClock.Instant) -> [String] {
        let spot = aimed.meter.spot(for: aimed.kind)
        let bar = (0..<meterCells).map { cell -> Character in
            let level = (Double(cell) + 0.5) / Double(meterCells)
            let closeness = 1 - abs(level - spot.level) / spot.halfWidth
            return closeness >= 0.6 ? "█" : closeness > 0 ? "▒" : "·"
        }
        let at = min(meterCells - 1, Int(aimed.level(at: instant) * Double(meterCells)))
        let prefix = "  POWER ["
        return [
            prefix + String(bar) + "] \(aimed.kind) now \(aimed.damage(at: instant)) of \(spot.ceiling)",
            String(repeating: " ", count: prefix.count + at) + "^  space throws",
        ]
    }

    private static func stat(_ value: Int?) -> String { value.map(String.init) ?? "–" }

    /// The warning for a player who has let `missed` turns in a row lapse, when one more loses the
    /// fight after `limit` (the server's rule).
    public static func missedTurnsWarning(_ missed: Int, limit: Int) -> String? {
        guard missed > 0, missed == limit - 1 else { return nil }
        return "\(missed) of \(limit) missed turns: one more and you forfeit"
    }

    /// Who has the edge on reach, weight and wins, in words ("you have the longer reach; they have
    /// more wins"), or `nil` when neither has any (or the stats are not shared).
    public static func edges(mine: FighterCard?, theirs: FighterCard) -> String? {
        let stats: [(String, Int?, Int?)] = [
            ("the longer reach", mine?.reachCm, theirs.reachCm), ("more weight", mine?.weightKg, theirs.weightKg),
            ("more wins", mine?.wins, theirs.wins),
        ]
        var yours: [String] = [], theirsToo: [String] = []
        for (what, a, b) in stats {
            guard let a, let b, a != b else { continue }
            if a > b { yours.append(what) } else { theirsToo.append(what) }
        }
        let parts = [("you have", yours), ("they have", theirsToo)].compactMap { who, list in
            list.isEmpty ? nil : "\(who) \(listed(list))"
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// "a", "a and b", "a, b and c".
    private static func listed(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    /// A stamina bar; a fighter knocked out shows how far past 0 (the number a double knockout
    /// is decided by) as a stamina below 0.
    static func bar(_ stamina: Int, pastZero: Int? = nil) -> String {
        let filled = max(0, min(20, stamina / 5))
        let shown = stamina == 0 ? pastZero.map { "\(-$0) (\($0) past 0)" } ?? "0" : "\(stamina)"
        return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: 20 - filled) + "] \(shown)"
    }

    /// `line` cut to the width, marked with "…" where it was cut, so that it never wraps (a
    /// wrapped line would push the screen's top off an 80×24 terminal).
    public static func clipped(_ line: String) -> String {
        line.count <= width ? line : String(line.prefix(width - 1)) + "…"
    }
}
