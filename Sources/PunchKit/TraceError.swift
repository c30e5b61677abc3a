// MARK: - TraceError

/// Why a trace could not be read, and where.
///
/// Its description reads like a compiler's: `run.csv:12:3: expected a number for "y", found "abc"`,
/// where 12 is the line (1-based, counting every line of the file, the header included) and 3 is
/// the **field** (1-based, counted by separators, not characters).
public struct TraceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
        /// The file has no header line at all (it is empty or blank).
        case emptyFile
        /// The header names no format's columns.
        case unknownHeader
        /// The file is another sensor's (a gyroscope's rotation rate, a magnetometer's field…),
        /// as its header or, for Sensor Logger, its name says: there is no acceleration to read.
        case notAcceleration
        /// A field that must hold a number holds something else, or nothing.
        case notANumber
        /// A field holds NaN or an infinity (written out, or a number too large for a double).
        case notFinite
        /// A row's time is earlier than the row before it.
        case timeWentBackwards
        /// A row has too few fields to reach a column the reader needs.
        case raggedRow
        /// A line is longer than the reader holds in memory.
        case lineTooLong
        /// A field holds a well-formed value that its column does not allow.
        case invalidValue
    }

    /// What went wrong.
    public var kind: Kind
    /// The name the caller gave the source (a file path, or `-` for standard input).
    public var source: String
    /// The 1-based line, or nil when the error belongs to no line (an empty file).
    public var line: Int?
    /// The 1-based field number within the line, or nil when the error is the whole line's.
    public var column: Int?
    /// The header's name of the column concerned, when there is one.
    public var field: String?
    /// What the reader expected, as a phrase: `a number for "y"`.
    public var expected: String
    /// What it found instead, as a phrase: `"abc"`, `an empty field`.
    public var found: String

    /// Creates an error.
    public init(
        _ kind: Kind, source: String, line: Int?, column: Int? = nil, field: String? = nil,
        expected: String, found: String
    ) {
        self.kind = kind
        self.source = source
        self.line = line
        self.column = column
        self.field = field
        self.expected = expected
        self.found = found
    }

    /// `source:line:column: expected …, found …`.
    public var description: String {
        var location = source
        if let line { location += ":\(line)" }
        if let column { location += ":\(column)" }
        return "\(location): expected \(expected), found \(found)"
    }
}

// MARK: - Quoting what was found

extension TraceError {
    /// The longest piece of a file quoted in a message; a runaway field is cut.
    static let quotedLimit = 40

    /// Bytes from the file, quoted for a message, or `an empty field`.
    static func quoted(_ bytes: some Collection<UInt8>) -> String {
        if bytes.isEmpty { return "an empty field" }
        return quoted(String(decoding: bytes, as: UTF8.self))
    }

    /// Text from the file, quoted for a message, cut at `quotedLimit` characters; a piece with a
    /// control character or bytes that are not UTF-8 in it is said to be binary, not echoed (its
    /// bytes would scramble the terminal).
    static func quoted(_ text: String) -> String {
        let binary = text.unicodeScalars.prefix(quotedLimit).contains {
            ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F || $0 == "\u{FFFD}"
        }
        if binary { return "binary data, not text" }
        guard text.count > quotedLimit else { return "\"\(text)\"" }
        return "\"\(text.prefix(quotedLimit))…\""
    }
}
