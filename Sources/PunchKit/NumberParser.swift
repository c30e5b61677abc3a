// MARK: - NumberParser

/// Reads decimal numbers straight from UTF-8 bytes, so a trace's rows never become `String`s.
///
/// The syntax is the decimal one `Double(String)` accepts: an optional sign, digits with at most
/// one decimal mark (`5.`, `.5` and `5` are all numbers), an optional exponent (`e` or `E`, an
/// optional sign, at least one digit), and the words `nan`, `inf` and `infinity` in any case.
/// Hexadecimal floats and surrounding spaces are not accepted. The result is the correctly
/// rounded double, as `Double(String)` gives it.
enum NumberParser {
    /// The number `text` spells, or nil when it is not a number.
    ///
    /// - Parameter acceptsDecimalComma: whether `,` is a decimal mark as well as `.` (files whose
    ///   fields are separated by tabs or semicolons, as phyphox writes them in some locales).
    static func parse(_ text: UnsafeRawBufferPointer, acceptsDecimalComma: Bool = false) -> Double? {
        let count = text.count
        var index = 0
        var isNegative = false
        if index < count && (text[index] == TraceByte.minus || text[index] == TraceByte.plus) {
            isNegative = text[index] == TraceByte.minus
            index += 1
        }

        // Up to 19 significant digits fit a UInt64; later ones only move the decimal exponent,
        // and a non-zero one among them means the fast path cannot be exact.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var sawDigit = false
        var droppedNonZeroDigit = false
        while index < count, case let digit = text[index] &- TraceByte.digitZero, digit <= 9 {
            sawDigit = true
            if significantDigits < 19 {
                if mantissa != 0 || digit != 0 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significantDigits += 1
                }
            } else {
                exponent += 1
                droppedNonZeroDigit = droppedNonZeroDigit || digit != 0
            }
            index += 1
        }
        let integerEnd = index
        if index < count && (text[index] == TraceByte.period || (acceptsDecimalComma && text[index] == TraceByte.comma))
        {
            index += 1
            while index < count, case let digit = text[index] &- TraceByte.digitZero, digit <= 9 {
                sawDigit = true
                if significantDigits < 19 {
                    if mantissa != 0 || digit != 0 {
                        mantissa = mantissa &* 10 &+ UInt64(digit)
                        significantDigits += 1
                    }
                    exponent -= 1
                } else {
                    droppedNonZeroDigit = droppedNonZeroDigit || digit != 0
                }
                index += 1
            }
        }
        guard sawDigit else {
            guard integerEnd == index else { return nil }
            return nonFiniteWord(text, from: index, isNegative: isNegative)
        }

        if index < count && (text[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            var exponentIsNegative = false
            if index < count && (text[index] == TraceByte.minus || text[index] == TraceByte.plus) {
                exponentIsNegative = text[index] == TraceByte.minus
                index += 1
            }
            var written = 0
            var sawExponentDigit = false
            while index < count, case let digit = text[index] &- TraceByte.digitZero, digit <= 9 {
                sawExponentDigit = true
                // Past any double's range either way; the fallback reads the full text.
                if written < 100_000 { written = written * 10 + Int(digit) }
                index += 1
            }
            guard sawExponentDigit else { return nil }
            exponent += exponentIsNegative ? -written : written
        }
        guard index == count else { return nil }

        if mantissa == 0 { return isNegative ? -0.0 : 0.0 }
        if !droppedNonZeroDigit, let value = exactValue(mantissa, timesTenToThe: exponent) {
            return isNegative ? -value : value
        }
        return fallback(text)
    }

    /// Clinger's fast path: a mantissa and a power of ten that are both exact doubles give the
    /// correctly rounded result in one multiplication or division.
    private static func exactValue(_ mantissa: UInt64, timesTenToThe exponent: Int) -> Double? {
        // Converting an integer rounds correctly on its own, whatever its size.
        if exponent == 0 { return Double(mantissa) }
        guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let power = powersOfTen[exponent < 0 ? -exponent : exponent]
        return exponent < 0 ? Double(mantissa) / power : Double(mantissa) * power
    }

    /// 10⁰ … 10²², every one exact in a double.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The rare number the fast path cannot round exactly (more than 19 significant digits, or
    /// a large power of ten), already checked to be well formed: the standard library rounds it.
    private static func fallback(_ text: UnsafeRawBufferPointer) -> Double? {
        let normalized = String(
            decoding: text.lazy.map { $0 == TraceByte.comma ? TraceByte.period : $0 }, as: UTF8.self)
        return Double(normalized)
    }

    /// `nan`, `inf` or `infinity` in any case, which `Double(String)` also reads.
    private static func nonFiniteWord(
        _ text: UnsafeRawBufferPointer, from start: Int, isNegative: Bool
    ) -> Double? {
        let word = text[start...]
        if word.elementsEqual(caseInsensitive: "nan") { return isNegative ? -Double.nan : .nan }
        if word.elementsEqual(caseInsensitive: "inf") || word.elementsEqual(caseInsensitive: "infinity") {
            return isNegative ? -.infinity : .infinity
        }
        return nil
    }
}

// MARK: - Bytes

/// The bytes that structure a trace file.
enum TraceByte {
    static let digitZero = UInt8(ascii: "0")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let period = UInt8(ascii: ".")
    static let comma = UInt8(ascii: ",")
    static let semicolon = UInt8(ascii: ";")
    static let tab = UInt8(ascii: "\t")
    static let space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\"")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
}

extension Collection<UInt8> {
    /// Whether the bytes spell `word` (ASCII letters), ignoring case.
    fileprivate func elementsEqual(caseInsensitive word: StaticString) -> Bool {
        guard count == word.utf8CodeUnitCount else { return false }
        var letter = word.utf8Start
        for byte in self {
            guard byte | 0x20 == letter.pointee | 0x20 else { return false }
            letter += 1
        }
        return true
    }
}
