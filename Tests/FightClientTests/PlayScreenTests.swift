import FightEngine
import FightProtocol
import Foundation
import Testing

@testable import FightClient

/// The full-screen client's logic without a process or a terminal: locations as typed, the keys,
/// and the screen's text.
@Suite struct PlayScreenTests {
    // MARK: Locations

    @Test(arguments: [
        ("48.8566,2.3522", 48.8566, 2.3522), ("48.8566, 2.3522", 48.8566, 2.3522), (" -33.9 18.4 ", -33.9, 18.4),
        ("90,-180", 90, -180), ("-90,180", -90, 180),
    ])
    func aLocationIsTwoNumbersInRange(text: String, latitude: Double, longitude: Double) throws {
        #expect(try Location(parsing: text) == Location(latitude: latitude, longitude: longitude))
    }

    @Test(arguments: [
        ("", "expected LAT,LON"), ("48.8", "expected LAT,LON"), ("1,2,3", "expected LAT,LON"),
        ("paris", "expected LAT,LON"), ("nan,0", "expected LAT,LON"), ("inf,0", "expected LAT,LON"),
        ("90.5,0", "latitude 90.5 is not within -90…90"), ("0,-181", "longitude -181 is not within -180…180"),
    ])
    func anythingElseSaysWhatWasExpected(text: String, message: String) {
        #expect(throws: LocationError.self) { try Location(parsing: text) }
        do {
            _ = try Location(parsing: text)
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
    }

    // MARK: Keys

    /// Presses each character of `keys` and returns the actions that did something.
    static func press(_ keys: String, on reader: inout KeyReader) -> [KeyReader.Action] {
        keys.utf8.map { reader.press($0) }.filter { $0 != .nothing }
    }

    @Test func lAsksForALocationOnTheInputLine() {
        var reader = KeyReader()
        #expect(Self.press("l48.8x", on: &reader).isEmpty, "typed, not commands")
        #expect(reader.prompt?.hasSuffix("cancels): 48.8x_") == true)
        #expect(Self.press("\u{7F},2.35", on: &reader).isEmpty)
        #expect(Self.press("\n", on: &reader) == [.command(.request(.move(Location(latitude: 48.8, longitude: 2.35))))])
        #expect(reader.prompt == nil && reader.question == nil)
    }

    /// A wrong location is named with what was typed, and the line is cleared for the next try,
    /// so typing again does not append to the wrong text.
    @Test func anInvalidLocationIsNamedAndTheLineClearedForTheNextTry() {
        var reader = KeyReader()
        let actions = Self.press("l91,0\r", on: &reader)
        #expect(actions == [.note("location \"91,0\": latitude 91 is not within -90…90")])
        #expect(reader.question == .location(typed: ""), "still asking, on a clear line")
        #expect(Self.press("1,0\r", on: &reader) == [.command(.request(.move(Location(latitude: 1, longitude: 0))))])
    }

    /// The screen of `user`, signed in as `me`, showing fight `view`.
    static func model(showing view: FightView, as me: FighterID, user: String) -> ScreenModel {
        var model = ScreenModel(user: user)
        model.me = me
        model.fights = [view.id: view]
        return model
    }

    /// After a fight, `r` challenges the same opponent again: the screen says so and knows whom.
    @Test func aFightOverOffersARematchWithTheSameOpponent() throws {
        var bout = try FightFollowerTests.Bout()
        let view = try bout.view()
        var model = Self.model(showing: view, as: view.challenger, user: "alice")
        #expect(model.rematchOpponent == nil, "not while it is fought")
        try bout.run(.forfeit(view.id, by: view.opponent))
        model.fights = [view.id: try bout.view()]
        #expect(model.rematchOpponent == view.opponent)
        #expect(model.lines(now: 0).contains { $0.contains("YOU WIN (forfeit)   r rematch") })
        var reader = KeyReader()
        #expect(reader.press(UInt8(ascii: "r")) == .rematch)
    }

    /// The wound-up meter is drawn under the fight: the aimed kind's sweet spot in the bar, the
    /// caret at the level of the moment, and what a stop now would do, as the engine counts it.
    @Test func theMeterSweepsOnTheScreen() throws {
        let bout = try FightFollowerTests.Bout()
        let view = try bout.view()
        var model = Self.model(showing: view, as: view.challenger, user: "alice")
        let start = ContinuousClock.now
        let meter = Rules().meter
        model.meter = AimedMeter(fight: view.id, kind: .uppercut, since: start, meter: meter)
        func meterLines(after milliseconds: Int64) throws -> [String] {
            let lines = model.lines(now: 0, at: start + .milliseconds(milliseconds))
            let index = try #require(lines.firstIndex { $0.hasPrefix("  POWER [") })
            return Array(lines[index...index + 1])
        }
        let atTop = try meterLines(after: meter.sweepMilliseconds / 2)
        #expect(atTop[0].hasSuffix("uppercut now \(meter.uppercut.ceiling) of \(meter.uppercut.ceiling)"))
        let atStart = try meterLines(after: 0)
        #expect(atStart[0].hasSuffix("uppercut now \(meter.floor) of \(meter.uppercut.ceiling)"))
        // The caret moves from the bar's left end to its right end as the level climbs.
        let caret = { (lines: [String]) in lines[1].firstIndex(of: "^").map { lines[1].distance(from: lines[1].startIndex, to: $0) } }
        #expect(try #require(caret(atStart)) == "  POWER [".count)
        #expect(try #require(caret(atTop)) == "  POWER [".count + ScreenModel.meterCells - 1)
        // The uppercut's spot is at the top: the bar's strong cells are at its right end only.
        let bar = atTop[0].dropFirst("  POWER [".count).prefix(ScreenModel.meterCells)
        #expect(bar.hasSuffix("█") && bar.hasPrefix("·"))
        #expect(model.lines(now: 0).allSatisfy { $0.count <= ScreenModel.width })
        model.meter = nil
        #expect(!model.lines(now: 0).contains { $0.contains("POWER") })
    }

    /// The player's guard is on the fight's lines, and a punch a guard halved says so in the log.
    @Test func theGuardShowsAndABluntedPunchSaysSo() throws {
        var bout = try FightFollowerTests.Bout()
        var view = try bout.view()
        var model = Self.model(showing: view, as: view.opponent, user: "alice")
        #expect(model.lines(now: 0).contains("  " + ScreenModel.guardLine(nil)))
        view.ownGuard = .high
        model.fights = [view.id: view]
        #expect(model.lines(now: 0).contains { $0.contains("guard: HIGH") })
        try bout.run(.raiseGuard(view.id, by: view.opponent, .high))
        try bout.run(.punch(view.id, by: view.challenger, after: bout.seen(view.id), kind: .hook, damage: 40))
        let punched = try #require(bout.events().last)
        #expect(model.describe(punched)?.contains("for 20, halved by your high guard (your stamina 80)") == true)
    }

    /// A knockout by the one who threw first is answered: both screens say whose last punch is due.
    @Test func aKnockoutOwedAnAnswerSaysSo() throws {
        var bout = try FightFollowerTests.Bout()
        let first = try bout.view()
        try bout.run(.punch(first.id, by: first.challenger, after: bout.seen(first.id), kind: .uppercut, damage: 56))
        try bout.run(.punch(first.id, by: first.opponent, after: bout.seen(first.id), kind: .uppercut, damage: 56))
        try bout.run(.punch(first.id, by: first.challenger, after: bout.seen(first.id), kind: .uppercut, damage: 56))
        let view = try bout.view()
        #expect(view.phase == .active && view.staminaOpponent == 0 && view.turn == view.opponent)
        var model = Self.model(showing: view, as: view.opponent, user: "bob")
        #expect(model.lines(now: 0).contains { $0.contains("knocked out: answer with one last punch") })
        model.me = view.challenger
        #expect(model.lines(now: 0).contains { $0.contains("knocked out, they answer with one last punch") })
        let ceiling = Rules().meter.uppercut.ceiling
        #expect(
            model.describe(try #require(bout.events().last))?.contains("for \(ceiling) — BIG HIT (their stamina 0)") == true)
        // Bob's answer floors alice too, as far past 0 as alice's went: a draw, said as one.
        try bout.run(.punch(view.id, by: view.opponent, after: bout.seen(view.id), kind: .uppercut, damage: 56))
        let ended = try #require(bout.events().last)
        #expect(ended.kind == .ended && ended.winner == nil)
        #expect(model.describe(ended) == "*** DOUBLE KNOCKOUT *** both as far past 0: a draw")
    }

    /// While the server is gone the turn's clock and the other's presence are not known: the
    /// screen says the turn starts afresh when it is back, rather than count a deadline down.
    @Test func withTheServerGoneTheTurnWaitsForIt() throws {
        let bout = try FightFollowerTests.Bout()
        let view = try bout.view()
        var model = Self.model(showing: view, as: view.challenger, user: "alice")
        #expect(model.lines(now: 0).contains { $0.hasPrefix("  YOUR TURN — ") && $0.contains("s left") })
        model.setStatus(.retrying(.serverGone, in: .seconds(4)), at: 0)
        let lines = model.lines(now: 1)
        #expect(lines.contains("  YOUR turn — it starts afresh when the server is back"))
        #expect(lines.contains { $0.hasSuffix(": not known while the server is gone") })
        #expect(!lines.contains { $0.contains("s left") })
        model.setStatus(.connected(server: "ws://127.0.0.1:8080", username: "alice"), at: 2)
        #expect(model.lines(now: 2).contains { $0.hasPrefix("  YOUR TURN — ") })
    }

    /// Leaving mid-fight lets its turns lapse: q asks first then, and only then.
    @Test func qAsksBeforeLeavingAFightUnderWay() {
        var reader = KeyReader()
        #expect(reader.press(UInt8(ascii: "q"), fightUnderWay: true) == .nothing)
        #expect(reader.prompt?.contains("leave while a fight is on?") == true)
        #expect(reader.press(UInt8(ascii: "n"), fightUnderWay: true) == .nothing, "any other key stays")
        #expect(reader.question == nil)
        _ = reader.press(UInt8(ascii: "q"), fightUnderWay: true)
        #expect(reader.press(UInt8(ascii: "y"), fightUnderWay: true) == .command(.quit))
        var idle = KeyReader()
        #expect(idle.press(UInt8(ascii: "q")) == .command(.quit), "no fight: at once")
    }

    @Test func escapeGivesUpTheLocation() {
        var reader = KeyReader()
        #expect(Self.press("l12\u{1B}", on: &reader).isEmpty)
        #expect(reader.question == nil)
        #expect(Self.press("q", on: &reader) == [.command(.quit)], "keys are commands again")
    }

    @Test func fAsksBeforeForfeiting() {
        var reader = KeyReader()
        #expect(Self.press("f", on: &reader).isEmpty)
        #expect(reader.prompt?.contains("y forfeits") == true)
        #expect(Self.press("n", on: &reader).isEmpty, "n answers the question; it is not `next`")
        #expect(reader.question == nil)
        #expect(Self.press("fy", on: &reader) == [.command(.answer(.forfeit, fight: nil))])
    }

    /// Each key is the command its script line is: the two ways in meet at one typed command.
    @Test func theOtherKeysAreTheirScriptLinesCommands() throws {
        var reader = KeyReader()
        let lines = ["back", "next", "quick", "accept", "decline", "quit"]
        let typed = try lines.map { try #require(try PlayerCommand(parsing: $0)) }
        #expect(Self.press("bnmadq", on: &reader) == typed.map(KeyReader.Action.command), "\(typed)")
        #expect(Self.press("c", on: &reader) == [.challengeShown])
    }

    /// A punch key winds the power meter up (`windup KIND`); once it sweeps, a punch key throws
    /// that kind from it, as the script's bare `jab` does, and space throws the kind aimed at.
    @Test func aPunchKeyWindsUpAndThenThrows() throws {
        var reader = KeyReader()
        for (key, kind) in [("j", "jab"), ("u", "uppercut"), ("k", "hook")] {
            let byte = UInt8(ascii: Unicode.Scalar(key)!)
            #expect(
                reader.press(byte) == .command(try #require(try PlayerCommand(parsing: "windup \(kind)"))))
            #expect(reader.press(byte, aiming: .jab) == .command(try #require(try PlayerCommand(parsing: kind))))
        }
        #expect(reader.press(UInt8(ascii: " "), aiming: .hook) == .command(.keyboardPunch(.hook)))
        guard case .note = reader.press(UInt8(ascii: " ")) else {
            Issue.record("space with no meter wound up should say what to do first")
            return
        }
        #expect(try PlayerCommand(parsing: "jab") == .punch(verb: "jab", fight: nil, kind: .jab))
        #expect(reader.press(UInt8(ascii: "g")) == .command(.raiseGuard(nil, fight: nil)))
    }

    /// A location typed at `l` is the command `move LAT LON` is, from the same numbers.
    @Test func aTypedLocationIsTheScriptsMove() throws {
        var reader = KeyReader()
        #expect(
            Self.press("l-33.9, 18.4\r", on: &reader) == [
                .command(try #require(try PlayerCommand(parsing: "move -33.9 18.4")))
            ])
    }

    // MARK: The screen

    static func message(_ json: String) throws -> ServerMessage { try MessageCodec.decodeReply(json) }

    static func card(_ id: Int64, _ name: String, _ more: String = "") -> String {
        #"{"bio":"","displayName":"\#(name)","draws":0,"id":\#(id),"joinedAt":"2026-11-22T05:00:00Z","losses":0,"username":"\#(name.lowercased())","wins":0\#(more)}"#
    }

    /// The rules a welcome states, as JSON: `rules`, this build's own unless given.
    static func statedRules(_ rules: StatedRules = StatedRules()) -> String {
        String(decoding: try! JSONEncoder().encode(rules), as: UTF8.self)
    }

    static let welcome =
        #"{"fighter":\#(card(1, "Alice")),"openFights":[],"presence":[],"rules":\#(statedRules()),"type":"welcome","v":1}"#

    /// A model that has been welcomed as fighter 1.
    static func welcomed() throws -> ScreenModel {
        var model = ScreenModel(user: "alice")
        _ = model.apply(try message(welcome), answersPlayer: false, fights: [:], me: FighterID(1))
        return model
    }

    @Test func theScreenSaysHowToSetALocationUntilThereIsOne() throws {
        var model = try Self.welcomed()
        #expect(model.lines(now: 0)[1].contains("No location yet: press l"))
        let moved =
            #"{"at":"2026-11-22T05:01:30Z","fighter":1,"kind":"moved","latitude":48.8566,"longitude":2.3522,"ref":3,"type":"event","v":1}"#
        _ = model.apply(try Self.message(moved), answersPlayer: true, fights: [:], me: FighterID(1))
        #expect(model.lines(now: 0)[1] == "You are at 48.8566, 2.3522 (l changes it).")
        #expect(model.lines(now: 0).contains("  your location is now 48.8566, 2.3522"))
    }

    @Test func eventsNameFightersOnceTheirCardsAreIn() throws {
        var model = try Self.welcomed()
        let challenged =
            #"{"at":"2026-11-22T05:01:30Z","challenger":2,"expiresAt":"2026-11-22T05:06:30Z","fight":7,"kind":"challenged","opponent":1,"sequence":1,"type":"event","v":1}"#
        _ = model.apply(try Self.message(challenged), answersPlayer: false, fights: [:], me: FighterID(1))
        #expect(model.lines(now: 0).contains("  fighter 2 challenged you"), "until the card comes")
        let profile = #"{"fighter":\#(Self.card(2, "Bob")),"ref":9,"type":"profile","v":1}"#
        _ = model.apply(try Self.message(profile), answersPlayer: false, fights: [:], me: FighterID(1))
        let lines = model.lines(now: 0)
        #expect(lines.contains("  Bob challenged you"), "\(lines)")
        #expect(!lines.contains { $0.contains("fighter 2") })
    }

    /// A punch's line says whose stamina is left; a knockout stands out from the other endings;
    /// a turn started afresh by a server's restart says so.
    @Test func punchesSayWhoseStaminaIsLeftAndAKnockoutStandsOut() throws {
        var model = try Self.welcomed()
        let events = [
            #"{"at":"2026-11-22T05:02:00Z","by":1,"damage":30,"fight":7,"kind":"punched","punch":"jab","sequence":3,"staminaLeft":70,"type":"event","v":1}"#,
            #"{"at":"2026-11-22T05:02:10Z","by":2,"damage":40,"fight":7,"kind":"punched","punch":"uppercut","sequence":4,"staminaLeft":60,"type":"event","v":1}"#,
            #"{"at":"2026-11-22T05:02:20Z","deadline":"2026-11-22T05:03:20Z","fight":7,"kind":"turnPassed","missedTurns":0,"sequence":5,"turn":1,"type":"event","v":1}"#,
            #"{"at":"2026-11-22T05:02:30Z","challenger":1,"decision":"knockout","fight":7,"kind":"ended","opponent":2,"sequence":6,"type":"event","v":1,"winner":1}"#,
        ]
        for event in events {
            _ = model.apply(try Self.message(event), answersPlayer: false, fights: [:], me: FighterID(1))
        }
        let lines = model.lines(now: 0)
        #expect(lines.contains("  you threw a jab for 30 (their stamina 70)"), "\(lines)")
        #expect(lines.contains("  fighter 2 threw an uppercut for 40 (your stamina 60)"), "\(lines)")
        #expect(lines.contains("  the server is back: your turn, in full"), "\(lines)")
        #expect(lines.contains("  *** KNOCKOUT *** you won"), "\(lines)")
    }

    @Test func anErrorStaysUntilThePlayersNextRequestSucceeds() throws {
        var model = try Self.welcomed()
        let error =
            #"{"code":"refused","message":"fighter 1 has not shared a location","reason":"noLocation","ref":4,"type":"error","v":1}"#
        _ = model.apply(try Self.message(error), answersPlayer: true, fights: [:], me: FighterID(1))
        #expect(model.note == "set your location first: press l")
        let profile = #"{"fighter":\#(Self.card(2, "Bob")),"ref":9,"type":"profile","v":1}"#
        _ = model.apply(try Self.message(profile), answersPlayer: false, fights: [:], me: FighterID(1))
        #expect(model.note != "", "the client's own request is not the player's action")
        let nobody = #"{"ref":5,"type":"opponent","v":1}"#
        _ = model.apply(try Self.message(nobody), answersPlayer: true, fights: [:], me: FighterID(1))
        #expect(model.note == "nobody else within reach (\(Int(Rules().matchRadiusKm)) km) for now")
        let moved =
            #"{"at":"2026-11-22T05:01:30Z","fighter":1,"kind":"moved","latitude":1,"longitude":2,"ref":6,"type":"event","v":1}"#
        _ = model.apply(try Self.message(moved), answersPlayer: true, fights: [:], me: FighterID(1))
        #expect(model.note == "")
    }

    /// The wait before the next attempt counts down with the screen's clock rather than
    /// standing still at the words of the moment it began.
    @Test func aReconnectWaitCountsDown() throws {
        var model = try Self.welcomed()
        model.setStatus(.retrying(.serverGone, in: .milliseconds(7820)), at: 1000)
        #expect(model.lines(now: 1000)[0].hasSuffix("server gone; retrying in 7.82 seconds"))
        #expect(model.lines(now: 1003)[0].hasSuffix("server gone; retrying in 5 s"))
        #expect(model.lines(now: 1009)[0].hasSuffix("server gone; retrying now"))
        model.setStatus(.connected(server: "ws://h:1", username: "alice"), at: 1010)
        #expect(model.lines(now: 1020)[0].hasSuffix("connected to ws://h:1 as alice"))
    }

    /// "Not your turn" of a moment ago does not stand once the fight moves on.
    @Test func aRefusalIsClearedWhenAFightMovesOn() throws {
        var model = try Self.welcomed()
        let error =
            #"{"code":"refused","message":"fighter 1: it is not your turn","reason":"waitYourTurn","ref":4,"type":"error","v":1}"#
        _ = model.apply(try Self.message(error), answersPlayer: true, fights: [:], me: FighterID(1))
        #expect(model.note != "")
        let punched =
            #"{"at":"2026-11-22T05:02:10Z","by":2,"damage":40,"fight":7,"kind":"punched","punch":"uppercut","sequence":4,"staminaLeft":60,"type":"event","v":1}"#
        _ = model.apply(try Self.message(punched), answersPlayer: false, fights: [:], me: FighterID(1))
        #expect(model.note == "")
    }

    /// Fight 7, alice (1) against Bob (2), under way, with Bob's card in, at a moment T.
    static func fighting(missed: (Int, Int) = (0, 0)) throws -> (model: ScreenModel, fight: FightView) {
        var model = try Self.welcomed()
        let profile = #"{"fighter":\#(Self.card(2, "Bob")),"ref":9,"type":"profile","v":1}"#
        _ = model.apply(try Self.message(profile), answersPlayer: false, fights: [:], me: FighterID(1))
        let fight = try JSONDecoder().decode(
            FightView.self,
            from: Data(
                #"{"challenger":1,"deadline":"2026-11-22T05:03:00Z","id":7,"lastSequence":2,"missedTurnsChallenger":\#(missed.0),"missedTurnsOpponent":\#(missed.1),"opponent":2,"phase":"active","punchesChallenger":0,"punchesOpponent":0,"staminaChallenger":100,"staminaOpponent":100,"turn":1}"#
                    .utf8))
        model.fights = [fight.id: fight]
        return (model, fight)
    }

    /// 2026-11-22T05:02:00Z, a minute before the fight's deadline.
    static let t = Timestamp(iso8601: "2026-11-22T05:02:00Z")!.secondsSince1970

    static func presence(_ state: String, since: String?) -> String {
        let since = since.map { #""since":"\#($0)","# } ?? ""
        return #"{"fight":7,"fighter":2,\#(since)"state":"\#(state)","type":"presence","v":1}"#
    }

    /// The other fighter's presence shows on the fight: connected, gone with how long ago, back
    /// (for a while, then connected again); gone unseen since a restart says so.
    @Test func theOtherFightersPresenceShowsOnTheFight() throws {
        var (model, fight) = try Self.fighting()
        let fights = [fight.id: fight]
        func show(_ json: String) throws {
            _ = model.apply(try Self.message(json), answersPlayer: false, fights: fights, me: FighterID(1))
        }
        #expect(!model.lines(now: Self.t).contains { $0.hasPrefix("  Bob") }, "not known yet")
        try show(Self.presence("connected", since: "2026-11-22T05:01:00Z"))
        #expect(model.lines(now: Self.t).contains("  Bob: connected"))
        try show(Self.presence("gone", since: "2026-11-22T05:01:48Z"))
        #expect(model.lines(now: Self.t).contains("  Bob is gone (connection lost 12 s ago)"))
        #expect(model.lines(now: Self.t + 300).contains("  Bob is gone (connection lost 5 min ago)"))
        try show(Self.presence("connected", since: "2026-11-22T05:02:10Z"))
        #expect(model.lines(now: Self.t + 15).contains("  Bob is back"))
        #expect(model.lines(now: Self.t + 10 + OpponentPresence.backIsNews).contains("  Bob: connected"))
        // This client's own reconnect: the welcome says connected, and he is still back.
        let welcome =
            #"{"fighter":\#(Self.card(1, "Alice")),"openFights":[],"presence":[\#(Self.presence("connected", since: "2026-11-22T05:02:10Z").replacingOccurrences(of: #","type":"presence","v":1"#, with: ""))],"rules":\#(Self.statedRules()),"type":"welcome","v":1}"#
        try show(welcome)
        #expect(model.lines(now: Self.t + 15).contains("  Bob is back"))
        try show(Self.presence("gone", since: nil))
        #expect(model.lines(now: Self.t).contains("  Bob is gone (not seen since the server started)"))
        try show(Self.presence("napping", since: nil))
        #expect(model.lines(now: Self.t).contains("  Bob: napping"), "a state from a newer server, as it came")
        // Over, the fight shows no presence.
        var over = fight
        over.phase = .finished
        _ = model.apply(
            try Self.message(Self.presence("connected", since: nil)), answersPlayer: false, fights: [over.id: over],
            me: FighterID(1))
        #expect(!model.lines(now: Self.t).contains { $0.hasPrefix("  Bob") })
    }

    /// One missed turn short of the forfeit, the player is warned, with the rule's numbers; not
    /// before, and not for the other's count.
    @Test func oneMissedTurnShortOfTheForfeitIsWarned() throws {
        let limit = Rules().missedTurnsToForfeit
        let warning = "  \(limit - 1) of \(limit) missed turns: one more and you forfeit"
        #expect(warning == "  2 of 3 missed turns: one more and you forfeit")
        #expect(try Self.fighting(missed: (limit - 1, 0)).model.lines(now: Self.t).contains(warning))
        #expect(
            try !Self.fighting(missed: (limit - 2, 0)).model.lines(now: Self.t).contains { $0.contains("missed turns") }
        )
        #expect(
            try !Self.fighting(missed: (0, limit - 1)).model.lines(now: Self.t).contains { $0.contains("missed turns") }
        )
        #expect(ScreenModel.missedTurnsWarning(4, limit: 5) == "4 of 5 missed turns: one more and you forfeit")
        #expect(ScreenModel.missedTurnsWarning(0, limit: 1) == nil, "with nothing missed there is no run to warn of")
    }

    @Test func theEdgesAreSaidInWords() throws {
        let decoder = JSONDecoder()
        let mine = try decoder.decode(
            FighterCard.self, from: Data(Self.card(1, "A", #","reachCm":180,"weightKg":60"#).utf8))
        var theirs = try decoder.decode(
            FighterCard.self, from: Data(Self.card(2, "B", #","reachCm":170,"weightKg":70"#).utf8))
        theirs.wins = 3
        #expect(
            ScreenModel.edges(mine: mine, theirs: theirs)
                == "you have the longer reach; they have more weight and more wins")
        #expect(ScreenModel.edges(mine: mine, theirs: mine) == nil)
    }

    /// The fullest screen: a versus card with long names and every edge, a fight, a full log, a
    /// long note. Nothing wraps or scrolls on an 80×24 terminal.
    @Test func theFullestScreenFitsEightyByTwentyFour() throws {
        var model = try Self.welcomed()
        let long = String(repeating: "W", count: 50)
        let matchup =
            #"{"matchup":{"decimalOdds":1.6,"distanceKm":49.9,"opponent":\#(Self.card(2, long, #","heightCm":200,"reachCm":280,"weightKg":150"#)),"winChance":0.625},"ref":4,"type":"opponent","v":1}"#
        _ = model.apply(try Self.message(matchup), answersPlayer: true, fights: [:], me: FighterID(1))
        let fight = try JSONDecoder().decode(
            FightView.self,
            from: Data(
                #"{"challenger":1,"deadline":"2026-11-22T05:03:00Z","id":70000,"lastSequence":2,"missedTurnsChallenger":2,"missedTurnsOpponent":0,"opponent":2,"phase":"active","punchesChallenger":0,"punchesOpponent":0,"staminaChallenger":100,"staminaOpponent":100,"turn":1}"#
                    .utf8))
        for sequence in 1...30 {
            let punched =
                #"{"at":"2026-11-22T05:01:30Z","by":2,"damage":64,"fight":70000,"kind":"punched","punch":"uppercut","sequence":\#(sequence),"staminaLeft":100,"type":"event","v":1}"#
            _ = model.apply(
                try Self.message(punched), answersPlayer: false, fights: [fight.id: fight], me: FighterID(1))
        }
        let gone = #"{"fight":70000,"fighter":2,"since":"2026-11-22T05:01:00Z","state":"gone","type":"presence","v":1}"#
        _ = model.apply(try Self.message(gone), answersPlayer: false, fights: [fight.id: fight], me: FighterID(1))
        model.note = String(repeating: "n", count: 200)
        model.status = "could not connect; retrying in 8.0 seconds"
        let lines = model.lines(now: 0)
        #expect(lines.count <= ScreenModel.height)
        #expect(lines.allSatisfy { $0.count <= ScreenModel.width }, "\(lines.filter { $0.count > 80 })")
        #expect(lines.last == ScreenModel.yourTurnKeys)
        #expect(lines.contains { $0.hasPrefix("  YOUR TURN") })
        #expect(
            lines.contains { $0.hasPrefix("  \(long) is gone") }
                && lines.contains { $0.contains("one more and you forfeit") })
        #expect(lines.contains { $0.contains("threw an uppercut for 64") }, "the latest events still show")
        var reader = KeyReader()
        _ = Self.press("l" + String(repeating: "9", count: 50), on: &reader)
        model.prompt = reader.prompt
        #expect(model.lines(now: 0).last == reader.prompt, "the longest input line is whole")
        #expect(model.lines(now: 0).allSatisfy { $0.count <= ScreenModel.width })
    }
}
