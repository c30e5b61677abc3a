import FightEngine
import FightProtocol

// MARK: - ScriptCommand

/// One line of `hitthat play --script` input.
enum ScriptCommand {
    /// A protocol request.
    case request(ClientRequest)
    /// A JSON message, sent as it is.
    case raw(String)
    /// Stop now.
    case quit

    /// A line that is not a command: names what was expected.
    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    /// The damage of a keyboard punch: the original app's button.
    static let keyboardDamage = 10

    /// Parses `line`; `nil` for a blank line. Fights left out are the one awaiting this player's
    /// punch (for punches) or the only open one.
    init?(_ line: String, session: PlayerSession) async throws(Error) {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let verb = words.first else { return nil }
        if verb.hasPrefix("{") {
            self = .raw(line)
            return
        }
        let arguments = Array(words.dropFirst())
        func integer(_ index: Int, _ name: String) throws(Error) -> Int64 {
            guard index < arguments.count, let value = Int64(arguments[index]) else {
                throw Error(description: "\(verb): expected \(name) as a whole number")
            }
            return value
        }
        func fight(_ index: Int, default fallback: FightView?) throws(Error) -> Int64 {
            if index < arguments.count { return try integer(index, "a fight id") }
            guard let fallback else {
                throw Error(description: "\(verb): expected a fight id (no single fight to assume)")
            }
            return fallback.id
        }
        switch verb {
        case "quit": self = .quit
        case "hello": self = .request(.hello)
        case "profile":
            self = .request(.profile(ProfileRequest(fighter: arguments.isEmpty ? nil : try integer(0, "a fighter id"))))
        case "move":
            do {
                // The same check as `--at` and the screen's `l`: "move 48.8 2.3" or "move 48.8,2.3".
                self = .request(.move(try Location(parsing: arguments.joined(separator: " "))))
            } catch {
                throw Error(description: "move: \(error)")
            }
        case "next": self = .request(.nextOpponent)
        case "back": self = .request(.backDown)
        case "challenge": self = .request(.challenge(OpponentRef(opponent: try integer(0, "a fighter id"))))
        case "accept": self = .request(.accept(FightRef(fight: try fight(0, default: await session.onlyOpenFight()))))
        case "decline": self = .request(.decline(FightRef(fight: try fight(0, default: await session.onlyOpenFight()))))
        case "quick": self = .request(.quickMatch)
        case "leave": self = .request(.leaveQuickMatch)
        case "forfeit": self = .request(.forfeit(FightRef(fight: try fight(0, default: await session.onlyOpenFight()))))
        case "fight": self = .request(.fight(FightRef(fight: try integer(0, "a fight id"))))
        case "replay":
            self = .request(
                .replay(
                    ReplayRequest(fight: try integer(0, "a fight id"), after: Int(try integer(1, "a sequence number"))))
            )
        case "history": self = .request(.history)
        case "stats":
            self = .request(
                .statistics(StatisticsRequest(versus: arguments.isEmpty ? nil : try integer(0, "a fighter id"))))
        case "jab", "uppercut", "hook", "punch":
            // punch [FIGHT] KIND [DAMAGE]
            var rest = verb == "punch" ? arguments : [verb] + arguments
            var fightID: Int64?
            if let first = rest.first, let id = Int64(first) {
                fightID = id
                rest.removeFirst()
            }
            guard let kindName = rest.first, let kind = PunchType(rawValue: kindName) else {
                throw Error(description: "punch: expected jab, uppercut or hook")
            }
            let damage = rest.count > 1 ? Int(rest[1]) : Self.keyboardDamage
            guard let damage else { throw Error(description: "punch: expected the damage as a whole number") }
            let target: FightView?
            if let fightID {
                target = await session.follower.fights[fightID]
            } else {
                target = await session.fightForTypedPunch()
            }
            guard let target else { throw Error(description: "\(verb): it is not your turn in any fight") }
            self = .request(
                .punch(PunchRequest(fight: target.id, kind: kind, damage: damage, after: target.lastSequence)))
        default:
            throw Error(
                description:
                    "\(verb): unknown command; expected hello, profile, move, next, back, challenge, accept, decline, quick, leave, punch, jab, uppercut, hook, forfeit, fight, replay, history, stats, quit, or a JSON message"
            )
        }
    }
}
