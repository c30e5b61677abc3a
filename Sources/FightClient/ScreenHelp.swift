import FightEngine
import FightProtocol
import Foundation

// What the screen tells a player about the keys and the rules: the legend on the last line, which
// follows what the player can do now, and the rules `?` shows, said from the numbers the server
// states in `welcome` (`ScreenModel.rules`), never from numbers of its own.

// MARK: - Key legends

extension ScreenModel {
    /// The keys in a fight under way, in the player's turn.
    public static let yourTurnKeys = "j jab  u uppercut  k hook  space throws  g guard  f forfeit  ? rules  q quit"
    /// The keys in a fight under way, in the other's turn: a guard is what can be done.
    public static let theirTurnKeys = "their turn: g switches your guard  f forfeit  ? rules  q quit"
    /// The keys while the server is gone: nothing for the fight can be sent.
    public static let outageKeys = "server gone: punches and guards wait for it  ? rules  q quit"
    /// The keys while the rules are shown.
    public static let rulesKeys = "? or Esc closes the rules"

    /// Whether the server is there, as far as the screen was told: not while a connection is
    /// waited for after one failed or was lost (before the first attempt says anything, it is
    /// taken to be).
    public var isConnected: Bool {
        if case .retrying? = connection?.status { false } else { true }
    }

    /// The last line: the keys that do something now.
    public var keyLegend: String {
        if showsRules { return Self.rulesKeys }
        guard let fight = current, fight.phase == .active else { return Self.keyBar }
        if !isConnected { return Self.outageKeys }
        return fight.turn == me ? Self.yourTurnKeys : Self.theirTurnKeys
    }

    /// The rules screen: what a fight is, the meter, guards and the knockout's answer, said from
    /// `rules` and wrapped to the width (a number longer than this build's would not be cut off).
    public var rulesLines: [String] {
        let meter = rules.meter
        func kind(_ name: String, _ spot: SweetSpot, _ remark: String) -> String {
            "  \(name) up to \(spot.ceiling), at level \(Self.decimal(spot.level)) ± \(Self.decimal(spot.halfWidth))\(remark)"
        }
        let paragraphs = [
            "Each starts with \(rules.startingStamina) stamina; a punch takes its damage off the other's. Turns alternate, \(rules.turnSeconds) s each; \(rules.missedTurnsToForfeit) missed in a row forfeit. \(rules.punchesPerFighter) punches each, then points.",
            "The meter: a punch key winds it up; it sweeps 0 to 1 in \(meter.sweepMilliseconds / 2) ms and back; the same key or space throws. Off the kind's spot: \(meter.floor); on it:",
        ]
        let rest = [
            "Guards (g: high, then low; the other never sees yours): high halves jabs and hooks, low uppercuts. A punch a guard halved says so to both; the guard stays until its owner switches it.",
            "Knockout at 0. If the one who floors the other has thrown more punches, the other answers with one last punch; if it floors them too, the blow that went further past 0 wins, as far a draw.",
            "Opponents are found within \(rules.matchRadiusKm.formatted(.number)) km of your location; m matches anyone.",
            "Keys: j, u, k wind up a jab, uppercut, hook (again or space throws), g guard, f forfeit, r rematch, n next, b back, c challenge, a accept, d decline, m quick match, l location, p profile, t teach (--sensor), q quit.",
        ]
        let source = rulesStated ? "as the server states them" : "this build's: the server has not stated its own yet"
        return ["RULES (\(source))"] + paragraphs.flatMap { Self.wrapped($0) }
            + [kind("jab     ", meter.jab, " (wide: safe)"), kind("hook    ", meter.hook, ""),
                kind("uppercut", meter.uppercut, " (narrow: risky)")]
            + rest.flatMap { Self.wrapped($0) }
    }

    /// `paragraph` in lines of at most `width` columns, broken between words, the lines after
    /// the first indented by two spaces.
    static func wrapped(_ paragraph: String, width: Int = ScreenModel.width) -> [String] {
        var lines: [String] = [], line = ""
        for word in paragraph.split(separator: " ") {
            let candidate = line.isEmpty ? (lines.isEmpty ? "" : "  ") + word : line + " " + word
            if candidate.count > width, !line.isEmpty {
                lines.append(line)
                line = "  " + word
            } else {
                line = candidate
            }
        }
        return line.isEmpty ? lines : lines + [line]
    }

    /// "0.65", "1": as short as the number allows.
    private static func decimal(_ value: Double) -> String { value.formatted(.number.precision(.fractionLength(0...2))) }
}

// MARK: - Profile

/// Height, weight and reach as a person types them for `p`: three whole numbers (cm, kg, cm), or
/// `-` for one not shared; checked by the engine's own ranges before anything is sent.
public struct ProfileStatsError: Error, CustomStringConvertible {
    /// What was expected, and what came.
    public var description: String
}

extension ProfileStats {
    /// The example shown in the prompt.
    public static let example = "180 75 182"

    /// Parses "180 75 182" (or with commas; `-` for a stat kept private), checked as the server
    /// checks it.
    public init(parsing text: String) throws(ProfileStatsError) {
        let parts = text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        guard parts.count == 3 else {
            throw ProfileStatsError(
                description: "expected height (cm), weight (kg) and reach (cm), e.g. \(Self.example), - for one kept private")
        }
        var values: [Int?] = []
        for (part, what) in zip(parts, ["height", "weight", "reach"]) {
            if part == "-" {
                values.append(nil)
            } else if let value = Int(part) {
                values.append(value)
            } else {
                throw ProfileStatsError(description: "\(what): expected a whole number or -, got '\(part)'")
            }
        }
        self.init(heightCm: values[0], weightKg: values[1], reachCm: values[2])
        do {
            try validate()
        } catch {
            throw ProfileStatsError(description: "\(error)")
        }
    }
}

extension ScreenModel {
    /// The `updateProfile` that sets `stats` and keeps the player's name and bio as their card
    /// has them (the request replaces all of them); `nil` before the card is in.
    public func profileUpdate(_ stats: ProfileStats) -> ClientRequest? {
        guard let me, let card = cards[me] else { return nil }
        return .updateProfile(
            ProfileUpdate(
                displayName: card.displayName, bio: card.bio, heightCm: stats.heightCm, weightKg: stats.weightKg,
                reachCm: stats.reachCm))
    }
}
