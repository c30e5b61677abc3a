import Foundation
import PunchSimulator
import Testing

@testable import PunchKit

/// A profile learned from a few punches types a player's punches by them. The simulator's punches
/// are not real ones (`RealRecordingsTests` judges how well), so these assert what must hold of
/// any player: the profile, not the rule, decides; it changes kinds, never which punches are found.
@Suite struct PunchProfileTests {
    /// One simulated player: a fixed grip and hand, with a gyroscope, throwing every kind.
    func session(seed: UInt64, gyroscope: Bool = true, punches: Int = 30) -> SessionPlan {
        var sensor = SensorSettings()
        sensor.range = 64
        sensor.gyroscope = gyroscope
        return SessionPlan(
            seed: seed, punchCount: punches, kinds: PunchKind.allCases, sensor: sensor,
            grip: Rotation(axis: Vector3(1, 0.3, 0).normalized, angle: 0.8))
    }

    func run(_ plan: SessionPlan, profile: PunchProfile? = nil) -> [Punch] {
        var configuration = DetectorConfiguration()
        configuration.profile = profile
        var detector = PunchDetector(configuration: configuration)
        var punches: [Punch] = []
        Array(plan.samples).withUnsafeBufferPointer { detector.process($0) { punches.append($0) } }
        if let punch = detector.finish() { punches.append(punch) }
        return punches
    }

    /// Each label's punch as the default rule found it, with the label's kind (or `relabel`'s).
    func taught(
        _ plan: SessionPlan, perKind: Int = PunchProfile.punchesPerKind, kinds: [PunchKind] = PunchKind.allCases,
        relabel: (PunchKind) -> PunchKind = { $0 }
    ) -> [(kind: PunchKind, punch: Punch)] {
        let found = run(plan)
        // The simulator's labels are on its samples' clock.
        let origin = 0.0
        var taken: [PunchKind: Int] = [:]
        var result: [(kind: PunchKind, punch: Punch)] = []
        for label in plan.labels where kinds.contains(label.kind) && taken[label.kind, default: 0] < perKind {
            guard let punch = PunchProfile.punch(for: label, among: found, origin: origin) else { continue }
            taken[label.kind, default: 0] += 1
            result.append((relabel(label.kind), punch))
        }
        return result
    }

    /// The kinds of a session's punches, by the labels they fall in.
    func kindsByLabel(_ punches: [Punch], _ plan: SessionPlan) -> [(truth: PunchKind, found: PunchKind)] {
        let origin = 0.0
        return plan.labels.compactMap { label in
            PunchProfile.punch(for: label, among: punches, origin: origin).map { (label.kind, $0.kind) }
        }
    }

    @Test(arguments: [true, false])
    func theProfileDecidesTheKindNotTheRule(gyroscope: Bool) throws {
        // Taught with jabs and uppercuts swapped, the profile must call this player's jabs
        // uppercuts and their uppercuts jabs: only the profile could.
        let swap: (PunchKind) -> PunchKind = { $0 == .jab ? .uppercut : $0 == .uppercut ? .jab : $0 }
        let teaching = taught(session(seed: 11, gyroscope: gyroscope), kinds: [.jab, .uppercut], relabel: swap)
        #expect(teaching.count == 2 * PunchProfile.punchesPerKind)
        let profile = try PunchProfile.learn(from: teaching, hand: .right)
        #expect(profile.gyroscope == gyroscope)

        // Most of them, where the rule swaps few: three punches of a kind are a small sample
        // of a simulated player, whose every punch is drawn afresh.
        let later = session(seed: 12, gyroscope: gyroscope)
        let pairs = kindsByLabel(run(later, profile: profile), later).filter { $0.truth != .hook }
        let byRule = kindsByLabel(run(later), later).filter { $0.truth != .hook }
        #expect(pairs.count >= 10)
        #expect(2 * pairs.count { $0.found == swap($0.truth) } > pairs.count, "\(pairs)")
        #expect(2 * byRule.count { $0.found == swap($0.truth) } < byRule.count, "\(byRule)")
    }

    @Test func aProfileChangesKindsNeverWhichPunchesAreFound() throws {
        let plan = session(seed: 21)
        let profile = try PunchProfile.learn(from: taught(session(seed: 22)), hand: .right)
        let plain = run(plan)
        let typed = run(plan, profile: profile)
        #expect(plain.count >= 20)
        #expect(typed.map(\.time) == plain.map(\.time))
        #expect(typed.map(\.peakG) == plain.map(\.peakG))
        #expect(typed.allSatisfy { ($0.confidence ?? -1) > 0 && ($0.confidence ?? 2) <= 1 })
        #expect(plain.allSatisfy { $0.confidence == nil })
    }

    @Test func damageIsMeasuredAgainstThePlayersUsualPunch() throws {
        // The same punches from a player whose usual punch peaks at half the usual peak (a phone
        // strapped to the wrist reads less) do twice the damage, up to the cap.
        let plan = session(seed: 25)
        var profile = try PunchProfile.learn(from: taught(session(seed: 26)), hand: .right)
        profile.typicalPeakG = PunchProfile.usualPeakG
        let usual = run(plan, profile: profile)
        profile.typicalPeakG = PunchProfile.usualPeakG / 2
        let soft = run(plan, profile: profile)
        #expect(usual.allSatisfy { $0.damage == min(100, max(1, Int(($0.peakG * 4).rounded()))) })
        #expect(usual.count >= 20)
        for (a, b) in zip(usual, soft) {
            #expect(b.damage == min(100, Int((a.peakG * 2 * 4).rounded())), "\(a.peakG) g")
        }
    }

    @Test func aKindTheProfileWasNotTaughtFallsBackToTheRule() throws {
        let plan = session(seed: 31)
        let profile = try PunchProfile.learn(from: taught(session(seed: 32), kinds: [.jab, .uppercut]), hand: .right)
        #expect(profile.kinds.map(\.kind) == [.jab, .uppercut])
        let plain = run(plan)
        let typed = run(plan, profile: profile)
        #expect(plain.contains { $0.kind == .hook })
        for (rule, learned) in zip(plain, typed) where rule.kind == .hook {
            #expect(learned.kind == .hook)
            #expect(learned.confidence == nil)
        }
        #expect(!typed.contains { $0.kind == .hook && $0.confidence != nil })
    }

    @Test func eachKindNeedsThreePunchesAndThereMustBeSome() throws {
        let teaching = taught(session(seed: 41))
        let twoHooks = teaching.filter { $0.kind != .hook } + teaching.filter { $0.kind == .hook }.prefix(2)
        #expect(throws: ProfileError.tooFew(kind: .hook, punches: 2, needed: 3)) {
            try PunchProfile.learn(from: twoHooks, hand: .left)
        }
        #expect(throws: ProfileError.noPunches) { try PunchProfile.learn(from: [], hand: .left) }
        let profile = try PunchProfile.learn(from: teaching, hand: .left)
        #expect(profile.hand == .left)
        #expect(profile.kinds.allSatisfy { $0.punches == 3 && (0...3).contains($0.recognised) })
        let peaks = teaching.map(\.punch.peakG).sorted()
        #expect(profile.typicalPeakG == peaks[peaks.count / 2])
    }

    @Test func oneTeachingPunchWithoutTheGyroscopesFeaturesLeavesThemLearned() throws {
        // As the first punch of a recording can be, before up is known.
        var teaching = taught(session(seed: 51))
        teaching[0].punch.features.turnAxisFromVertical = nil
        teaching[0].punch.features.sideways = nil
        let profile = try PunchProfile.learn(from: teaching, hand: .right)
        #expect(profile.gyroscope)
        let first = try #require(profile.kinds.first { $0.kind == teaching[0].kind })
        let others = teaching.dropFirst().filter { $0.kind == teaching[0].kind }
        // Its kind's mean of a gyroscope feature is the mean over the punches that have it.
        let sideways = others.compactMap(\.punch.features.sideways).reduce(0, +) / Double(others.count)
        #expect(abs((first.mean["sideways"] ?? -1) - sideways) < 1e-12)
    }

    @Test func aLabelFindsTheStrongestPunchWithinItsSpanAndSlack() {
        func punch(_ time: Double, _ peak: Double) -> Punch {
            Punch(time: time, kind: .jab, damage: 1, peakG: peak, speed: 0, rise: 0, clipped: false, decidedAt: time)
        }
        let punches = [punch(10.5, 3), punch(11.2, 5), punch(11.9, 4), punch(13, 9)]
        let label = PunchLabel(start: 1, end: 1.5, kind: .jab)
        #expect(PunchProfile.punch(for: label, among: punches, origin: 10)?.time == 11.2)
        #expect(PunchProfile.punch(for: PunchLabel(start: 1.85, end: 2.6, kind: .jab), among: punches, origin: 10)?.time == 11.9)
        #expect(PunchProfile.punch(for: PunchLabel(start: 4, end: 5, kind: .jab), among: punches, origin: 10) == nil)
    }

    @Test(arguments: [0.0, -0.001, -0.5, -1, -2.3, -10, -50, -300, -699])
    func theExponentialIsExp(x: Double) {
        #expect(abs(exponential(x) - Foundation.exp(x)) <= 1e-12 * Foundation.exp(x) + 1e-300)
    }
}
