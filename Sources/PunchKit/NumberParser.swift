// MARK: - NumberParser

/// Reads decimal numbers straight from UTF-8 bytes, so a trace's rows never become `String`s.
///
/// The syntax is the decimal one `Double(String)` accepts: an optional sign, digits with at most
/// one decimal mark (`5.`, `.5` and `5` are all numbers), an optional exponent (`e` or `E`, an
/// optional sign, at least one digit), and the words `nan`, `inf` and `infinity` in any case.
/// Hexadecimal floats and surrounding spaces are not accepted. The result is the correctly
/// rounded double, as `Double(String)` gives it: by Clinger's exact fast path where it applies,
/// else by Eisel–Lemire for mantissas of up to 19 digits, else (more digits, far exponents,
/// subnormals) by the standard library on the number's text.
enum NumberParser {
    /// The number `text` spells, or nil when it is not a number.
    ///
    /// - Parameter acceptsDecimalComma: whether `,` is a decimal mark as well as `.` (files whose
    ///   fields are separated by tabs or semicolons, as phyphox writes them in some locales).
    static func parse(_ text: UnsafeRawBufferPointer, acceptsDecimalComma: Bool = false) -> Double? {
        let (value, end) = parsePrefix(text, from: 0, acceptsDecimalComma: acceptsDecimalComma)
        return end == text.count ? value : nil
    }

    /// The number that starts at `start`, and the index of the first byte after it: where a
    /// field's separator should be. The value is nil when no number starts there.
    static func parsePrefix(
        _ text: UnsafeRawBufferPointer, from start: Int, acceptsDecimalComma: Bool
    ) -> (value: Double?, end: Int) {
        let count = text.count
        var index = start
        // Without branches: signs come as they come, and a mispredicted branch costs more than
        // these few instructions.
        let first = index < count ? text[index] : 0
        let isNegative = first == TraceByte.minus
        index &+= (isNegative ? 1 : 0) | (first == TraceByte.plus ? 1 : 0)

        // Up to 19 significant digits fit a UInt64; later ones only move the decimal exponent,
        // and a non-zero one among them means the fast path cannot be exact.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var droppedNonZeroDigit = false
        // Words of digits first, then one at a time.
        var sawDigit = readWordsOfDigits(text, at: &index, into: &mantissa, significantDigits: &significantDigits) > 0
        while index < count, case let digit = text[index] &- TraceByte.digitZero, digit <= 9 {
            sawDigit = true
            if significantDigits < 19 {
                // A leading zero leaves the mantissa at zero and is not significant.
                mantissa = mantissa &* 10 &+ UInt64(digit)
                significantDigits &+= mantissa == 0 ? 0 : 1
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
            let read = readWordsOfDigits(text, at: &index, into: &mantissa, significantDigits: &significantDigits)
            sawDigit = sawDigit || read > 0
            exponent -= read
            while index < count, case let digit = text[index] &- TraceByte.digitZero, digit <= 9 {
                sawDigit = true
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significantDigits &+= mantissa == 0 ? 0 : 1
                    exponent -= 1
                } else {
                    droppedNonZeroDigit = droppedNonZeroDigit || digit != 0
                }
                index += 1
            }
        }
        guard sawDigit else {
            guard integerEnd == index else { return (nil, index) }
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
            guard sawExponentDigit else { return (nil, index) }
            exponent += exponentIsNegative ? -written : written
        }

        if mantissa == 0 { return (isNegative ? -0.0 : 0.0, index) }
        if !droppedNonZeroDigit,
            let value = exactValue(mantissa, timesTenToThe: exponent)
                ?? eiselLemire(mantissa, timesTenToThe: exponent)
        {
            return (isNegative ? -value : value, index)
        }
        return (fallback(UnsafeRawBufferPointer(rebasing: text[start..<index])), index)
    }

    /// Reads digits into `mantissa` eight at a time, then four (which most of a phone app's
    /// numbers have: `9.8066`, `1234.567`), where they surely fit: counting leading zeros as
    /// significant only makes the limit come sooner. Returns how many digits it read.
    @inline(__always)
    private static func readWordsOfDigits(
        _ text: UnsafeRawBufferPointer, at index: inout Int, into mantissa: inout UInt64, significantDigits: inout Int
    ) -> Int {
        let start = index
        while significantDigits <= 11, let eight = eightDigits(text, at: index) {
            mantissa = mantissa &* 100_000_000 &+ eight
            significantDigits += mantissa == 0 ? 0 : 8
            index += 8
        }
        if significantDigits <= 15, let four = fourDigits(text, at: index) {
            mantissa = mantissa &* 10_000 &+ four
            significantDigits += mantissa == 0 ? 0 : 4
            index += 4
        }
        return index - start
    }

    /// The value of the eight bytes at `index` if they are all digits.
    @inline(__always)
    private static func eightDigits(_ text: UnsafeRawBufferPointer, at index: Int) -> UInt64? {
        guard let digits = digitPairs(text, at: index, as: UInt64.self) else { return nil }
        let mask: UInt64 = 0x0000_00FF_0000_00FF
        let pairsToFours: UInt64 = 100 + 1_000_000 << 32
        let foursToEight: UInt64 = 1 + 10_000 << 32
        return ((digits & mask) &* pairsToFours &+ ((digits >> 16) & mask) &* foursToEight) >> 32
    }

    /// The value of the four bytes at `index` if they are all digits.
    @inline(__always)
    private static func fourDigits(_ text: UnsafeRawBufferPointer, at index: Int) -> UInt64? {
        digitPairs(text, at: index, as: UInt32.self).map { UInt64(($0 & 0xFF) &* 100 &+ (($0 >> 16) & 0xFF)) }
    }

    /// The bytes at `index`, a `Word` of them, as pairs of digits (ten times a digit plus the
    /// next, in every other byte from the lowest) if they are all digits: the SWAR method of
    /// fast_float, one word instead of a byte at a time.
    @inline(__always)
    private static func digitPairs<Word: FixedWidthInteger & UnsignedInteger>(
        _ text: UnsafeRawBufferPointer, at index: Int, as _: Word.Type
    ) -> Word? {
        guard index + Word.bitWidth / 8 <= text.count else { return nil }
        let word = Word(littleEndian: text.loadUnaligned(fromByteOffset: index, as: Word.self))
        let ones = Word.max / 0xFF  // 0x01 in every byte
        // A byte below '0' borrows into its high bit when '0' is taken away; one above '9' sets
        // its high bit when 0x46 is added.
        let aboveNine = word &+ ones &* 0x46
        let belowZero = word &- ones &* 0x30
        guard (aboveNine | belowZero) & (ones &* 0x80) == 0 else { return nil }
        return belowZero &* 10 &+ (belowZero >> 8)
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

    /// The Eisel–Lemire algorithm (as fast_float has it) for the mantissas of up to 19 digits
    /// that Clinger's path cannot take, such as the 17 digits of a double printed in full: the
    /// mantissa times a 128-bit approximation of 5^q gives the double's bits directly. Returns
    /// nil, leaving the number to the standard library, outside the table, for subnormals, and
    /// where the approximation's low bits leave the rounding in doubt.
    private static func eiselLemire(_ mantissa: UInt64, timesTenToThe q: Int) -> Double? {
        guard powersOfFiveRange.contains(q) else { return nil }
        let index = 2 * (q - powersOfFiveRange.lowerBound)
        let leadingZeros = mantissa.leadingZeroBitCount
        let w = mantissa << leadingZeros
        var (high, low) = w.multipliedFullWidth(by: powersOfFive[index])
        // 52 bits of mantissa, one to round with and two to spare: only when all the bits below
        // those are ones can the next 64 bits of the power carry into them.
        let belowPrecision = UInt64.max >> 55
        if high & belowPrecision == belowPrecision {
            let next = w.multipliedFullWidth(by: powersOfFive[index + 1]).high
            let (sum, carry) = low.addingReportingOverflow(next)
            low = sum
            if carry { high &+= 1 }
        }
        guard low != .max else { return nil }

        let upperBit = Int(high >> 63)
        let shift = upperBit + 64 - 52 - 3
        var significand = high >> shift
        // ⌊q · log2(10)⌋ + 63, the binary exponent of 10^q's approximation, biased by 1023.
        var biasedExponent = ((152_170 + 65_536) * q) >> 16 + 63 + upperBit - leadingZeros + 1023
        guard biasedExponent > 0 else { return nil }
        // Exactly halfway between two doubles (only possible where 5^q fits 64 bits): to even.
        if low <= 1 && q >= -4 && q <= 23 && significand & 3 == 1 && significand << shift == high {
            significand &= ~1
        }
        significand += significand & 1
        significand >>= 1
        if significand >= 2 << 52 {
            significand = 1 << 52
            biasedExponent += 1
        }
        guard biasedExponent < 0x7FF else { return nil }
        return Double(bitPattern: UInt64(biasedExponent) << 52 | significand & ~(1 << 52))
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

    /// `nan`, `inf` or `infinity` in any case, which `Double(String)` also reads, and its end.
    private static func nonFiniteWord(
        _ text: UnsafeRawBufferPointer, from start: Int, isNegative: Bool
    ) -> (value: Double?, end: Int) {
        let rest = text[start...]
        if rest.starts(caseInsensitive: "infinity") { return (isNegative ? -.infinity : .infinity, start + 8) }
        if rest.starts(caseInsensitive: "inf") { return (isNegative ? -.infinity : .infinity, start + 3) }
        if rest.starts(caseInsensitive: "nan") { return (isNegative ? -Double.nan : .nan, start + 3) }
        return (nil, start)
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
    /// Whether the bytes begin with `word` (ASCII letters), ignoring case.
    fileprivate func starts(caseInsensitive word: StaticString) -> Bool {
        guard count >= word.utf8CodeUnitCount else { return false }
        var letter = word.utf8Start
        for byte in prefix(word.utf8CodeUnitCount) {
            guard byte | 0x20 == letter.pointee | 0x20 else { return false }
            letter += 1
        }
        return true
    }
}
