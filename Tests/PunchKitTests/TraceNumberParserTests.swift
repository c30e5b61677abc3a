import Testing

@testable import PunchKit

/// Parses `text` with the trace number parser.
private func parse(_ text: String, decimalComma: Bool = false) -> Double? {
    Array(text.utf8).withUnsafeBytes { NumberParser.parse($0, acceptsDecimalComma: decimalComma) }
}

/// Whether the parser and `Double(String)` agree exactly: the same bits, both NaN, or both nil.
private func agreesWithStandardLibrary(_ text: String) -> Bool {
    switch (parse(text), Double(text)) {
    case (nil, nil): true
    case (let mine?, let theirs?): mine.isNaN ? theirs.isNaN : mine.bitPattern == theirs.bitPattern
    default: false
    }
}

@Suite struct TraceNumberParserTests {
    // MARK: - Agreement with the standard library

    @Test(arguments: [
        // Plain forms, signs and the decimal point at either end.
        "0", "-0", "+0", "0.0", "-0.0", "1", "-1", "+1", "12", ".5", "5.", "-.5", "+5.", "-.5e-3", "00012",
        "0012.50", "000000000000000000000000001.5", "0.000000000000000000000000000001",
        // Exponents of every shape.
        "1e5", "1E5", "1e+5", "1e-5", "1e05", "1e-0", "2.5e-10", "9.364549000E-3", "-1.533477783E-1",
        "1e22", "1e23", "1e-22", "1e-23", "7.1e22", "9007199254740992e22", "123e-20",
        // The limits of a double: overflow to infinity, underflow to zero, subnormals.
        "1e400", "-1e400", "1e-400", "-1e-400", "4.9e-324", "2.4e-324", "2.5e-324",
        "2.2250738585072014e-308", "2.2250738585072011e-308", "1.7976931348623157e308",
        "1.7976931348623158e308", "1.7976931348623159e308", "1e99999999999999999999", "1e-99999999999999999999",
        "0e99999999",
        // Mantissas past 2^53 and past 19 digits, where the fast path must step aside.
        "9007199254740993", "9007199254740995", "18446744073709551615", "18446744073709551616",
        "1234567890123456789", "12345678901234567890", "12345678901234567890123", "9999999999999999999.5",
        "123456789012345678901234567890e-30", "0.1000000000000000055511151231257827",
        "0.30000000000000004", "2.2204460492503131e-16", "1.00000000000000011102230246251565404236316680908203125",
        "1698765432123456789", "1698765432.123456789",
        // Words for values that are not finite.
        "nan", "NaN", "-nan", "inf", "-inf", "+Inf", "infinity", "-Infinity", "INFINITY",
        // Not numbers at all.
        "", "+", "-", ".", "e5", "-e5", "1e", "1e+", "1e-", "1.2.3", "--1", "+-1", "1-", " 1", "1 ", "1,5",
        "1_000", "abc", "infinit", "nana", "in", "1e5.5", "..5", "5..", "1e5e5",
    ])
    func agreesWithDoubleParsingEdgeCases(_ text: String) {
        #expect(agreesWithStandardLibrary(text), "\(text): \(String(describing: parse(text)))")
    }

    @Test func agreesWithDoubleParsingOnRandomDoublesPrintedShortest() {
        var random = TraceTestGenerator(seed: 42)
        for _ in 0..<20_000 {
            let value = Double(bitPattern: random.next())
            guard value.isFinite else { continue }
            let text = value.description
            #expect(agreesWithStandardLibrary(text), "\(text)")
        }
    }

    @Test func agreesWithDoubleParsingOnRandomDigitStrings() {
        var random = TraceTestGenerator(seed: 7)
        for _ in 0..<20_000 {
            // Up to 25 digits, a point anywhere (or none), and an exponent that is sometimes large.
            let digits = String(
                (0..<Int.random(in: 1...25, using: &random)).map { _ in
                    Character(String(Int.random(in: 0...9, using: &random)))
                })
            let point = Int.random(in: 0...digits.count, using: &random)
            var text = Bool.random(using: &random) ? "-" : ""
            text +=
                digits.prefix(point) + (point < digits.count || Bool.random(using: &random) ? "." : "")
                + digits.dropFirst(point)
            if Bool.random(using: &random) {
                text += "e\(Int.random(in: -330...330, using: &random))"
            }
            #expect(agreesWithStandardLibrary(text), "\(text)")
        }
    }

    @Test func agreesWithDoubleParsingOnLongMantissasAcrossTheFastTable() {
        // 15 to 19 significant digits with decimal exponents across and just past the table
        // the Eisel–Lemire path uses: what a double printed in full looks like.
        var random = TraceTestGenerator(seed: 11)
        for _ in 0..<50_000 {
            let digits = Int.random(in: 15...19, using: &random)
            var mantissa = String(UInt64.random(in: 1...9, using: &random))
            for _ in 1..<digits { mantissa += String(UInt64.random(in: 0...9, using: &random)) }
            let text = "\(mantissa)e\(Int.random(in: -90...90, using: &random))"
            #expect(agreesWithStandardLibrary(text), "\(text)")
        }
    }

    @Test func roundsExactHalfwayCasesToEven() {
        // Numbers exactly halfway between two doubles: an odd 54-bit integer n, scaled by a power
        // of two, written with up to 19 digits so that they cannot take Clinger's path.
        var random = TraceTestGenerator(seed: 5)
        var cases: [String] = []
        for q in 1...22 {
            // n = w · 5^q with w odd: n · 2^q = w · 10^q.
            var power: UInt64 = 1
            for _ in 0..<q { power *= 5 }
            let lower = ((1 << 53) + power - 1) / power
            let upper = (1 << 54) / power
            guard lower < upper else { continue }
            for _ in 0..<20 {
                let w = UInt64.random(in: lower..<upper, using: &random) | 1
                guard w * power < 1 << 54 else { continue }
                var written = String(w)
                var exponent = q
                while written.count < 19 {
                    written += "0"
                    exponent -= 1
                }
                cases += ["\(written)e\(exponent)", "\(w + 1)e\(q)", "\(w - 1)e\(q)"]
            }
        }
        for k in 1...4 {
            // w = n · 5^k: w · 10^-k = n / 2^k, halfway between doubles for odd 54-bit n.
            var power: UInt64 = 1
            for _ in 0..<k { power *= 5 }
            for _ in 0..<50 {
                let n = UInt64.random(in: (1 << 53)..<(1 << 54), using: &random) | 1
                cases += ["\(n * power)e-\(k)", "\(n * power + 1)e-\(k)", "\(n * power - 1)e-\(k)"]
            }
        }
        #expect(cases.count > 1000)
        for text in cases {
            #expect(agreesWithStandardLibrary(text), "\(text)")
        }
    }

    // MARK: - Decimal comma

    @Test func readsADecimalCommaOnlyWhenAsked() {
        #expect(parse("9,364549000E-3", decimalComma: true) == 9.364549000e-3)
        #expect(parse("-0,5", decimalComma: true) == -0.5)
        #expect(parse("9,364549000E-3") == nil)
        // A comma in a number too long for the fast path still reads as a decimal mark.
        #expect(parse("1,2345678901234567890123", decimalComma: true) == Double("1.2345678901234567890123"))
        #expect(parse("1,2,3", decimalComma: true) == nil)
        #expect(parse("1.2,3", decimalComma: true) == nil)
    }

    // MARK: - What is not a number

    @Test(arguments: ["/", ":", " ", "a", "é", "\u{0}", "\u{7F}"])
    func rejectsAnyOddByteInsideALongRunOfDigits(_ odd: String) {
        // The digits are read eight and four at a time: a byte just outside '0'...'9' in any
        // place of the word must still stop the number, before the point or after it.
        for digits in [Array("1234567890123456"), Array("1234567"), Array("12345")] {
            for position in digits.indices {
                var text = digits
                text[position] = Character(odd)
                for written in ["0." + String(text), String(text) + ".5"] {
                    #expect(parse(written) == nil, "\(written)")
                }
            }
        }
    }

    @Test(arguments: ["0x10", "0x1p3"])
    func rejectsHexadecimalFloats(_ text: String) {
        // `Double(String)` reads these; no sensor app writes them, so a trace field like this is an error.
        #expect(parse(text) == nil)
    }

    @Test(arguments: ["nan", "inf", "-Infinity", "1e400"])
    func spellingsOfNonFiniteValuesParseAsNonFinite(_ text: String) {
        let value = parse(text)
        #expect(value != nil)
        #expect(value?.isFinite == false)
    }
}
