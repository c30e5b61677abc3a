import Foundation
import Testing

@testable import MotionCommands

/// The CLI's own fixed-decimal formatting, checked against Foundation's `%.Nf`, which it replaces
/// for speed and must match character for character.
@Suite struct FixedDecimalTests {
    private static func printf(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    @Test(arguments: [
        // Exact ties in binary, which round half to even: 0.125 → 0.12, 0.375 → 0.38, 2.5 → 2.
        0.125, 0.375, 0.625, 2.5, 3.5, -0.125, -2.5, 1.0625, 1e15 + 0.5,
        // Near ties that are not ties in binary: 1.005 is a little below, 1.015 a little above.
        1.005, 1.015, 2.675, 0.045, 1234.5678, 0.0005, 0.00049999999999999990,
        // Zero and the sign: -0.0 and tiny negatives keep their minus sign.
        0, -0.0, -0.0001, -0.4, 0.4, 1e-300, -1e-300, 5e-324,
        // Large: up to where the value no longer scales into 52 bits, and past it.
        4503599627370495.5, 4503599627370496, 9.007199254740993e15, 1e20, -1e300,
        // Not finite.
        .infinity, -.infinity, .nan,
    ])
    func matchesPrintfOnEdgeCases(_ value: Double) {
        for decimals in 0...6 {
            #expect(formatted(value, decimals: decimals) == Self.printf(value, decimals), "\(value) to \(decimals)")
        }
    }

    @Test(arguments: [0, 1, 2, 3, 4, 9, 15, 16, 20])
    func matchesPrintfOnRandomValues(decimals: Int) {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            // Magnitudes from 1e-6 to 1e12, and halfway cases made on purpose: k + 1/2 in the
            // last place asked for, which in binary is near (not at) a tie.
            let magnitude = Double.random(in: -6...12, using: &random)
            var value = Double.random(in: -1...1, using: &random) * pow(10, magnitude)
            if Bool.random(using: &random) {
                let step = pow(10, -Double(decimals))
                value = ((value / step).rounded(.down) + 0.5) * step
            }
            #expect(formatted(value, decimals: decimals) == Self.printf(value, decimals), "\(value) to \(decimals)")
        }
    }

    @Test func matchesPrintfOnEveryBinaryTieOfAFewBits() {
        // Every multiple of 1/64 up to 64 in both signs: all exactly representable, many exact
        // ties at one to five decimals.
        for numerator in -4096...4096 {
            let value = Double(numerator) / 64
            for decimals in 0...5 {
                #expect(formatted(value, decimals: decimals) == Self.printf(value, decimals), "\(value) to \(decimals)")
            }
        }
    }
}
