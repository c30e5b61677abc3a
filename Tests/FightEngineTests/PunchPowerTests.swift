import FightEngine
import Foundation
import Testing

/// The power meter and the guards: what a keyboard punch does, and what a guard takes off.
@Suite struct PunchPowerTests {
    let meter = PowerMeter()

    // MARK: - The meter

    /// The level climbs to the top in half a sweep and comes back down in the other half, round
    /// and round.
    @Test func theLevelSweepsUpAndDownAndRoundAgain() {
        let sweep = meter.sweepMilliseconds
        #expect(meter.level(after: 0) == 0)
        #expect(meter.level(after: -100) == 0)
        #expect(meter.level(after: sweep / 4) == 0.5)
        #expect(meter.level(after: sweep / 2) == 1)
        #expect(meter.level(after: 3 * sweep / 4) == 0.5)
        #expect(meter.level(after: sweep) == 0)
        #expect(meter.level(after: 7 * sweep + sweep / 2) == 1)
    }

    /// Stopped on a kind's sweet spot, a punch does the kind's ceiling; far from it, the floor;
    /// halfway out, halfway between.
    @Test(arguments: PunchType.allCases)
    func theSweetSpotHitsTheCeilingAndAMissTheFloor(_ kind: PunchType) {
        let spot = meter.spot(for: kind)
        let half = Double(meter.sweepMilliseconds) / 2
        func stoppedAt(level: Double) -> Int {
            meter.damage(of: kind, stoppedAfter: Int64((level * half).rounded()))
        }
        #expect(stoppedAt(level: spot.level) == spot.ceiling)
        #expect(stoppedAt(level: 0) == meter.floor)
        let halfway = spot.level - spot.halfWidth / 2
        #expect(abs(stoppedAt(level: halfway) - (meter.floor + spot.ceiling) / 2) <= 1)
    }

    /// The kinds trade safety for reach: the higher the ceiling, the narrower the spot, and the
    /// uppercut only pays at the very top of the sweep.
    @Test func theKindsTradeSafetyForReach() {
        let (jab, hook, uppercut) = (meter.jab, meter.hook, meter.uppercut)
        #expect(jab.ceiling < hook.ceiling && hook.ceiling < uppercut.ceiling)
        #expect(jab.halfWidth > hook.halfWidth && hook.halfWidth > uppercut.halfWidth)
        // Halfway up the sweep a jab already does well; an uppercut does nothing above the floor.
        let halfwayUp = meter.sweepMilliseconds / 4
        #expect(meter.damage(of: .jab, stoppedAfter: halfwayUp) > (meter.floor + jab.ceiling) / 2)
        #expect(meter.damage(of: .uppercut, stoppedAfter: halfwayUp) == meter.floor)
    }

    /// A person who stops the meter within a tenth of a second of a jab's or hook's sweet spot
    /// does 30 or more: what a sensor's punch does in the median (30–36 on real recordings), so
    /// the keyboard is not behind. The uppercut pays more only to a sharper stop.
    @Test(arguments: [PunchType.jab, .hook])
    func aStopWithinATenthOfASecondDoesWhatASensorDoes(_ kind: PunchType) {
        let spot = meter.spot(for: kind)
        let atSpot = Int64((spot.level * Double(meter.sweepMilliseconds) / 2).rounded())
        for offset in stride(from: -100 as Int64, through: 100, by: 10) where atSpot + offset >= 0 {
            #expect(meter.damage(of: kind, stoppedAfter: atSpot + offset) >= 30, "\(kind) \(offset) ms off")
        }
        let top = meter.sweepMilliseconds / 2
        #expect(meter.damage(of: .uppercut, stoppedAfter: top - 30) > meter.jab.ceiling)
    }

    /// Pressing as fast as possible (stopping the meter at once) hits at the floor, whatever the
    /// kind: no skill, no damage worth the name.
    @Test(arguments: PunchType.allCases)
    func aStopAtOnceHitsTheFloor(_ kind: PunchType) {
        #expect(meter.damage(of: kind, stoppedAfter: 0) == meter.floor)
    }

    /// A sensor's damage is taken up to the kind's ceiling, and no further.
    @Test func aSensorsDamageIsCappedAtTheKindsCeiling() {
        #expect(meter.damage(of: .jab, measured: 30) == 30)
        #expect(meter.damage(of: .jab, measured: 64) == meter.jab.ceiling)
        #expect(meter.damage(of: .uppercut, measured: 64) == meter.uppercut.ceiling)
    }

    // MARK: - Guards

    /// A high guard halves jabs and hooks, a low one uppercuts; nothing else.
    @Test func eachGuardBluntsItsKinds() {
        #expect(Guard.high.blunts(.jab) && Guard.high.blunts(.hook) && !Guard.high.blunts(.uppercut))
        #expect(!Guard.low.blunts(.jab) && !Guard.low.blunts(.hook) && Guard.low.blunts(.uppercut))
        #expect(Guard.high.damage(of: .hook, 45) == 22)
        #expect(Guard.high.damage(of: .uppercut, 45) == 45)
        #expect(Guard.low.damage(of: .uppercut, 1) == 1)
    }

    /// For every guard there is a kind that beats it: the attacker's choice is a guess.
    @Test func everyGuardHasAKindThatBeatsIt() {
        for stance in Guard.allCases {
            #expect(PunchType.allCases.contains { !stance.blunts($0) })
            #expect(PunchType.allCases.contains { stance.blunts($0) })
        }
    }

    // MARK: - In a fight

    /// A punch from the meter lands with the meter's damage, timed by the milliseconds given.
    @Test func aTimedPunchLandsTheMetersDamage() throws {
        var ring = Ring()
        let (fight, a, _) = try ring.startFight()
        let top = ring.referee.rules.meter.sweepMilliseconds / 2
        let events = try ring.run(.timedPunch(fight, by: a, after: ring.seen(fight), kind: .uppercut, stoppedAfterMilliseconds: top))
        guard case .punched(_, .uppercut, let damage, nil, let left, _, _) = events.fightChanges.first else {
            Issue.record("no uppercut landed: \(events)")
            return
        }
        #expect(damage == ring.referee.rules.meter.uppercut.ceiling && left == 100 - damage)
    }

    /// A timed punch out of turn is refused as any punch is.
    @Test func aTimedPunchOutOfTurnIsRefused() throws {
        var ring = Ring()
        let (fight, _, b) = try ring.startFight()
        #expect(ring.refusal(.timedPunch(fight, by: b, after: ring.seen(fight), kind: .jab, stoppedAfterMilliseconds: 500)) == .waitYourTurn(fight))
    }

    /// The defender's guard halves the kinds it matches, and the event says so; the attacker's
    /// other kind goes through whole. Changing the guard takes effect on the next punch.
    @Test func theDefendersGuardHalvesTheMatchingKind() throws {
        var ring = Ring()
        let (fight, a, b) = try ring.startFight()
        #expect(try ring.run(.raiseGuard(fight, by: b, .high)).isEmpty)
        #expect(try ring.fight(fight).guards == Both(nil, .high))

        let hook = try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .hook, damage: 40))
        guard case .punched(_, _, 20, .high, 80, _, _) = hook.fightChanges.first else {
            Issue.record("the hook was not halved by the high guard: \(hook)")
            return
        }
        try ring.run(.punch(fight, by: b, after: ring.seen(fight), kind: .jab, damage: 10))
        try ring.run(.raiseGuard(fight, by: b, .low))
        let jab = try ring.run(.punch(fight, by: a, after: ring.seen(fight), kind: .jab, damage: 30))
        guard case .punched(_, _, 30, nil, 50, _, _) = jab.fightChanges.first else {
            Issue.record("the jab should go through a low guard whole: \(jab)")
            return
        }
        #expect(try ring.fight(fight).stamina == Both(90, 50))
    }

    /// A guard is taken up in either fighter's turn, but only in a fight under way, by one of its
    /// fighters; it changes the fight and makes no event, so the attacker is never told.
    @Test func aGuardIsForAFightUnderWayOnly() throws {
        var ring = Ring()
        let a = try ring.register("alice"), b = try ring.register("bob"), c = try ring.register("carol")
        let fight = ring.state.nextFightID
        try ring.run(.challenge(a, opponent: b))
        #expect(ring.refusal(.raiseGuard(fight, by: b, .high)) == .fightNotActive(fight))
        try ring.run(.accept(fight, by: b))
        #expect(ring.refusal(.raiseGuard(fight, by: c, .high)) == .notInFight(c, fight))
        #expect(ring.refusal(.raiseGuard(FightID(99), by: a, .high)) == .unknownFight(FightID(99)))
        // In the attacker's own turn, and in the defender's.
        #expect(try ring.run(.raiseGuard(fight, by: a, .low)).isEmpty)
        #expect(try ring.run(.raiseGuard(fight, by: b, .low)).isEmpty)
        try ring.run(.forfeit(fight, by: a))
        #expect(ring.refusal(.raiseGuard(fight, by: b, .high)) == .fightNotActive(fight))
    }

    /// A fight's guards survive being saved and read back; a fight saved before guards has none.
    @Test func guardsAreKeptWithTheFight() throws {
        var ring = Ring()
        let (fight, a, _) = try ring.startFight()
        try ring.run(.raiseGuard(fight, by: a, .high))
        let saved = try ring.fight(fight)
        let data = try JSONEncoder().encode(saved)
        #expect(try JSONDecoder().decode(Fight.self, from: data) == saved)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object.removeValue(forKey: "guards") != nil)
        let old = try JSONDecoder().decode(Fight.self, from: try JSONSerialization.data(withJSONObject: object))
        #expect(old.guards == Both(nil, nil) && old.stamina == saved.stamina)
    }
}

/// The rules as a game between equals: who throws first must not decide it.
@Suite struct FairnessTests {
    /// Two players of the same skill (each stop off the kind's sweet spot by a normal error of
    /// 0.1 s, kinds and guards picked at random), 2,000 fights: the one who throws first wins as
    /// often as the other, within three standard errors of the difference (√2,000 ≈ 45 fights, so
    /// 134: 6.7 points), because a knockout by the one who has thrown more is answered, and few
    /// are drawn, because a double knockout goes to the blow that went further. Measured on these
    /// players with the meter of MeterBalanceTests (jab 44, hook 47, uppercut 51): 953 to 1,019
    /// with 28 draws; over 10,000 fights, 4,889 to 4,986 with 125 (seed 28) and 4,911 to 4,994
    /// with 95 (seed 7). With the earlier meter (jab 40, hook 48, uppercut 56): 999 to 986 with 15
    /// draws; without the answer, 1,307 to 693; with the answer but every double knockout a draw,
    /// 708 to 688 with 604 draws: the first bound keeps the former out, the bound on draws the latter.
    @Test func throwingFirstDoesNotDecideAnEvenFight() throws {
        var random = SeededRandom(seed: 28)
        var ring = Ring()
        let meter = ring.referee.rules.meter
        var wins = (first: 0, second: 0, draws: 0)
        let fights = 2000
        for _ in 0..<fights {
            let (fight, a, b) = try ring.startFight(named: "\(ring.state.nextFighterID.rawValue)")
            for fighter in [a, b] { try ring.run(.raiseGuard(fight, by: fighter, Guard.allCases.randomElement(using: &random)!)) }
            while case .active(let turn, _) = try ring.fight(fight).phase {
                let thrower = turn == .challenger ? a : b
                try ring.run(.raiseGuard(fight, by: thrower, Guard.allCases.randomElement(using: &random)!))
                let kind = PunchType.allCases.randomElement(using: &random)!
                let spot = meter.spot(for: kind).level * Double(meter.sweepMilliseconds) / 2
                let stop = max(0, spot + 100 * random.normal())
                try ring.run(.timedPunch(fight, by: thrower, after: ring.seen(fight), kind: kind, stoppedAfterMilliseconds: Int64(stop)))
            }
            guard case .finished(.decided(let result), _) = try ring.fight(fight).phase else {
                throw Refusal.fightNotActive(fight)
            }
            switch result.winner {
            case a: wins.first += 1
            case b: wins.second += 1
            default: wins.draws += 1
            }
        }
        #expect(Double(abs(wins.first - wins.second)) < 3 * Double(fights).squareRoot(), "\(wins)")
        #expect(wins.draws < fights / 50, "\(wins)")
    }
}

extension SeededRandom {
    /// A standard normal number (Box–Muller).
    mutating func normal() -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &self), v = Double.random(in: 0..<1, using: &self)
        return (-2 * Foundation.log(u)).squareRoot() * Foundation.cos(2 * Double.pi * v)
    }
}
