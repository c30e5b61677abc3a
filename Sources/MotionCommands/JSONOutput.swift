import Foundation
import PunchKit

// MARK: - Numbers at a fixed precision

/// A number written to JSON with at most `decimals` decimals, rounded as `formatted(_:decimals:)`
/// rounds for the tables; JSON has no infinity or NaN, so those (from absurd but finite readings
/// whose squares overflow) are written as null.
package struct RoundedNumber: Encodable {
    /// The number as measured.
    var value: Double
    /// How many decimals it is written with at the most (trailing zeros are not written).
    var decimals: Int

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        // Through the text, so that the JSON rounds exactly as the table does: the double nearest
        // the rounded text is written as that text.
        if value.isFinite, let rounded = Double(formatted(value, decimals: decimals)) {
            try container.encode(rounded)
        } else {
            try container.encodeNil()
        }
    }
}

// MARK: - A punch's line

/// One punch of `detect --json` and `listen --json`: one JSON object a line, with the fields the
/// README's "Output" table lists (`../shared/recordings/score.py` reads `t` and `type`).
package struct PunchLine: Encodable {
    /// Seconds since the first sample, at the punch.
    var t: RoundedNumber
    /// The punch's kind: `jab`, `uppercut` or `hook`.
    var type: String
    /// Hit points, as the detector reports them.
    var damage: Int
    /// The stop's peak, g.
    var peakG: RoundedNumber
    /// The hand's top speed, m/s.
    var speedMs: RoundedNumber
    /// The motion's angle above horizontal, degrees.
    var elevationDeg: RoundedNumber
    /// Whether an axis was at full scale at the peak.
    var clipped: Bool
    /// With a gyroscope: how far the device turned over the punch, degrees; left out without one.
    var turnDeg: RoundedNumber?
    /// With a gyroscope: the angle between that turn's axis and the vertical, degrees.
    var turnAxisDeg: RoundedNumber?
    /// `listen` only: from reading the frame that decided the punch to writing its line, ms.
    var latencyMs: RoundedNumber?
    /// Where a profile typed the punch: how sure it is, 0 to 1.
    var confidence: RoundedNumber?
    /// With `--features`: what the detector measured of the punch's motion.
    var features: FeaturesLine?

    enum CodingKeys: String, CodingKey {
        case t, type, damage
        case peakG = "peak_g"
        case speedMs = "speed_ms"
        case elevationDeg = "elevation_deg"
        case clipped
        case turnDeg = "turn_deg"
        case turnAxisDeg = "turn_axis_deg"
        case latencyMs = "latency_ms"
        case confidence, features
    }

    /// `punch`'s line; `origin` is the time of the trace's first sample.
    init(_ punch: Punch, since origin: Double, latencyMs: Double? = nil, features: Bool = false) {
        t = RoundedNumber(value: punch.time - origin, decimals: 4)
        type = punch.kind.rawValue
        damage = punch.damage
        peakG = RoundedNumber(value: punch.peakG, decimals: 3)
        speedMs = RoundedNumber(value: punch.speed, decimals: 2)
        elevationDeg = RoundedNumber(value: asin(max(-1, min(1, punch.rise))) * 180 / .pi, decimals: 1)
        clipped = punch.clipped
        // Both or neither: the axis has no meaning without the turn.
        if let turn = punch.turn, let axis = punch.turnAxisFromVertical {
            turnDeg = RoundedNumber(value: turn, decimals: 1)
            turnAxisDeg = RoundedNumber(value: axis, decimals: 1)
        }
        self.latencyMs = latencyMs.map { RoundedNumber(value: $0, decimals: 3) }
        confidence = punch.confidence.map { RoundedNumber(value: $0, decimals: 3) }
        if features { self.features = FeaturesLine(punch.features) }
    }
}

/// A punch's features in JSON (`PunchFeatures`): directions as `[x, y, z]`, device frame.
struct FeaturesLine: Encodable {
    var rise: RoundedNumber
    var stopWidth: RoundedNumber
    var bend: RoundedNumber
    var stop: [RoundedNumber]
    var thrust: [RoundedNumber]
    var up: [RoundedNumber]
    var turnDeg: RoundedNumber?
    var turnAxisDeg: RoundedNumber?
    var turnAxis: [RoundedNumber]?
    var sideways: RoundedNumber?

    enum CodingKeys: String, CodingKey {
        case rise, bend, stop, thrust, up, sideways
        case stopWidth = "stop_width"
        case turnDeg = "turn_deg"
        case turnAxisDeg = "turn_axis_deg"
        case turnAxis = "turn_axis"
    }

    init(_ features: PunchFeatures) {
        func number(_ value: Double) -> RoundedNumber { RoundedNumber(value: value, decimals: 4) }
        func vector(_ value: Vector3) -> [RoundedNumber] { [number(value.x), number(value.y), number(value.z)] }
        rise = number(features.rise)
        stopWidth = number(features.stopWidth)
        bend = number(features.bend)
        stop = vector(features.stopDirection)
        thrust = vector(features.thrustDirection)
        up = vector(features.up)
        turnDeg = features.turnDegrees.map(number)
        turnAxisDeg = features.turnAxisFromVertical.map(number)
        turnAxis = features.turnAxis.map(vector)
        sideways = features.sideways.map(number)
    }
}

// MARK: - Encoding

/// `value` as one line of JSON, slashes as they are. Keys are sorted: Foundation's encoder on
/// Linux writes an object's keys in no fixed order otherwise, and the same punch must give the
/// same line every time (a file and standard input are compared line by line).
package func jsonText(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // The types written here have no member that can fail to encode (non-finite numbers are null).
    guard let data = try? encoder.encode(value) else { preconditionFailure("unencodable JSON output") }
    return String(decoding: data, as: UTF8.self)
}
