import Foundation

// MARK: - SeededGenerator

/// A small, fast, seedable random number generator (SplitMix64), so a simulated trace is the
/// same on every machine for the same seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number drawn uniformly from `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }

    /// A number from the normal distribution (Box–Muller).
    public mutating func gaussian(mean: Double = 0, deviation: Double = 1) -> Double {
        let u = Double.random(in: Double.ulpOfOne...1, using: &self)
        let v = Double.random(in: 0...1, using: &self)
        return mean + deviation * (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
}
