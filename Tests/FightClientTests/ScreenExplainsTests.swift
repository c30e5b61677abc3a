import FightEngine
import FightProtocol
import Foundation
import Testing

@testable import FightClient

/// The fight explaining itself on the screen: how far past 0 a knockout went and what the answer
/// needs, the keys that do something now, the rules (`?`), the fight's past replayed into the log,
/// cards that stay current, and the profile's stats as typed.
@Suite struct ScreenExplainsTests {
    typealias Screen = PlayScreenTests

    /// A punch event of fight 7 (alice 1 against Bob 2), as the server sends it.
    static func punched(_ sequence: Int, by: Int, damage: Int, left: Int, turn: Int? = nil) -> String {
        let turn = turn.map { #","turn":\#($0),"deadline":"2026-11-22T05:03:00Z""# } ?? ""
        return #"{"at":"2026-11-22T05:02:\#(10 + sequence)Z","by":\#(by),"damage":\#(damage),"fight":7,"kind":"punched","punch":"hook","sequence":\#(sequence),"staminaLeft":\#(left)\#(turn),"type":"event","v":1}"#
    }

    /// Fight 7 as it stands: `stamina` (alice's, Bob's), `turn`, at `sequence`.
    static func view(_ sequence: Int, stamina: (Int, Int), turn: Int?, phase: String = "active") throws -> FightView {
        let turn = turn.map { #","turn":\#($0),"deadline":"2026-11-22T05:03:00Z""# } ?? ""
        return try JSONDecoder().decode(
            FightView.self,
            from: Data(
                #"{"challenger":1,"id":7,"lastSequence":\#(sequence),"opponent":2,"phase":"\#(phase)","punchesChallenger":0,"punchesOpponent":0,"staminaChallenger":\#(stamina.0),"staminaOpponent":\#(stamina.1)\#(turn)}"#
                    .utf8))
    }

    /// Applies `json` to `model` with the fights as they stand after it.
    static func apply(_ json: String, to model: inout ScreenModel, fights: FightView) throws {
        _ = model.apply(try Screen.message(json), answersPlayer: false, fights: [fights.id: fights], me: FighterID(1))
    }

    // MARK: Past 0

    /// Alice let a turn pass, so Bob has thrown more when he floors her with more than she had:
    /// she answers. The screen shows her stamina below 0 by the margin and what her answer needs
    /// from Bob's stamina and that margin; once her answer floors him by more, the end says both.
    @Test func aKnockoutSaysHowFarPast0AndWhatTheAnswerNeeds() throws {
        var (model, _) = try Screen.fighting()
        model.setStatus(.connected(server: "ws://h:1", username: "alice"), at: Screen.t)
        let start = model.rules.startingStamina
        let (bobLeft, margin) = (10, 12)
        let (jab, hers) = (30, start - bobLeft)
        let blow = start - jab + margin, answer = bobLeft + margin + 3
        let passed =
            #"{"at":"2026-11-22T05:02:03Z","deadline":"2026-11-22T05:03:00Z","fight":7,"kind":"turnPassed","missedTurns":1,"sequence":3,"turn":2,"type":"event","v":1}"#
        try Self.apply(passed, to: &model, fights: try Self.view(3, stamina: (start, start), turn: 2))
        try Self.apply(
            Self.punched(4, by: 2, damage: jab, left: start - jab, turn: 1), to: &model,
            fights: try Self.view(4, stamina: (start - jab, start), turn: 1))
        try Self.apply(
            Self.punched(5, by: 1, damage: hers, left: bobLeft, turn: 2), to: &model,
            fights: try Self.view(5, stamina: (start - jab, bobLeft), turn: 2))
        try Self.apply(
            Self.punched(6, by: 2, damage: blow, left: 0, turn: 1), to: &model,
            fights: try Self.view(6, stamina: (0, bobLeft), turn: 1))
        #expect(model.trail.pastZero(of: FighterID(1), in: FightID(7)) == margin)
        var lines = model.lines(now: Screen.t)
        #expect(lines.contains { $0.hasPrefix("  you ") && $0.hasSuffix("] \(-margin) (\(margin) past 0)") }, "\(lines)")
        #expect(lines.contains { $0.contains("YOUR TURN — knocked out \(margin) past 0") }, "\(lines)")
        let draw = bobLeft + margin
        #expect(
            lines.contains { $0.hasPrefix("  they have \(bobLeft) left: \(draw + 1)+ wins, \(draw) draws, less loses") },
            "\(lines)")
        #expect(lines.contains { $0.contains("(your stamina 0, \(margin) past 0)") }, "\(lines)")
        #expect(!lines.contains { $0.hasSuffix("…") }, "nothing cut: \(lines)")

        try Self.apply(
            Self.punched(7, by: 1, damage: answer, left: 0), to: &model,
            fights: try Self.view(7, stamina: (0, 0), turn: nil))
        let ended =
            #"{"at":"2026-11-22T05:02:30Z","decision":"knockout","fight":7,"kind":"ended","sequence":8,"type":"event","v":1,"winner":1}"#
        try Self.apply(ended, to: &model, fights: try Self.view(8, stamina: (0, 0), turn: nil, phase: "finished"))
        lines = model.lines(now: Screen.t)
        #expect(lines.contains("  *** KNOCKOUT *** you won: \(answer - bobLeft) past 0 beats \(margin)"), "\(lines)")
    }

    /// The one who floored the other is told what the answer needs; here more than any punch
    /// lands (the highest ceiling of the rules), so the knockout stands, and the screen says so.
    @Test func theKnockerIsToldWhatTheAnswerNeeds() throws {
        var (model, _) = try Screen.fighting()
        model.setStatus(.connected(server: "ws://h:1", username: "alice"), at: Screen.t)
        let start = model.rules.startingStamina
        try Self.apply(
            Self.punched(3, by: 1, damage: start + 5, left: 0, turn: 2), to: &model,
            fights: try Self.view(3, stamina: (start, 0), turn: 2))
        let lines = model.lines(now: Screen.t)
        #expect(lines.contains { $0.contains("their turn — knocked out 5 past 0") }, "\(lines)")
        let most = PunchType.allCases.map { model.rules.meter.spot(for: $0).ceiling }.max()!
        try #require(start + 5 > most)
        #expect(
            lines.contains("  you have \(start) left: no punch lands \(start + 5) (the most is \(most)), so the knockout stands"),
            "\(lines)")
        #expect(
            ScreenModel.answerNeeds(margin: 5, left: 20, most: most, answeringIsMe: false)
                == "you have 20 left: their 26+ wins, 25 draws, less and you win")
        #expect(
            ScreenModel.answerNeeds(margin: 1, left: most - 1, most: most, answeringIsMe: false)
                == "you have \(most - 1) left: their \(most) draws, less and you win", "a draw is the best they can do")
    }

    /// Events missed by the screen (a trail joined late) say nothing of a margin they cannot know.
    @Test func aTrailJoinedLateStartsFromTheStateJustBefore() throws {
        var trail = KnockoutTrail()
        let before = try Self.view(8, stamina: (40, 25), turn: 1)
        let blow = try Screen.message(Self.punched(9, by: 1, damage: 31, left: 0, turn: 2))
        guard case .event(let event) = blow.body else { throw CancellationError() }
        trail.take(event, before: before, startingStamina: 100)
        #expect(trail.pastZero(of: FighterID(2), in: FightID(7)) == 31 - 25)
        var blind = KnockoutTrail()
        blind.take(event, before: try Self.view(5, stamina: (40, 25), turn: 1), startingStamina: 100)
        #expect(blind.pastZero(of: FighterID(2), in: FightID(7)) == nil, "not the state just before")
    }

    // MARK: The log after a reconnect

    /// A replay's events go into the log once each, in order, even when a pushed copy of one came
    /// first; the margins are counted from the fight's start once it is in.
    @Test func aReplayFillsTheLogOnce() throws {
        var (model, _) = try Screen.fighting()
        let start = model.rules.startingStamina
        let now = try Self.view(4, stamina: (0, start - 20), turn: 1)
        try Self.apply(Self.punched(4, by: 2, damage: start + 3, left: 0, turn: 1), to: &model, fights: now)
        let accepted =
            #"{"at":"2026-11-22T05:01:00Z","deadline":"2026-11-22T05:03:00Z","fight":7,"kind":"accepted","sequence":2,"turn":1,"type":"event","v":1}"#
        let challenged =
            #"{"at":"2026-11-22T05:00:30Z","challenger":1,"expiresAt":"2026-11-23T05:00:00Z","fight":7,"kind":"challenged","opponent":2,"sequence":1,"type":"event","v":1}"#
        let events = [challenged, accepted, Self.punched(3, by: 1, damage: 20, left: start - 20, turn: 2),
            Self.punched(4, by: 2, damage: start + 3, left: 0, turn: 1)]
        let replay = #"{"events":[\#(events.joined(separator: ","))],"fight":7,"ref":3,"type":"events","v":1}"#
        try Self.apply(replay, to: &model, fights: now)
        let lines = model.lines(now: Screen.t)
        #expect(
            model.trail.pastZero(of: FighterID(1), in: FightID(7)) == 3,
            "the replay of the whole fight counts from its start, though a later event came first")
        let punches = lines.filter { $0.contains(" threw a") }
        #expect(punches.count == 2, "\(lines)")
        #expect(punches.first?.contains("you threw a hook for 20") == true, "older first: \(punches)")
        #expect(lines.contains("  you challenged Bob"), "\(lines)")
    }

    // MARK: Keys

    /// The last line names the keys that work now: the lobby's, a fight's in each turn, and
    /// during an outage what is waiting; every one fits 80 columns.
    @Test func theLegendFollowsWhatCanBeDone() throws {
        var model = try Screen.welcomed()
        model.setStatus(.connected(server: "ws://h:1", username: "alice"), at: 0)
        #expect(model.lines(now: 0).last == ScreenModel.keyBar)
        var fight = try Self.view(2, stamina: (100, 100), turn: 1)
        model.fights = [fight.id: fight]
        #expect(model.lines(now: 0).last == ScreenModel.yourTurnKeys)
        fight.turn = FighterID(2)
        model.fights = [fight.id: fight]
        #expect(model.lines(now: 0).last == ScreenModel.theirTurnKeys)
        model.setStatus(.retrying(.serverGone, in: .seconds(2)), at: 0)
        #expect(model.lines(now: 0).last == ScreenModel.outageKeys)
        model.showsRules = true
        #expect(model.lines(now: 0).last == ScreenModel.rulesKeys)
        for legend in [ScreenModel.keyBar, ScreenModel.yourTurnKeys, ScreenModel.theirTurnKeys, ScreenModel.outageKeys] {
            #expect(legend.count <= ScreenModel.width, "\(legend)")
        }
        #expect(ScreenModel.yourTurnKeys.contains("j jab") && ScreenModel.yourTurnKeys.contains("space throws"))
    }

    /// Without the server, space says the punch waits for it, not that a wind-up is missing.
    @Test func spaceDuringAnOutageSaysWhy() {
        var reader = KeyReader()
        guard case .note(let outage) = reader.press(UInt8(ascii: " "), connected: false) else {
            Issue.record("no note")
            return
        }
        #expect(outage.contains("not connected") && !outage.contains("wind up"), "\(outage)")
        guard case .note(let connected) = reader.press(UInt8(ascii: " ")) else { return }
        #expect(connected.contains("wind up first"))
    }

    /// `?` shows the rules and hides them; they are said from the numbers the server's welcome
    /// states (this build's own before it comes, and said so) and fit 80×24.
    @Test func questionMarkShowsTheRules() throws {
        var reader = KeyReader()
        #expect(reader.press(UInt8(ascii: "?")) == .toggleRules)
        #expect(reader.press(0x1B) == .closeRules)
        var before = ScreenModel(user: "alice")
        before.showsRules = true
        #expect(before.lines(now: 0).contains { $0.hasPrefix("RULES (this build's") })
        var rules = Rules(turnTimeout: 45)
        rules.meter.uppercut.ceiling = 61
        var model = ScreenModel(user: "alice")
        let welcome =
            #"{"fighter":\#(Screen.card(1, "Alice")),"openFights":[],"presence":[],"rules":\#(Screen.statedRules(StatedRules(rules))),"type":"welcome","v":1}"#
        _ = model.apply(try Screen.message(welcome), answersPlayer: false, fights: [:], me: FighterID(1))
        model.showsRules = true
        let lines = model.lines(now: 0)
        #expect(lines.contains("RULES (as the server states them)"), "\(lines)")
        #expect(lines.count <= ScreenModel.height)
        #expect(lines.allSatisfy { $0.count <= ScreenModel.width }, "\(lines.filter { $0.count > ScreenModel.width })")
        #expect(!lines.dropFirst().contains { $0.hasSuffix("…") }, "wrapped, not cut: \(lines)")
        #expect(lines.contains { $0.contains("uppercut up to 61") }, "\(lines)")
        #expect(lines.contains { $0.contains("45 s each") }, "\(lines)")
        #expect(lines.contains { $0.contains("past 0 wins") })
    }

    // MARK: Cards and the profile

    /// The versus card shows the opponent's card as last asked for: a record that changed since
    /// the matchup came (a forfeit, say) is the new one.
    @Test func theVersusCardShowsTheLatestRecord() throws {
        var model = try Screen.welcomed()
        let matchup =
            #"{"matchup":{"decimalOdds":2,"distanceKm":1.5,"opponent":\#(Screen.card(2, "Bob")),"winChance":0.5},"ref":4,"type":"opponent","v":1}"#
        _ = model.apply(try Screen.message(matchup), answersPlayer: true, fights: [:], me: FighterID(1))
        #expect(model.lines(now: 0).contains { $0.contains("record 0-0-0") })
        let later = #"{"fighter":\#(Screen.card(2, "Bob", #","wins":1"#).replacingOccurrences(of: #""wins":0,"#, with: "")),"ref":9,"type":"profile","v":1}"#
        _ = model.apply(try Screen.message(later), answersPlayer: false, fights: [:], me: FighterID(1))
        #expect(model.lines(now: 0).contains { $0.contains("record 1-0-0") }, "\(model.lines(now: 0))")
    }

    /// `p` takes height, weight and reach, checked by the engine's ranges before anything is
    /// sent; the request keeps the name and bio of the player's card.
    @Test func pSetsHeightWeightAndReach() throws {
        var reader = KeyReader()
        #expect(Screen.press("p180 75 -\r", on: &reader) == [.updateStats(ProfileStats(heightCm: 180, weightKg: 75))])
        let tooShort = Screen.press("p10 75 182\r", on: &reader)
        guard case .note(let words)? = tooShort.first else {
            Issue.record("no note for a height out of range: \(tooShort)")
            return
        }
        #expect(words.hasPrefix("profile \"10 75 182\": ") && words.contains("10"), "\(words)")
        #expect(throws: ProfileStatsError.self) { try ProfileStats(parsing: "180 75") }
        #expect(throws: ProfileStatsError.self) { try ProfileStats(parsing: "180 tall 182") }
        _ = reader.press(0x1B)
        let model = try Screen.welcomed()
        let request = model.profileUpdate(ProfileStats(heightCm: 180, weightKg: 75, reachCm: 182))
        #expect(
            request == .updateProfile(ProfileUpdate(displayName: "Alice", bio: "", heightCm: 180, weightKg: 75, reachCm: 182)))
        #expect(ScreenModel(user: "alice").profileUpdate(ProfileStats()) == nil, "no card yet")
    }
}
