// MARK: - EvemuRecording

/// A device description and events in the text format of `evemu-record` / `evemu-describe`.
///
/// Lines (evemu 1.x/2.x):
/// ```
/// # EVEMU 1.3                                        comment (also after a value: "... # EV_ABS / ABS_X")
/// N: Sony Interactive Entertainment DualSense Wireless Controller Motion Sensors
/// I: 0005 054c 0ce6 8100                             bus vendor product version, hex
/// P: 40 00 00 00 00 00 00 00                         property bitmap bytes, hex, continued on more P: lines
/// B: 03 3f 00 00 00 00 00 00 00                      event type, then its code bitmap bytes, hex
/// A: 00 -32768 32767 16 0 8192                       axis (hex), min max fuzz flat [resolution], decimal
/// E: 0.008333 0003 0000 -120                         sec.usec, type (hex), code (hex), value (decimal)
/// ```
/// `L:` (LEDs) and `S:` (switches) lines are valid and carry nothing HitThat needs.
public struct EvemuRecording: Hashable, Sendable {
    /// The device, from the `N:`, `I:`, `P:` and `A:` lines.
    public var device: DeviceDescription
    /// The code bitmaps from the `B:` lines, by event type.
    public var supportedCodes: [EventType: KernelBitmap]
    /// The events from the `E:` lines, in order.
    public var events: [InputEvent]

    /// Parses evemu text.
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - source: the file name, for errors.
    /// - Throws: ``EvemuSyntaxError`` naming the line and column of the first problem.
    public init(parsing text: String, source: String) throws(EvemuSyntaxError) {
        device = .unknown
        supportedCodes = [:]
        events = []
        var properties: [UInt8] = []
        var lineNumber = 0
        // "\r\n" is one Character, so splitting at "\n" alone would leave a CRLF file one long line.
        for lineText in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            var line = EvemuLine(text: lineText, source: source, number: lineNumber)
            guard let tag = line.tag() else { continue }
            switch tag {
            case "N":
                device.name = line.rest()
            case "I":
                device.id = InputID(
                    bus: try line.hex(UInt16.self, "bus"), vendor: try line.hex(UInt16.self, "vendor"),
                    product: try line.hex(UInt16.self, "product"), version: try line.hex(UInt16.self, "version"))
                try line.end()
            case "P":
                while line.hasMore { properties.append(try line.hex(UInt8.self, "property byte")) }
            case "B":
                let type = EventType(rawValue: UInt16(try line.hex(UInt8.self, "event type")))
                var bytes: [UInt8] = []
                while line.hasMore { bytes.append(try line.hex(UInt8.self, "bitmap byte")) }
                // In place: copying the bitmap out and back for each line made many lines quadratic.
                supportedCodes[type, default: KernelBitmap(bytes: [])].bytes += bytes
            case "A":
                let codeColumn = line.nextColumn()
                let code = try line.hex(UInt8.self, "axis code")
                guard Int(code) < AbsoluteAxis.count else {
                    throw line.error("an axis code below 0x40", found: String(code, radix: 16), column: codeColumn)
                }
                var info = AbsoluteAxisInfo(
                    minimum: try line.decimal("minimum"), maximum: try line.decimal("maximum"),
                    fuzz: try line.decimal("fuzz"), flat: try line.decimal("flat"))
                if line.hasMore { info.resolution = try line.decimal("resolution") }
                try line.end()
                device.axes[AbsoluteAxis(rawValue: UInt16(code))] = info
            case "E":
                let (seconds, microseconds) = try line.timestamp()
                events.append(
                    InputEvent(
                        seconds: seconds, microseconds: microseconds,
                        type: EventType(rawValue: try line.hex(UInt16.self, "event type")),
                        code: try line.hex(UInt16.self, "event code"), value: try line.decimal("value")))
                try line.end()
            case "L", "S":
                continue
            default:
                throw line.error(
                    "a line starting with N:, I:, P:, B:, A:, L:, S:, E: or #", found: tag + ":", column: 1)
            }
        }
        device.properties = KernelBitmap(bytes: properties)
    }
}

// MARK: - EvemuSyntaxError

/// A line of an evemu file that cannot be read.
public struct EvemuSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file name.
    public var source: String
    /// The line, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int
    /// What was expected there.
    public var expected: String
    /// What was found.
    public var found: String

    /// Creates an error.
    public init(source: String, line: Int, column: Int, expected: String, found: String) {
        self.source = source
        self.line = line
        self.column = column
        self.expected = expected
        self.found = found
    }

    /// `file:line:column: expected …, found …`.
    public var description: String {
        "\(source):\(line):\(column): expected \(expected), found \(found.isEmpty ? "the end of the line" : "\"\(found)\"")"
    }
}

// MARK: - Line scanner

/// Splits one evemu line into whitespace-separated fields, remembering columns for errors.
private struct EvemuLine {
    let text: Substring
    let source: String
    let number: Int
    var position: Substring.Index
    /// The column of `position`, kept as it moves: measuring it from the line's start for every
    /// field made a long line take quadratic time.
    private(set) var column = 1

    init(text: Substring, source: String, number: Int) {
        // A '#' starts a comment wherever it appears, except in a name (N: takes the rest verbatim).
        self.text = text.hasPrefix("N:") ? text : text.prefix { $0 != "#" }
        self.source = source
        self.number = number
        position = self.text.startIndex
    }

    var hasMore: Bool { text[position...].contains { !$0.isWhitespace } }

    /// The tag before the colon, or `nil` for a blank or comment-only line.
    mutating func tag() -> String? {
        skipSpaces()
        guard position < text.endIndex else { return nil }
        let start = position
        guard let colon = text[position...].firstIndex(of: ":") else {
            return String(text[start...].prefix { !$0.isWhitespace })
        }
        column += text.distance(from: position, to: colon) + 1
        position = text.index(after: colon)
        return String(text[start..<colon])
    }

    /// Everything after the tag, trimmed (the device name).
    mutating func rest() -> String {
        skipSpaces()
        defer {
            column += text[position...].count
            position = text.endIndex
        }
        let rest = text[position...]
        return String(rest[..<(rest.lastIndex { !$0.isWhitespace }.map(rest.index(after:)) ?? rest.startIndex)])
    }

    mutating func hex<T: FixedWidthInteger>(_ type: T.Type, _ field: String) throws(EvemuSyntaxError) -> T {
        let (token, column) = nextToken()
        guard let value = T(token, radix: 16) else {
            throw error("\(field) in hexadecimal", found: token, column: column)
        }
        return value
    }

    mutating func decimal(_ field: String) throws(EvemuSyntaxError) -> Int32 {
        let (token, column) = nextToken()
        guard let value = Int32(token) else {
            throw error("\(field) as a decimal 32-bit integer", found: token, column: column)
        }
        return value
    }

    /// `sec.usec`; fewer than six fraction digits are a decimal fraction ("0.5" is 500 000 µs).
    mutating func timestamp() throws(EvemuSyntaxError) -> (Int64, Int64) {
        let (token, column) = nextToken()
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let seconds = Int64(parts[0]), parts[1].count <= 6, parts[1].allSatisfy(\.isASCII),
            let fraction = Int64(parts[1] + String(repeating: "0", count: 6 - parts[1].count)), fraction >= 0
        else { throw error("a time as seconds.microseconds", found: token, column: column) }
        return (seconds, fraction)
    }

    mutating func end() throws(EvemuSyntaxError) {
        let (token, column) = nextToken()
        guard token.isEmpty else { throw error("the end of the line", found: token, column: column) }
    }

    func error(_ expected: String, found: String, column: Int? = nil) -> EvemuSyntaxError {
        EvemuSyntaxError(
            source: source, line: number, column: column ?? self.column,
            expected: expected, found: found)
    }

    /// The column where the next field starts.
    mutating func nextColumn() -> Int {
        skipSpaces()
        return column
    }

    private mutating func nextToken() -> (String, Int) {
        let column = nextColumn()
        let start = position
        while position < text.endIndex, !text[position].isWhitespace { advance() }
        return (String(text[start..<position]), column)
    }

    private mutating func skipSpaces() {
        while position < text.endIndex, text[position].isWhitespace { advance() }
    }

    private mutating func advance() {
        position = text.index(after: position)
        column += 1
    }
}
