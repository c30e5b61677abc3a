#if canImport(Glibc)
    import Glibc  // exp for the logistic
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Odds

/// The chance that one fighter beats another, from records and builds.
///
/// The win probability of A against B is the logistic `1 / (1 + e^(−s))` of the score
///
///     s = 4 · (rate(A) − rate(B)) + 0.05 · (reach(A) − reach(B)) + 0.02 · (weight(A) − weight(B))
///
/// where `rate(F) = (wins + draws/2 + 1) / (fights + 2)` is the win rate with one imagined win
/// and one imagined loss (Laplace's rule: a newcomer is 0.5, not 0 or undefined), reach is in
/// centimetres and weight in kilograms. A difference the fighters did not both share counts as 0.
/// So equal fighters are even (0.5); a 10 cm reach advantage alone gives e^0.5/(1 + e^0.5) ≈ 0.62;
/// a 3–1 record against a 1–3 one alone gives s = 4/3, p ≈ 0.79. The two sides always sum to 1.
public struct Odds: Hashable, Sendable {
    /// The probability that the first fighter (the viewer) wins, 0…1.
    public var viewerWins: Double

    /// The probability that the opponent wins.
    public var opponentWins: Double { 1 - viewerWins }

    /// Decimal (European) odds on the viewer: the payout per unit staked, `1 / p`.
    public var viewerDecimalOdds: Double { 1 / viewerWins }

    /// Odds of `viewer` against `opponent`, by the formula above.
    public init(_ viewer: Fighter, against opponent: Fighter) {
        let score =
            4 * (Self.rate(viewer.record) - Self.rate(opponent.record))
            + 0.05 * Self.difference(viewer.profile.reachCm, opponent.profile.reachCm)
            + 0.02 * Self.difference(viewer.profile.weightKg, opponent.profile.weightKg)
        viewerWins = 1 / (1 + exp(-score))
    }

    /// The smoothed win rate.
    static func rate(_ record: Record) -> Double {
        (Double(record.wins) + Double(record.draws) / 2 + 1) / Double(record.fights + 2)
    }

    private static func difference(_ a: Int?, _ b: Int?) -> Double {
        guard let a, let b else { return 0 }
        return Double(a - b)
    }
}
