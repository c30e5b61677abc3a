// MARK: - Label files

extension PunchLabel {
    /// Reads a labels file: a header `start,end,type`, then one punch a line, times in seconds
    /// since the trace's first sample.
    ///
    /// - Throws: `TraceError` naming the line and column of anything malformed.
    public static func parseLabels(_ text: String, source: String) throws -> [PunchLabel] {
        var labels: [PunchLabel] = []
        var sawHeader = false
        // "\r\n" is one Character, so splitting on newlines takes both line endings.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (offset, line) in lines.enumerated() {
            let lineNumber = offset + 1
            let trimmed = lineNumber == 1 && line.hasPrefix("\u{FEFF}") ? line.dropFirst() : line
            if trimmed.allSatisfy({ $0 == " " }) { continue }
            // Slices, not copies: trimming into a new String for every field took most of the time.
            // At most four: a line of a million commas is one error, not a million fields in memory.
            let fields = trimmed.split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false)
                .map(\.trimmingSpaces)
            if !sawHeader {
                guard fields.map({ $0.lowercased() }) == ["start", "end", "type"] else {
                    throw TraceError(
                        .unknownHeader, source: source, line: lineNumber, column: 1,
                        expected: "the header start,end,type", found: TraceError.quoted(String(trimmed)))
                }
                sawHeader = true
                continue
            }
            guard fields.count == 3 else {
                let count = fields.count < 3 ? fields.count : 1 + trimmed.utf8.count { $0 == UInt8(ascii: ",") }
                throw TraceError(
                    .raggedRow, source: source, line: lineNumber, column: min(fields.count + 1, 4),
                    expected: "3 fields (start,end,type)", found: "\(count)")
            }
            var times: [Double] = []
            for (index, name) in ["start", "end"].enumerated() {
                guard let value = Double(fields[index]) else {
                    throw TraceError(
                        .notANumber, source: source, line: lineNumber, column: index + 1, field: name,
                        expected: "a number of seconds", found: TraceError.quoted(String(fields[index])))
                }
                guard value.isFinite else {
                    throw TraceError(
                        .notFinite, source: source, line: lineNumber, column: index + 1, field: name,
                        expected: "a finite number of seconds", found: TraceError.quoted(String(fields[index])))
                }
                times.append(value)
            }
            guard let kind = PunchKind(rawValue: fields[2].lowercased()) else {
                throw TraceError(
                    .invalidValue, source: source, line: lineNumber, column: 3, field: "type",
                    expected: "jab, uppercut or hook", found: TraceError.quoted(String(fields[2])))
            }
            guard times[1] >= times[0] else {
                throw TraceError(
                    .invalidValue, source: source, line: lineNumber, column: 2, field: "end",
                    expected: "an end no earlier than the start \(fields[0])",
                    found: TraceError.quoted(String(fields[1])))
            }
            labels.append(PunchLabel(start: times[0], end: times[1], kind: kind))
        }
        guard sawHeader else {
            throw TraceError(
                .emptyFile, source: source, line: nil, expected: "the header start,end,type",
                found: "an empty file")
        }
        return labels
    }

    /// Where a trace's labels live: `NAME.labels.csv` beside `NAME.csv`.
    public static func labelsPath(forTrace trace: String) -> String {
        (trace.hasSuffix(".csv") ? String(trace.dropLast(4)) : trace) + ".labels.csv"
    }

    /// Writes labels in the form `parseLabels` reads.
    public static func formatLabels(_ labels: [PunchLabel]) -> String {
        var text = "start,end,type\n"
        for label in labels {
            text += "\(fixed(label.start)),\(fixed(label.end)),\(label.kind.rawValue)\n"
        }
        return text
    }
}

/// A time with millisecond precision, written without Foundation.
private func fixed(_ seconds: Double) -> String {
    let millis = Int((seconds * 1000).rounded())
    let sign = millis < 0 ? "-" : ""
    let whole = abs(millis) / 1000
    let fraction = abs(millis) % 1000
    let padded = String(fraction)
    return "\(sign)\(whole).\(String(repeating: "0", count: 3 - padded.count))\(padded)"
}
