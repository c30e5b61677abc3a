import Foundation

// MARK: - Fixed decimals

/// A number with a fixed count of decimals, exactly as `String(format: "%.Nf")` writes it: the
/// value's exact binary expansion rounded half to even, with a minus sign whenever the sign bit is
/// set (so `-0.0001` to three decimals is `-0.000`).
///
/// Written here because Foundation's formatting cost about 10 µs a call on Linux, a fifth of
/// `detect --json`'s time on a long trace. Values too large to scale into 52 bits, more than 15
/// decimals, and infinities and NaN still go to Foundation.
package func formatted(_ value: Double, decimals: Int) -> String {
    guard value.isFinite, decimals >= 0, decimals < powersOfTen.count,
        case let scale = powersOfTen[decimals], case let scaled = value.magnitude * scale, scaled < 0x1p52
    else { return String(format: "%.\(decimals)f", value) }

    var units = scaled.rounded(.toNearestOrEven)
    // Exact: both are below 2^52 and at most half apart. The product was rounded, so where it
    // lies exactly halfway, the rounding error (exact too, by a fused multiply-add) tells which
    // side of halfway the exact value is; anywhere else it cannot move the result.
    let offset = scaled - units
    let error = (-scaled).addingProduct(value.magnitude, scale)
    if offset == 0.5 && error > 0 {
        units += 1
    } else if offset == -0.5 && error < 0 {
        units -= 1
    }

    let digits = UInt64(units)
    let unitsPerOne = UInt64(scale)
    var integerDigits = 1
    var rest = digits / unitsPerOne
    while rest >= 10 {
        rest /= 10
        integerDigits += 1
    }
    let isNegative = value.sign == .minus
    let length = (isNegative ? 1 : 0) + integerDigits + (decimals > 0 ? decimals + 1 : 0)
    return String(unsafeUninitializedCapacity: length) { text in
        var position = length
        var remaining = digits
        func writeDigit() {
            position -= 1
            text[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
        for _ in 0..<decimals { writeDigit() }
        if decimals > 0 {
            position -= 1
            text[position] = UInt8(ascii: ".")
        }
        for _ in 0..<integerDigits { writeDigit() }
        if isNegative { text[0] = UInt8(ascii: "-") }
        return length
    }
}

/// 10⁰ … 10¹⁵, each exact as a double and as an integer.
private let powersOfTen: [Double] = (0...15).map { exponent in
    (0..<exponent).reduce(1.0) { power, _ in power * 10 }
}
