import FightEngine
import FightProtocol

// MARK: - PlayerCommand

/// What a player asks the session to do, however it was asked: a key of the full screen, a line of
/// `hitthat play --script` input (`init(parsing:)`, the one place text is read), or a program's
/// request (`hitthat-load`). Made without looking at the fights: a fight left out is found when the
/// session performs the command.
public enum PlayerCommand: Equatable, Sendable {
    /// A protocol request, sent as it is: no turn checked, so that a program can send one the
    /// server must refuse.
    case request(ClientRequest)
    /// `accept`, `decline` or `forfeit`: a fight, or `nil` for the only open one.
    case answer(FightAnswer, fight: FightID?)
    /// Starts the power meter for a punch of `kind` (the kind is the player's aim, shown with its
    /// sweet spot; the punch that stops the meter names the kind thrown) in `fight`, or `nil` for
    /// the one awaiting this player's punch.
    case windUp(kind: PunchType, fight: FightID?)
    /// A punch thrown in the player's turn, stopping the power meter (wound up at once if it was
    /// not, which hits at the meter's floor): in `fight`, or `nil` for the one awaiting this
    /// player's punch. `verb` is the word it was asked for with (`punch`, or the kind), for what
    /// is said when it cannot be thrown.
    case punch(verb: String, fight: FightID?, kind: PunchType)
    /// Takes up a guard in `fight`, or `nil` for the only fight under way; `nil` for the guard
    /// switches it (high first, then low, then high again).
    case raiseGuard(Guard?, fight: FightID?)
    /// Teach the server the player's punches, thrown with `hand` (`nil`: the session's), each
    /// kind asked for by name, three of each, from the sensor's motion (a lesson under way starts
    /// over).
    case teach(TeachingHand?)
    /// Learn from the punches taught so far, without waiting for three of each kind.
    case teachDone
    /// A JSON message, sent as it is.
    case raw(String)
    /// Stop.
    case quit

    /// What a player can do to a fight that the commands may leave unnamed.
    public enum FightAnswer: String, Equatable, Sendable {
        /// Take up a challenge.
        case accept
        /// Turn a challenge down.
        case decline
        /// Give up the fight.
        case forfeit

        /// The request for `fight`.
        public func request(_ fight: FightID) -> ClientRequest {
            switch self {
            case .accept: .accept(FightRef(fight: fight))
            case .decline: .decline(FightRef(fight: fight))
            case .forfeit: .forfeit(FightRef(fight: fight))
            }
        }
    }

    /// A line that is not a command: names what was expected.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// What was expected, for the player.
        public var description: String

        /// Creates an error.
        public init(description: String) { self.description = description }
    }

    /// A punch of `kind` from the power meter, in the fight awaiting it: a key's, or a script's
    /// bare `jab`.
    public static func keyboardPunch(_ kind: PunchType) -> PlayerCommand {
        .punch(verb: kind.rawValue, fight: nil, kind: kind)
    }

    /// Parses a line of `--script` input; `nil` for a blank line.
    public init?(parsing line: String) throws(ParseError) {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let verb = words.first else { return nil }
        if verb.hasPrefix("{") {
            self = .raw(line)
            return
        }
        let arguments = Array(words.dropFirst())
        func integer(_ index: Int, _ name: String) throws(ParseError) -> Int64 {
            guard index < arguments.count, let value = Int64(arguments[index]) else {
                throw ParseError(description: "\(verb): expected \(name) as a whole number")
            }
            return value
        }
        func fight(_ index: Int) throws(ParseError) -> FightID { FightID(try integer(index, "a fight id")) }
        func fighter(_ index: Int) throws(ParseError) -> FighterID { FighterID(try integer(index, "a fighter id")) }
        func optionalFight() throws(ParseError) -> FightID? { arguments.isEmpty ? nil : try fight(0) }
        func optionalFighter() throws(ParseError) -> FighterID? { arguments.isEmpty ? nil : try fighter(0) }
        switch verb {
        case "quit": self = .quit
        case "hello": self = .request(.hello)
        case "profile":
            self = .request(.profile(ProfileRequest(fighter: try optionalFighter())))
        case "move":
            do {
                // The same check as `--at` and the screen's `l`: "move 48.8 2.3" or "move 48.8,2.3".
                self = .request(.move(try Location(parsing: arguments.joined(separator: " "))))
            } catch {
                throw ParseError(description: "move: \(error)")
            }
        case "next": self = .request(.nextOpponent)
        case "back": self = .request(.backDown)
        case "challenge": self = .request(.challenge(OpponentRef(opponent: try fighter(0))))
        case "accept": self = .answer(.accept, fight: try optionalFight())
        case "decline": self = .answer(.decline, fight: try optionalFight())
        case "quick": self = .request(.quickMatch)
        case "leave": self = .request(.leaveQuickMatch)
        case "forfeit": self = .answer(.forfeit, fight: try optionalFight())
        case "fight": self = .request(.fight(FightRef(fight: try fight(0))))
        case "replay":
            self = .request(
                .replay(
                    ReplayRequest(fight: try fight(0), after: Int(try integer(1, "a sequence number"))))
            )
        case "history": self = .request(.history)
        case "teach":
            // teach [left|right] | teach done
            switch arguments.first {
            case nil: self = .teach(nil)
            case "done": self = .teachDone
            case let word?:
                guard let hand = TeachingHand(rawValue: word) else {
                    throw ParseError(description: "teach: expected left, right or done, got '\(word)'")
                }
                self = .teach(hand)
            }
        case "punches": self = .request(.punchProfile)
        case "forget":
            guard arguments == ["punches"] else { throw ParseError(description: "forget: expected punches") }
            self = .request(.forgetPunchProfile)
        case "stats":
            self = .request(
                .statistics(StatisticsRequest(versus: try optionalFighter())))
        case "jab", "uppercut", "hook", "punch":
            // punch [FIGHT] KIND
            var rest = verb == "punch" ? arguments : [verb] + arguments
            var fightID: FightID?
            if let first = rest.first, let id = Int64(first) {
                fightID = FightID(id)
                rest.removeFirst()
            }
            guard let kindName = rest.first, let kind = PunchType(rawValue: kindName) else {
                throw ParseError(description: "punch: expected jab, uppercut or hook")
            }
            guard rest.count == 1 else {
                throw ParseError(
                    description:
                        "\(verb): expected nothing after the kind; the server works the damage out (windup, then the punch)")
            }
            self = .punch(verb: verb, fight: fightID, kind: kind)
        case "windup":
            // windup [FIGHT] [KIND]: the kind is only the aim shown; the punch names the kind thrown.
            var rest = arguments[...]
            var fightID: FightID?
            if let first = rest.first, let id = Int64(first) {
                fightID = FightID(id)
                rest.removeFirst()
            }
            let kind = try rest.first.map { name throws(ParseError) -> PunchType in
                guard let kind = PunchType(rawValue: name) else {
                    throw ParseError(description: "windup: expected jab, uppercut or hook, got '\(name)'")
                }
                return kind
            }
            self = .windUp(kind: kind ?? .jab, fight: fightID)
        case "guard":
            // guard high|low [FIGHT]
            guard let name = arguments.first, let stance = Guard(rawValue: name) else {
                throw ParseError(description: "guard: expected high or low")
            }
            self = .raiseGuard(stance, fight: arguments.count > 1 ? try fight(1) : nil)
        default:
            throw ParseError(
                description:
                    "\(verb): unknown command; expected hello, profile, move, next, back, challenge, accept, decline, quick, leave, windup, punch, jab, uppercut, hook, guard, forfeit, fight, replay, history, stats, teach, punches, forget punches, quit, or a JSON message"
            )
        }
    }
}
