import FightEngine
import FightProtocol

// What the full-screen client's keys mean, and a location as a person types it: kept apart from
// the terminal (which `hitthat play` drives) so that tests can press keys without a process.

// MARK: - Location

/// A location that is not two numbers in range: what was expected, for a usage error or the
/// screen's note line.
public struct LocationError: Error, CustomStringConvertible {
    /// What was expected, and what came.
    public var description: String
}

extension Location {
    /// The example shown in prompts and messages.
    public static let example = "48.8566,2.3522"

    /// Parses a location as a person types it: latitude then longitude in degrees, separated by a
    /// comma, spaces or both ("48.8566,2.3522", "48.8566 2.3522"). Checked here as the server checks
    /// it (latitude −90…90, longitude −180…180), so that a mistake is named before anything is sent.
    public init(parsing text: String) throws(LocationError) {
        let parts = text.split(whereSeparator: { $0 == "," || $0.isWhitespace })
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
            latitude.isFinite, longitude.isFinite
        else {
            throw LocationError(description: "expected LAT,LON in degrees (e.g. \(Self.example)), got '\(text)'")
        }
        guard (-90...90).contains(latitude) else {
            throw LocationError(description: "latitude \(parts[0]) is not within -90…90")
        }
        guard (-180...180).contains(longitude) else {
            throw LocationError(description: "longitude \(parts[1]) is not within -180…180")
        }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// "48.8566, 2.3522": as typed, without the trailing zeros of a fixed format.
    public var text: String { "\(latitude), \(longitude)" }
}

// MARK: - Keys

/// What the full-screen client's keys do. Most keys are a command each; `l` (location), `p`
/// (height, weight, reach) and `f` (forfeit) first ask on the screen's input line, so that a
/// location or the stats can be typed and a fight is not given up by one stray key.
public struct KeyReader: Sendable {
    /// A question on the input line.
    public enum Question: Equatable, Sendable {
        /// A location being typed, with what was typed so far.
        case location(typed: String)
        /// Height, weight and reach being typed, with what was typed so far.
        case profile(typed: String)
        /// Whether to give up the fight.
        case forfeit
        /// Whether to leave while a fight is under way (its turns lapse without the player).
        case quit
    }

    /// What a key asks of the session or the screen.
    public enum Action: Equatable, Sendable {
        /// Nothing to send (a key without a meaning, or one that changed the input line).
        case nothing
        /// A command for the session.
        case command(PlayerCommand)
        /// Challenge the opponent on the versus screen, if any.
        case challengeShown
        /// Challenge the opponent of the fight just over again, if any.
        case rematch
        /// A message for the note line (the location typed was not one).
        case note(String)
        /// Set the player's height, weight and reach (the screen adds the name and bio it keeps).
        case updateStats(ProfileStats)
        /// Show the rules, or hide them if shown (`?`).
        case toggleRules
        /// Hide the rules if shown (Esc).
        case closeRules
    }

    /// The longest location the input line takes: room for two numbers with nine decimals, and
    /// the line still fits 80 columns.
    public static let maxTyped = 30

    /// The question being asked, if any.
    public private(set) var question: Question?

    /// Asks nothing yet.
    public init() {}

    /// The input line while a question is asked: the question and what was typed so far.
    public var prompt: String? {
        switch question {
        case nil: nil
        case .location(let typed): "location LAT,LON (Enter sets, Esc cancels): \(typed)_"
        case .profile(let typed): "height weight reach (e.g. \(ProfileStats.example), - hides one, Esc cancels): \(typed)_"
        case .forfeit: "give up this fight? y forfeits, any other key carries on"
        case .quit: "leave while a fight is on? your turns will lapse; y leaves, any other key stays"
        }
    }

    /// Takes one byte from the keyboard; `fightUnderWay` says whether `q` must ask first,
    /// `aiming` which kind the power meter sweeps for, if one is wound up: a punch key winds the
    /// meter up, and once it sweeps, throws (space throws the kind aimed at); `connected` whether
    /// the server is there (without it, space says so rather than ask for a wind-up).
    public mutating func press(
        _ key: UInt8, fightUnderWay: Bool = false, aiming: PunchType? = nil, connected: Bool = true
    ) -> Action {
        let yes = key == UInt8(ascii: "y") || key == UInt8(ascii: "Y")
        switch question {
        case .forfeit:
            question = nil
            return yes ? .command(.answer(.forfeit, fight: nil)) : .nothing
        case .quit:
            question = nil
            return yes ? .command(.quit) : .nothing
        case .location(let typed):
            return type(key, after: typed, location: true)
        case .profile(let typed):
            return type(key, after: typed, location: false)
        case nil:
            break
        }
        switch Character(Unicode.Scalar(key)) {
        case "j", "u", "k":
            let kind: PunchType = key == UInt8(ascii: "j") ? .jab : key == UInt8(ascii: "u") ? .uppercut : .hook
            return .command(aiming == nil ? .windUp(kind: kind, fight: nil) : .keyboardPunch(kind))
        case " ":
            guard connected else { return .note(PlayerSession.Note.punchNotSent(verb: "space").description) }
            guard let aiming else { return .note("wind up first: j, u or k starts the power meter") }
            return .command(.keyboardPunch(aiming))
        case "g": return .command(.raiseGuard(nil, fight: nil))
        case "n": return .command(.request(.nextOpponent))
        case "b": return .command(.request(.backDown))
        case "c": return .challengeShown
        case "r": return .rematch
        case "a": return .command(.answer(.accept, fight: nil))
        case "d": return .command(.answer(.decline, fight: nil))
        case "m": return .command(.request(.quickMatch))
        case "t": return .command(.teach(nil))
        case "l": question = .location(typed: "")
        case "p": question = .profile(typed: "")
        case "?": return .toggleRules
        case "\u{1B}": return .closeRules
        case "f": question = .forfeit
        case "q":
            guard fightUnderWay else { return .command(.quit) }
            question = .quit
        default: break
        }
        return .nothing
    }

    /// A key while a location (or the profile's stats) is typed: Enter sends it if it is one (and
    /// otherwise says why, with what was typed, and clears the line for the next try: typing on
    /// would append to the wrong text), Esc gives up, Backspace takes back a character.
    private mutating func type(_ key: UInt8, after typed: String, location: Bool) -> Action {
        let asking = { (text: String) -> Question in location ? .location(typed: text) : .profile(typed: text) }
        switch key {
        case 0x0D, 0x0A:
            do {
                let action: Action
                if location {
                    action = .command(.request(.move(try Location(parsing: typed))))
                } else {
                    action = .updateStats(try ProfileStats(parsing: typed))
                }
                question = nil
                return action
            } catch {
                question = asking("")
                return .note("\(location ? "location" : "profile") \"\(typed)\": \(error)")
            }
        case 0x1B:
            question = nil
        case 0x7F, 0x08:
            question = asking(String(typed.dropLast()))
        case 0x20...0x7E where typed.count < Self.maxTyped:
            question = asking(typed + String(UnicodeScalar(key)))
        default:
            break
        }
        return .nothing
    }
}
