// MARK: - A punch's line, written by hand

extension PunchLine {
    /// The line `jsonText(self)` writes, byte for byte, put together without the encoder:
    /// JSONEncoder builds a container per object and a string per key, and was the largest share
    /// of `detect --json` after reading. A line with features, or a number the fast path does not
    /// write, goes through the encoder.
    var jsonLine: String {
        guard features == nil, let t = t.jsonText, let peakG = peakG.jsonText, let speedMs = speedMs.jsonText,
            let elevationDeg = elevationDeg.jsonText
        else { return jsonText(self) }
        // The encoder's order: keys sorted by their bytes.
        var line = "{\"clipped\":" + (clipped ? "true" : "false")
        if let confidence {
            guard let text = confidence.jsonText else { return jsonText(self) }
            line += ",\"confidence\":" + text
        }
        line += ",\"damage\":" + String(damage)
        line += ",\"elevation_deg\":" + elevationDeg
        if let latencyMs {
            guard let text = latencyMs.jsonText else { return jsonText(self) }
            line += ",\"latency_ms\":" + text
        }
        line += ",\"peak_g\":" + peakG
        line += ",\"speed_ms\":" + speedMs
        line += ",\"t\":" + t
        if let turnAxisDeg {
            guard let text = turnAxisDeg.jsonText else { return jsonText(self) }
            line += ",\"turn_axis_deg\":" + text
        }
        if let turnDeg {
            guard let text = turnDeg.jsonText else { return jsonText(self) }
            line += ",\"turn_deg\":" + text
        }
        // A kind's name is a plain lower-case word: nothing in it to escape.
        line += ",\"type\":\"" + type + "\"}"
        return line
    }
}

extension RoundedNumber {
    /// The number as the encoder writes it, where that is the fixed text without its trailing
    /// zeros; nil elsewhere (not finite, too many digits to be sure, or small enough that the
    /// encoder might write an exponent).
    ///
    /// The encoder writes the double nearest the fixed text as its shortest decimal, without a
    /// trailing `.0`. A decimal of at most 15 significant digits is the shortest decimal of its
    /// nearest double (doubles are closer together than such decimals), so that is the text with
    /// its trailing zeros, and then its point, taken off.
    var jsonText: String? {
        guard value.isFinite, decimals >= 0, decimals <= 4, value.magnitude < 1e14 / pow10(decimals) else { return nil }
        var text = formatted(value, decimals: decimals)
        guard decimals > 0 else { return text }
        while text.utf8.last == UInt8(ascii: "0") { text.removeLast() }
        if text.utf8.last == UInt8(ascii: ".") { text.removeLast() }
        return text
    }
}

/// 10 to the power `exponent`, for small exponents.
private func pow10(_ exponent: Int) -> Double {
    (0..<exponent).reduce(1.0) { power, _ in power * 10 }
}
