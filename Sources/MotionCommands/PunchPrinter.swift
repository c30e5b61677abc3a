import Foundation
import PunchKit

// MARK: - PunchPrinter

/// Writes punches to standard output as a table or as JSON lines, flushing each one at once so
/// that a pipe sees it while the trace is still streaming; or, for a recording read as fast as
/// it can be, gathering them into writes of `heldBytes`, where a write a line cost more than
/// the rest of writing it.
package struct PunchPrinter {
    let json: Bool
    /// Whether the table has `listen`'s latency column.
    let showsLatency: Bool
    /// Whether a JSON line carries the punch's features.
    let showsFeatures: Bool
    /// Whether lines are held until `heldBytes` of them, or `flush()`, rather than written at once.
    let holdsLines: Bool
    private var wroteHeader = false
    private var held = ""

    /// How many bytes of lines are held before they are written.
    static let heldBytes = 1 << 16

    init(json: Bool, showsLatency: Bool = false, showsFeatures: Bool = false, holdsLines: Bool = false) {
        self.json = json
        self.showsLatency = showsLatency
        self.showsFeatures = showsFeatures
        self.holdsLines = holdsLines
    }

    /// Writes the lines held.
    mutating func flush() {
        guard !held.isEmpty else { return }
        writeAll(held, to: STDOUT_FILENO)
        held.removeAll(keepingCapacity: true)
    }

    /// Writes one punch; `origin` is the time of the trace's first sample, `latencyMs` `listen`'s
    /// latency.
    mutating func write(_ punch: Punch, since origin: Double, latencyMs: Double? = nil) {
        if json {
            emit(PunchLine(punch, since: origin, latencyMs: latencyMs, features: showsFeatures).jsonLine)
            return
        }
        if !wroteHeader {
            emit("  time (s)  type      damage  peak (g)  speed (m/s)" + (showsLatency ? "  latency (ms)" : ""))
            wroteHeader = true
        }
        var row = padded(formatted(punch.time - origin, decimals: 3), 10)
        row += "  " + punch.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        row += padded(String(punch.damage), 8)
        row += padded(formatted(punch.peakG, decimals: 2) + (punch.clipped ? "+" : ""), 10)
        row += padded(formatted(punch.speed, decimals: 1), 13)
        if let latencyMs { row += "  " + formatted(latencyMs, decimals: 3) }
        emit(row)
    }

    private mutating func emit(_ line: String) {
        guard holdsLines else { return writeLine(line, to: STDOUT_FILENO) }
        held += line
        held += "\n"
        if held.utf8.count >= Self.heldBytes { flush() }
    }
}

private func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}
