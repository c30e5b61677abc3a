import FightEngine
import Foundation
import Testing

/// The power meter's balance between the kinds, for the players it is made for: a person who aims
/// at a kind's sweet spot and misses by a normal error of 50 to 100 ms, against a defender whose
/// guard they can only guess (high or low, as likely). Then no kind's expected damage may stand
/// above the others': the jab and the hook are halved by the same guard, so one that did more
/// would leave the other never worth throwing, and the uppercut is the other guess.
///
/// The expected damages come from the meter itself (`PowerMeter.damage`, `Guard.damage`),
/// integrated over the normal error, so the numbers are exact for the meter, not sampled.
/// `swift test --filter MeterBalanceTests` prints them.
@Suite struct MeterBalanceTests {
    /// The expected damage of `kind` aimed at its sweet spot by a player whose stop is off by a
    /// normal error of `sigma` milliseconds (a stop before the wind-up is at 0), through a guard
    /// that is high or low as likely.
    static func expectedDamage(of kind: PunchType, sigma: Double, meter: PowerMeter = PowerMeter()) -> Double {
        let aim = meter.spot(for: kind).level * Double(meter.sweepMilliseconds) / 2
        let steps = 2000
        var total = 0.0, weights = 0.0
        for step in 0...steps {
            let z = -5 + 10 * Double(step) / Double(steps)
            let weight = exp(-z * z / 2)
            let thrown = meter.damage(of: kind, stoppedAfter: Int64(max(0, aim + sigma * z)))
            let landed = Guard.allCases.map { Double($0.damage(of: kind, thrown)) }.reduce(0, +)
            total += weight * landed / Double(Guard.allCases.count)
            weights += weight
        }
        return total / weights
    }

    /// How far the most damaging kind's expected damage stands above the least's, as a fraction.
    static func spread(sigma: Double) -> Double {
        let damages = PunchType.allCases.map { expectedDamage(of: $0, sigma: sigma) }
        return damages.max()! / damages.min()! - 1
    }

    static let sigmas: [Double] = [50, 60, 70, 80, 90, 100]

    /// For every error from 50 to 100 ms, the three kinds' expected damages are within 7 % of
    /// each other once the guard is guessed.
    @Test(arguments: sigmas)
    func noKindDominatesForANormalPlayer(sigma: Double) {
        let damages = PunchType.allCases.map { ($0, Self.expectedDamage(of: $0, sigma: sigma)) }
        print(
            "meter balance, stops off by \(Int(sigma)) ms, guard guessed: "
                + damages.map { "\($0.0) \(String(format: "%.1f", $0.1))" }.joined(separator: ", "))
        #expect(Self.spread(sigma: sigma) <= 0.07, "\(damages)")
    }

    /// The kinds still trade safety for reach: the uppercut pays best to the sharpest of these
    /// players and worst to the least sharp, the jab the other way round; so which kind to throw
    /// depends on how well one times the meter, as well as on the guard.
    @Test func theUppercutPaysTheSharpAndTheJabTheRest() {
        let (sharp, loose) = (Self.sigmas.first!, Self.sigmas.last!)
        let at = { (sigma: Double) in PunchType.allCases.map { ($0, Self.expectedDamage(of: $0, sigma: sigma)) } }
        #expect(at(sharp).max { $0.1 < $1.1 }?.0 == .uppercut, "\(at(sharp))")
        #expect(at(loose).min { $0.1 < $1.1 }?.0 == .uppercut, "\(at(loose))")
        let jab = { (sigma: Double) in Self.expectedDamage(of: .jab, sigma: sigma) }
        let uppercut = { (sigma: Double) in Self.expectedDamage(of: .uppercut, sigma: sigma) }
        #expect(jab(sharp) - jab(loose) < uppercut(sharp) - uppercut(loose), "the jab forgives more")
    }
}
