// MARK: - TraceRowParser

/// Reads the needed fields of one data row straight from its bytes.
///
/// It walks the fields up to the last one it needs and parses only those; later fields (a
/// magnetometer, a label) are never looked at.
struct TraceRowParser {
    /// What one row gave.
    enum Outcome {
        /// A reading in the file's own units.
        case reading(MotionSample)
        /// A needed field is empty: phyphox's mark of a sensor that delivered nothing.
        case missingValue
        /// The row is broken.
        case failure(TraceError)
    }

    private let separator: UInt8
    private let acceptsDecimalComma: Bool
    private let allowsMissingValues: Bool
    /// For each field up to the last needed one: 0 time, 1 x, 2 y, 3 z, 4–6 the rotation's x, y,
    /// z beside the acceleration, or -1 when ignored.
    private let roles: [Int]
    private let hasRotation: Bool
    private let names: [String]
    private let source: String

    init(layout: TraceLayout, source: String) {
        separator = layout.separator.byte
        acceptsDecimalComma = layout.separator != .comma
        allowsMissingValues = layout.allowsMissingValues
        roles = layout.rolesByField
        hasRotation = layout.hasRotationBeside
        names = layout.names
        self.source = source
    }

    /// Parses a row (without its line end) whose time must not be earlier than `previousTime`.
    func parse(_ row: UnsafeRawBufferPointer, line: Int, notBefore previousTime: Double?) -> Outcome {
        // Separate variables, not a vector indexed by role: writing one lane of a vector in
        // memory and reading the whole vector back stalls on every field.
        var time = 0.0
        var acceleration = Vector3.zero
        var rotation = Vector3.zero
        var fieldStart = 0
        for field in roles.indices {
            guard fieldStart <= row.count else {
                return .failure(raggedRow(line: line, fieldCount: field))
            }
            let role = roles[field]
            guard role >= 0 else {
                fieldStart = endOfField(row, from: fieldStart) + 1
                continue
            }
            func failure(_ kind: TraceError.Kind, expected: String) -> Outcome {
                let text = row[unquoted(row, fieldStart..<endOfField(row, from: fieldStart))]
                return .failure(
                    TraceError(
                        kind, source: source, line: line, column: field + 1, field: names[role],
                        expected: "\(expected) for \"\(names[role])\"", found: TraceError.quoted(text)))
            }
            // Most fields are a bare number up to the separator, read in one pass; anything else
            // (quotes, spaces, an empty or broken field) is cut out first and read whole.
            var (number, fieldEnd) = NumberParser.parsePrefix(
                row, from: fieldStart, acceptsDecimalComma: acceptsDecimalComma)
            if number == nil || (fieldEnd < row.count && row[fieldEnd] != separator) {
                fieldEnd = endOfField(row, from: fieldStart)
                let text = UnsafeRawBufferPointer(rebasing: row[unquoted(row, fieldStart..<fieldEnd)])
                if text.isEmpty && allowsMissingValues { return .missingValue }
                number = NumberParser.parse(text, acceptsDecimalComma: acceptsDecimalComma)
            }
            guard let value = number else { return failure(.notANumber, expected: "a number") }
            guard value.isFinite else { return failure(.notFinite, expected: "a finite number") }
            if role == 0, let previousTime, value < previousTime {
                return failure(.timeWentBackwards, expected: "a time of at least \(previousTime)")
            }
            switch role {
            case 0: time = value
            case 1: acceleration.x = value
            case 2: acceleration.y = value
            case 3: acceleration.z = value
            case 4: rotation.x = value
            case 5: rotation.y = value
            default: rotation.z = value
            }
            fieldStart = fieldEnd + 1
        }
        return .reading(
            MotionSample(time: time, acceleration: acceleration, rotationRate: hasRotation ? rotation : nil))
    }

    /// The index of the separator ending the field that starts at `start`, or the row's end.
    /// A quoted field runs to its closing quote (`""` inside is a quote), then to a separator.
    private func endOfField(_ row: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        if index < row.count && row[index] == TraceByte.quote {
            index += 1
            while index < row.count {
                if row[index] == TraceByte.quote {
                    if index + 1 < row.count && row[index + 1] == TraceByte.quote {
                        index += 1
                    } else {
                        break
                    }
                }
                index += 1
            }
        }
        while index < row.count && row[index] != separator { index += 1 }
        return index
    }

    /// A field's range without surrounding spaces and quotes.
    private func unquoted(_ row: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int> {
        var field = trimmed(row, range)
        if field.count >= 2 && row[field.lowerBound] == TraceByte.quote && row[field.upperBound - 1] == TraceByte.quote
        {
            field = trimmed(row, field.lowerBound + 1..<field.upperBound - 1)
        }
        return field
    }

    private func trimmed(_ row: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper && (row[lower] == TraceByte.space || row[lower] == TraceByte.tab) { lower += 1 }
        while upper > lower && (row[upper - 1] == TraceByte.space || row[upper - 1] == TraceByte.tab) { upper -= 1 }
        return lower..<upper
    }

    /// A row that ends before a needed field: reported at the first needed field it lacks.
    private func raggedRow(line: Int, fieldCount: Int) -> TraceError {
        let missing = roles[fieldCount...].firstIndex { $0 >= 0 } ?? fieldCount
        let name = names[roles[missing]]
        return TraceError(
            .raggedRow, source: source, line: line, column: missing + 1, field: name,
            expected: "a value for \"\(name)\" in field \(missing + 1)",
            found: fieldCount == 1 ? "a row of 1 field" : "a row of \(fieldCount) fields")
    }
}
