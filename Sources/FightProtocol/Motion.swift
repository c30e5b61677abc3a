import FightEngine
import Foundation

// MARK: - MotionBatch

/// The body of `motion`: a batch of a sensor's raw samples, streamed while the player holds the
/// punch button (a "hold"), for the server's detector to find the punch in.
///
/// Each row is checked as it is decoded (its width, its numbers finite and within a sensor's
/// range), so that a batch that decodes holds only readings a sensor can have made; what takes
/// the hold's earlier batches to check (time going on, the rate, the hold's length) the server
/// checks as it feeds the hold.
public struct MotionBatch: Hashable, Sendable {
    /// The fight.
    public var fight: FightID
    /// The last sequence of the fight the client has seen, as for a punch: a batch thrown at an
    /// older one is `stale`.
    public var after: Int
    /// The client's number for this hold of the button: a new number starts a new hold, read by
    /// a fresh detector.
    public var hold: Int
    /// The samples, oldest first; every row of a hold has the same width.
    public var samples: [MotionRow]
    /// Whether this is the hold's last batch (the button was released).
    public var final: Bool
    /// When the button was pressed, on the samples' clock, if the hold begins with a lead-in: the
    /// samples before it (at most `MotionLimits.leadSeconds`) are read, but a punch is found only
    /// from it on. The server reads it from the hold's first batch.
    public var pressed: Double?

    /// Creates a batch.
    public init(
        fight: FightID, after: Int, hold: Int, samples: [MotionRow], final: Bool = false, pressed: Double? = nil
    ) {
        self.fight = fight
        self.after = after
        self.hold = hold
        self.samples = samples
        self.final = final
        self.pressed = pressed
    }
}

// MARK: - MotionRow

/// One sample of a `motion` batch, on the wire `[t, ax, ay, az]` or `[t, ax, ay, az, gx, gy, gz]`:
/// in the units a phone's browser gives (`DeviceMotionEvent`) and phone recordings export.
public struct MotionRow: Hashable, Sendable {
    /// Seconds on the client's own clock: any origin, increasing.
    public var time: Double
    /// The acceleration in m/s², gravity included, about the device's x, y and z.
    public var acceleration: SIMD3<Double>
    /// The rotation rate in °/s about the device's x, y and z (`rotationRate`'s `alpha`, `beta`
    /// and `gamma`), when the client has a gyroscope.
    public var rotationRate: SIMD3<Double>?

    /// Creates a row.
    public init(time: Double, acceleration: SIMD3<Double>, rotationRate: SIMD3<Double>? = nil) {
        self.time = time
        self.acceleration = acceleration
        self.rotationRate = rotationRate
    }

    /// How many numbers the row has on the wire: 4, or 7 with a gyroscope.
    public var width: Int { rotationRate == nil ? 4 : 7 }
}

// MARK: - MotionLimits

/// What the server takes of a sensor's motion: each a bound a real sensor stays within, so that a
/// batch beyond one is a client's mistake or mischief, refused with a typed error.
public enum MotionLimits {
    /// The most rows in one batch: 0.3 s at the fastest rate, for batches sent every 50–100 ms.
    public static let samplesPerBatch = 64
    /// The fastest sample rate taken, in hertz (by the rows' own times): a phone's browser gives
    /// 60 Hz, recordings 25–200 Hz.
    public static let maximumRate = 200.0
    /// How many intervals in a row the rate is measured over: a single short interval is a
    /// jittery timestamp, not a rate.
    public static let rateWindow = 10
    /// The share of `rateWindow` intervals at `maximumRate` that those intervals must span at the
    /// least: 10 intervals within 45 ms is more than 200 Hz whatever the jitter.
    public static let rateTolerance = 0.9
    /// The longest hold, in seconds of the samples' own times (from the press, or the first
    /// sample without one, to the last): a swing takes one.
    public static let holdSeconds = 5.0
    /// The longest lead-in before the press, in seconds: enough for the detector to know which
    /// way is up and what the arm was doing, as it does a little way into a recording.
    public static let leadSeconds = 2.0
    /// The largest acceleration on any axis, in m/s²: 400 g (standard gravity, 9.80665 m/s², a
    /// g), the widest full scale of the MEMS accelerometers made for phones, watches and
    /// controllers (ST's H3LIS331DL reads ±400 g, the ±320 g high-g channel of its LSM6DSV320X
    /// is meant for phones and wearables). A phone in the hand passes the common ±16 g in a hard
    /// punch, so only what no such sensor can report is refused.
    public static let acceleration = 400 * standardGravity
    /// Standard gravity, m/s² a g.
    static let standardGravity = 9.80665
    /// The largest rotation rate on any axis, in °/s: the widest gyroscopes' full scale.
    public static let rotationRate = 4000.0
}

extension MotionRow {
    /// Reads a row as the wire has it, checking what one row can show: 4 or 7 finite numbers,
    /// each axis within a sensor's range. `index` is the row's place in the batch, for the message.
    init(wire values: [Double], index: Int) throws(ProtocolError) {
        func refuse(_ expected: String, got: String) -> ProtocolError {
            ProtocolError(.invalid, "samples[\(index)]: expected \(expected), got \(got)", field: "samples")
        }
        guard values.count == 4 || values.count == 7 else {
            throw refuse("[t, ax, ay, az] or [t, ax, ay, az, gx, gy, gz]", got: "\(values.count) numbers")
        }
        for (column, value) in values.enumerated() where !value.isFinite {
            throw refuse("finite numbers", got: "\(value) in column \(column)")
        }
        let acceleration = SIMD3(values[1], values[2], values[3])
        for value in [acceleration.x, acceleration.y, acceleration.z] where abs(value) > MotionLimits.acceleration {
            let g = Int((abs(value) / MotionLimits.standardGravity).rounded())
            throw refuse(
                "each acceleration within ±\(MotionLimits.acceleration) m/s² "
                    + "(400 g: no phone, watch or controller reads more; a hard punch reads under 30 g)",
                got: "\(value) m/s² (\(g) g, not a swing's)")
        }
        var rotationRate: SIMD3<Double>?
        if values.count == 7 {
            let rate = SIMD3(values[4], values[5], values[6])
            for value in [rate.x, rate.y, rate.z] where abs(value) > MotionLimits.rotationRate {
                throw refuse(
                    "each rotation rate within ±\(Int(MotionLimits.rotationRate)) °/s (a gyroscope's widest range)",
                    got: "\(value) °/s")
            }
            rotationRate = rate
        }
        self.init(time: values[0], acceleration: acceleration, rotationRate: rotationRate)
    }

    /// The row as the wire has it.
    var wire: [Double] {
        var values = [time, acceleration.x, acceleration.y, acceleration.z]
        if let rotationRate { values += [rotationRate.x, rotationRate.y, rotationRate.z] }
        return values
    }
}

extension MotionBatch: Codable {
    enum CodingKeys: String, CodingKey { case fight, after }

    /// Decodes the batch and every row (see `HoldBatchFields`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fight = try container.decode(FightID.self, forKey: .fight)
        after = try container.decode(Int.self, forKey: .after)
        let fields = try HoldBatchFields(from: decoder)
        (hold, samples, final, pressed) = (fields.hold, fields.samples, fields.final, fields.pressed)
    }

    /// Encodes the batch with each row as the wire's array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fight, forKey: .fight)
        try container.encode(after, forKey: .after)
        try HoldBatchFields(hold: hold, samples: samples, final: final, pressed: pressed).encode(to: encoder)
    }
}

/// The fields every batch of a hold has, `motion`'s and `teachMotion`'s alike: the hold's number,
/// its rows, whether it is the last batch, and the press.
struct HoldBatchFields: Codable {
    var hold: Int
    var samples: [MotionRow]
    var final: Bool
    var pressed: Double?

    enum CodingKeys: String, CodingKey { case hold, samples, final, pressed }

    init(hold: Int, samples: [MotionRow], final: Bool, pressed: Double?) {
        (self.hold, self.samples, self.final, self.pressed) = (hold, samples, final, pressed)
    }

    /// Decodes the fields and every row (see `MotionRow`), refusing (field `samples`) as `tooLarge`
    /// a batch of more than `MotionLimits.samplesPerBatch` rows, and as `invalid` a row that is not
    /// 4 or 7 finite numbers within a sensor's range, and rows of two widths.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hold = try container.decode(Int.self, forKey: .hold)
        final = try container.decodeIfPresent(Bool.self, forKey: .final) ?? false
        pressed = try container.decodePressed(forKey: .pressed)
        samples = try container.decodeMotionRows(forKey: .samples)
    }

    /// Encodes the fields with each row as the wire's array.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hold, forKey: .hold)
        try container.encode(samples.map(\.wire), forKey: .samples)
        try container.encode(final, forKey: .final)
        try container.encodeIfPresent(pressed, forKey: .pressed)
    }
}

extension KeyedDecodingContainer {
    /// A hold's `pressed`, if given: a null (what JavaScript writes for NaN) is refused by name,
    /// not taken as no press.
    func decodePressed(forKey key: Key) throws -> Double? {
        if contains(key), try decodeNil(forKey: key) {
            throw ProtocolError(
                .invalid, "\(key.stringValue): expected a time in seconds, got null", field: key.stringValue)
        }
        return try decodeIfPresent(Double.self, forKey: key)
    }

    /// A hold's rows (`samples`), each checked as `MotionRow` reads it: refused (field `samples`)
    /// as `tooLarge` past `MotionLimits.samplesPerBatch` rows, as `invalid` for a row that is not
    /// 4 or 7 finite numbers within a sensor's range, or rows of two widths.
    func decodeMotionRows(forKey key: Key) throws -> [MotionRow] {
        var rows = try nestedUnkeyedContainer(forKey: key)
        if let count = rows.count, count > MotionLimits.samplesPerBatch {
            throw ProtocolError(
                .tooLarge, "samples: expected at most \(MotionLimits.samplesPerBatch) rows a batch, got \(count)",
                field: "samples")
        }
        var samples: [MotionRow] = []
        while !rows.isAtEnd {
            let index = samples.count
            // A null (what JavaScript writes for NaN and infinities) is refused by name.
            guard let values = try? rows.decode([Double?].self) else {
                throw ProtocolError(
                    .invalid, "samples[\(index)]: expected an array of numbers", field: "samples")
            }
            let numbers = try values.map { value throws(ProtocolError) -> Double in
                guard let value else {
                    throw ProtocolError(
                        .invalid, "samples[\(index)]: expected finite numbers, got null", field: "samples")
                }
                return value
            }
            let row = try MotionRow(wire: numbers, index: index)
            if let first = samples.first, first.width != row.width {
                throw ProtocolError(
                    .invalid, "samples[\(index)]: expected \(first.width) numbers as in the first row, got \(row.width)",
                    field: "samples")
            }
            samples.append(row)
        }
        return samples
    }
}

extension MotionBatch {
    /// The fight and hold a `motion` message names, whatever else in it is wrong (its rows do not
    /// decode): a batch refused as it was decoded ends its hold too.
    public static func readableHold(in text: String) -> (fight: FightID, hold: Int)? {
        guard text.utf8.count <= ProtocolLimits.maxMessageBytes else { return nil }
        struct Envelope: Decodable {
            var type: String
            var fight: FightID
            var hold: Int
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(text.utf8)),
            envelope.type == ClientRequest.Kind.motion.rawValue
        else { return nil }
        return (envelope.fight, envelope.hold)
    }
}

// MARK: - HoldEnded

/// The body of `holdEnded`: a hold's last batch came and the detector found no punch in it.
/// Nothing landed; the turn goes on.
public struct HoldEnded: Hashable, Sendable, Codable {
    /// The fight.
    public var fight: FightID
    /// The client's number of the hold.
    public var hold: Int
    /// How many samples the hold had, its lead-in included.
    public var samples: Int
    /// How long its samples span, in seconds of their own times (first to last, from the
    /// lead-in's first).
    public var seconds: Double

    /// Creates the message.
    public init(fight: FightID, hold: Int, samples: Int, seconds: Double) {
        self.fight = fight
        self.hold = hold
        self.samples = samples
        self.seconds = seconds
    }
}
