import Foundation
import PunchKit

// MARK: - PunchPrinter

/// Writes punches to standard output as a table or as JSON lines, flushing each one at once so
/// that a pipe sees it while the trace is still streaming.
struct PunchPrinter {
    let json: Bool
    /// Headers of the extra values each table row ends with.
    let extraColumns: [String]
    private var wroteHeader = false

    init(json: Bool, extraColumns: [String] = []) {
        self.json = json
        self.extraColumns = extraColumns
    }

    /// Writes one punch; `origin` is the time of the trace's first sample.
    mutating func write(_ punch: Punch, since origin: Double, extra: [(String, String)] = []) {
        if json {
            emit(jsonLine(punch, since: origin, extra: extra))
            return
        }
        if !wroteHeader {
            emit((["  time (s)  type      damage  peak (g)  speed (m/s)"] + extraColumns).joined(separator: "  "))
            wroteHeader = true
        }
        var row = padded(formatted(punch.time - origin, decimals: 3), 10)
        row += "  " + punch.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        row += padded(String(punch.damage), 8)
        row += padded(formatted(punch.peakG, decimals: 2) + (punch.clipped ? "+" : ""), 10)
        row += padded(formatted(punch.speed, decimals: 1), 13)
        for (_, value) in extra { row += "  " + value }
        emit(row)
    }

    private func emit(_ line: String) {
        writeLine(line, to: STDOUT_FILENO)
    }
}

/// One punch as a JSON object on one line: `t`, `type`, `damage`, `peak_g`, and more.
func jsonLine(_ punch: Punch, since origin: Double, extra: [(String, String)] = []) -> String {
    // Appended in place: one line a punch, and a long trace has thousands.
    var line = "{\"t\":" + jsonNumber(punch.time - origin, decimals: 4)
    line += ",\"type\":\"" + punch.kind.rawValue
    line += "\",\"damage\":" + String(punch.damage)
    line += ",\"peak_g\":" + jsonNumber(punch.peakG, decimals: 3)
    line += ",\"speed_ms\":" + jsonNumber(punch.speed, decimals: 2)
    line += ",\"elevation_deg\":" + jsonNumber(asin(max(-1, min(1, punch.rise))) * 180 / .pi, decimals: 1)
    line += ",\"clipped\":" + (punch.clipped ? "true" : "false")
    if let turn = punch.turn, let axis = punch.turnAxisFromVertical {
        line += ",\"turn_deg\":" + jsonNumber(turn, decimals: 1)
        line += ",\"turn_axis_deg\":" + jsonNumber(axis, decimals: 1)
    }
    for (name, value) in extra { line += ",\"" + name + "\":" + value }
    return line + "}"
}

/// A number for JSON, which has no infinity or NaN: those (from absurd but finite readings
/// whose squares overflow) are written as null.
func jsonNumber(_ value: Double, decimals: Int) -> String {
    value.isFinite ? formatted(value, decimals: decimals) : "null"
}

private func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}
