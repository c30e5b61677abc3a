import FightClient
import FightEngine
import FightProtocol
import Testing

/// A `--script` line read into the command a key or a program would give, or refused naming what
/// was expected: the one place a command is read from text.
@Suite struct PlayerCommandTests {
    @Test(arguments: [
        ("history", PlayerCommand.request(.history)),
        ("move 48.8 2.3", .request(.move(Location(latitude: 48.8, longitude: 2.3)))),
        ("move -33.9,18.4", .request(.move(Location(latitude: -33.9, longitude: 18.4)))),
        ("challenge 4", .request(.challenge(OpponentRef(opponent: FighterID(4))))),
        ("profile 2", .request(.profile(ProfileRequest(fighter: FighterID(2))))),
        ("replay 7 3", .request(.replay(ReplayRequest(fight: FightID(7), after: 3)))),
        ("accept", .answer(.accept, fight: nil)), ("forfeit 9", .answer(.forfeit, fight: FightID(9))),
        ("punch 3 uppercut", .punch(verb: "punch", fight: FightID(3), kind: .uppercut)),
        ("hook", .keyboardPunch(.hook)),
        (#"{"type":"dance"}"#, .raw(#"{"type":"dance"}"#)), ("quit", .quit),
    ])
    func aLineIsItsCommand(_ line: String, _ command: PlayerCommand) throws {
        #expect(try PlayerCommand(parsing: line) == command)
    }

    @Test func aBlankLineIsNoCommand() throws {
        #expect(try PlayerCommand(parsing: "   ") == nil)
    }

    @Test(arguments: [
        ("kick", "kick: unknown command; expected hello"), ("challenge bob", "challenge: expected a fighter id"),
        ("move 91 0", "move: latitude 91 is not within -90…90"), ("punch 3 kick", "punch: expected jab"),
        ("jab lots", "jab: expected nothing after the kind"),
    ])
    func anythingElseSaysWhatWasExpected(_ line: String, _ message: String) {
        let error = #expect(throws: PlayerCommand.ParseError.self) { try PlayerCommand(parsing: line) }
        #expect(error?.description.hasPrefix(message) == true, "\(String(describing: error))")
    }
}
