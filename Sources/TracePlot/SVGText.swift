// MARK: - Writing SVG

/// SVG markup built as text: the plot needs a handful of elements, not an XML library.
struct SVGText {
    private(set) var text = ""

    /// Appends an element with its attributes, and its text content (escaped) when there is one.
    mutating func element(_ name: String, _ attributes: [(String, String)], content: String? = nil) {
        start(name, attributes)
        if let content {
            text += ">" + escaped(content) + "</\(name)>\n"
        } else {
            text += "/>\n"
        }
    }

    /// Opens an element that holds others; `close(_:)` ends it.
    mutating func open(_ name: String, _ attributes: [(String, String)]) {
        start(name, attributes)
        text += ">\n"
    }

    private mutating func start(_ name: String, _ attributes: [(String, String)]) {
        text += "<" + name
        for (key, value) in attributes { text += " \(key)=\"\(escaped(value))\"" }
    }

    /// Ends the element `open` began.
    mutating func close(_ name: String) { text += "</\(name)>\n" }
}

/// `text` with the characters XML gives a meaning escaped: a trace's name may hold any of them.
func escaped(_ text: String) -> String {
    guard text.contains(where: { "&<>\"'".contains($0) }) else { return text }
    var out = ""
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        default: out.append(character)
        }
    }
    return out
}

/// A number with `decimals` digits after the point, written without Foundation; never "-0".
func fixed(_ value: Double, _ decimals: Int = 1) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (value * scale).rounded()
    // Beyond what an Int holds no picture has a use for the digits: clamp, do not trap.
    let units = Int(max(min(scaled, 1e15), -1e15))
    let whole = String(abs(units) / Int(scale))
    let sign = units < 0 ? "-" : ""
    guard decimals > 0 else { return sign + whole }
    let fraction = String(abs(units) % Int(scale))
    return sign + whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
}

// MARK: - Scales

/// A linear map from values (seconds, g) to pixels, with round-numbered ticks.
struct Scale {
    /// The values drawn, from `lower` (at pixel `start`) to `upper` (at pixel `end`).
    var lower: Double
    var upper: Double
    var start: Double
    var end: Double

    /// The pixel of a value.
    func callAsFunction(_ value: Double) -> Double {
        start + (value - lower) / (upper - lower) * (end - start)
    }

    /// Ticks at the multiples of a round step (1, 2 or 5 times a power of ten) no closer than
    /// `spacing` pixels, with the digits after the point the step needs.
    func ticks(spacing: Double) -> (values: [Double], decimals: Int) {
        let step = RoundStep(atLeast: (upper - lower) * spacing / abs(end - start))
        // Counted in steps, not summed, so that 0.1 + 0.2 never shows as 0.30000000000000004.
        let first = (lower / step.value).rounded(.up)
        let last = (upper / step.value).rounded(.down)
        guard first <= last else { return ([], step.decimals) }
        return ((Int(first)...Int(last)).map { Double($0) * step.value }, step.decimals)
    }
}

/// The least of 1, 2 or 5 times a power of ten that is at least a given size.
struct RoundStep {
    var value = 1.0
    /// Digits after the point that multiples of the step need.
    var decimals = 0

    init(atLeast size: Double) {
        guard size > 0, size.isFinite else { return }
        var power = 1.0
        while power > size {
            power /= 10
            decimals += 1
        }
        while power * 10 < size { power *= 10 }
        let multiple = [1.0, 2, 5].first { $0 * power >= size } ?? 10
        value = multiple * power
        if multiple == 10 { decimals = max(decimals - 1, 0) }
    }
}
