import Foundation
import PunchKit

// MARK: - SensorSettings

/// How the simulated sensor samples the motion: the imperfections of real recordings.
public struct SensorSettings: Hashable, Sendable {
    /// Samples per second.
    public var rate: Double = 100
    /// Each interval varies by up to this fraction of the nominal one.
    public var jitter: Double = 0.05
    /// The chance that a sample repeats the previous reading (sample-and-hold).
    public var holdProbability: Double = 0
    /// The chance that a sample is lost.
    public var dropProbability: Double = 0
    /// The full-scale range in g; readings beyond it are clipped.
    public var range: Double = 8
    /// Standard deviation of the noise on each axis, in g.
    public var noise: Double = 0.01
    /// A constant error on each axis, at most this many g.
    public var bias: Double = 0
    /// Whether each sample averages the motion since the previous one (a low-pass before sampling).
    public var averages: Bool = false
    /// Whether gravity is part of the reading (a phone's "acceleration with g").
    public var includesGravity: Bool = true
    /// Whether the sensor records its rotation rate too (a gyroscope), exact and noiseless: the
    /// turns of the grip's wobble and of the wrist's twist.
    public var gyroscope: Bool = false

    /// Creates the settings of an ideal 100 Hz sensor with an 8 g range.
    public init() {}
}

// MARK: - SessionPlan

/// A simulated boxing session: a device held in some grip, idle motion, and a list of punches
/// with their true start, stop and kind.
public struct SessionPlan: Sendable {
    /// The punches thrown, in order, as ground truth.
    public var labels: [PunchLabel] { punches.map(\.label) }
    /// How long the session lasts, in seconds.
    public var duration: Double
    /// The sensor that records it.
    public var sensor: SensorSettings
    /// The hand holding the device.
    public var hand: Hand
    /// The seed everything random about the session came from.
    public let seed: UInt64

    struct PlannedPunch: Sendable {
        var label: PunchLabel
        var strokes: [Stroke]
        /// The wrist's turn during the punch: about `twistAxis` by up to `twist` radians.
        var twistAxis: Vector3
        var twist: Double
    }

    var punches: [PlannedPunch]
    /// Motions that are not punches: reaches, fidgets, bumps.
    var distractions: [Stroke]
    var grip: Rotation
    var sway: [(direction: Vector3, amplitude: Double, frequency: Double, phase: Double)]
    var wobbleAxis: Vector3
    var wobble: (amplitude: Double, frequency: Double)

    /// Plans a session of `punchCount` punches drawn from `kinds`, in a random grip.
    ///
    /// - Parameters:
    ///   - seed: where all randomness comes from.
    ///   - punchCount: how many punches.
    ///   - kinds: the kinds to draw from, evenly.
    ///   - hand: the hand that punches (hooks curve its way).
    ///   - sensor: the recording's imperfections.
    ///   - grip: the device's orientation in the hand; random when nil.
    ///   - force: scales every punch's speed (1 is an ordinary punch).
    ///   - distractions: whether non-punch motions (reaches, bumps) happen between punches.
    public init(
        seed: UInt64, punchCount: Int = 12, kinds: [PunchKind] = [.jab, .uppercut], hand: Hand = .right,
        sensor: SensorSettings = SensorSettings(), grip: Rotation? = nil, force: Double = 1,
        distractions: Bool = true
    ) {
        var random = SeededGenerator(seed: seed)
        self.seed = seed
        self.sensor = sensor
        self.hand = hand
        self.grip = grip ?? Rotation.random(using: &random)
        let swayLevel = random.uniform(0.2...2.5)
        self.sway = (0..<4).map { _ in
            (
                Vector3(random.gaussian(), random.gaussian(), random.gaussian() * 0.6).normalized,
                random.uniform(0.2...1) * swayLevel, random.uniform(0.3...2.5), random.uniform(0...(2 * .pi))
            )
        }
        self.wobbleAxis = Vector3(random.gaussian(), random.gaussian(), random.gaussian()).normalized
        self.wobble = (random.uniform(0...0.35), random.uniform(0.05...0.3))

        let mirror = hand == .right ? 1.0 : -1.0
        var clock = random.uniform(0.8...2.0)
        var punches: [PlannedPunch] = []
        var distractionStrokes: [Stroke] = []
        for _ in 0..<punchCount {
            let kind = kinds.randomElement(using: &random) ?? .jab
            let punch = Self.plan(kind, at: clock, mirror: mirror, force: force, random: &random)
            punches.append(punch)
            let finished = punch.strokes.map(\.end).max() ?? clock
            if random.chance(0.2) {
                clock = finished + random.uniform(0.08...0.25)  // a combination: straight on
            } else {
                clock = finished + random.uniform(0.4...1.6)
                if distractions && random.chance(0.3) {
                    distractionStrokes.append(Self.distraction(at: finished + 0.15, random: &random))
                    clock += 1.0
                }
            }
        }
        self.punches = punches
        self.distractions = distractionStrokes
        self.duration = clock + random.uniform(0.5...1.5)
    }

    // MARK: - Punches

    private static func plan(
        _ kind: PunchKind, at start: Double, mirror: Double, force: Double, random: inout SeededGenerator
    ) -> PlannedPunch {
        let up = Vector3(0, 0, 1)
        let yaw = random.uniform(-0.35...0.35)
        let speed = random.uniform(2.5...6.5) * force * random.uniform(0.7...1.2)
        var strokes: [Stroke] = []
        var clock = start
        let direction: Vector3
        let thrust: Stroke
        // How the wrist turns: about an axis by an angle, over the punch. A swing turns the
        // device with the forearm, by the angle the arc sweeps.
        var twistAxis: Vector3
        var twist: Double
        let forward = Vector3(cos(yaw), sin(yaw) * mirror, 0)
        switch kind {
        case .uppercut where random.chance(0.6):
            // The forearm swings up about the elbow: an arc in the vertical plane, turning
            // from forward-up toward straight up.
            let swingAxis = forward.cross(up)
            let startElevation = random.uniform(0.7...1.2)
            let sweep = random.uniform(0.5...1.1)
            let tangent = rotate(forward, about: swingAxis, by: startElevation)
            thrust = arcStroke(
                tangent: tangent, axis: swingAxis, sweep: sweep, speed: speed, start: clock,
                stopping: uppercutStop(&random), random: &random)
            direction = rotate(tangent, about: swingAxis, by: sweep / 2)
            twistAxis = swingAxis
            twist = sweep
        case .jab, .uppercut:
            let elevation = kind == .jab ? random.uniform(-0.1...0.35) : random.uniform(0.9...1.45)
            direction = forward * cos(elevation) + up * sin(elevation)
            if random.chance(0.4) {
                // A small draw-back before the thrust; an uppercut dips first.
                let windup = Stroke(
                    path: .line(kind == .jab ? -direction : -up), start: clock,
                    topSpeed: random.uniform(0.2...0.6), accelerating: 0.06, cruising: 0, stopping: 0.06)
                strokes.append(windup)
                clock = windup.stopStart + 0.03
            }
            thrust = Stroke(
                path: .line(direction), start: clock, topSpeed: speed,
                accelerating: random.uniform(0.09...0.2), cruising: random.uniform(0...0.03),
                stopping: kind == .jab ? random.uniform(0.03...0.08) : uppercutStop(&random))
            // A jab corkscrews about its own line; a straight uppercut's forearm turns up.
            twistAxis = kind == .jab ? direction : up.cross(direction).normalized
            twist = kind == .jab ? random.uniform(-1.4...1.4) : -random.uniform(0...1.2)
        case .hook:
            // The arm swings about the shoulder: a level arc, the device turning with it.
            let sweep = random.uniform(1.3...1.9)
            let tangent = rotate(forward, about: up, by: -mirror * sweep * random.uniform(0.2...0.4))
            let axis = up * mirror
            thrust = arcStroke(
                tangent: tangent, axis: axis, sweep: sweep, speed: speed, start: clock,
                stopping: random.uniform(0.04...0.1), random: &random)
            direction = rotate(tangent, about: axis, by: sweep)
            twistAxis = axis
            twist = sweep * random.uniform(0.6...1)
        }
        strokes.append(thrust)
        let retraction = Stroke(
            path: .line(-direction), start: thrust.end + random.uniform(0.03...0.12),
            topSpeed: speed * random.uniform(0.3...0.7), accelerating: random.uniform(0.12...0.25),
            cruising: 0, stopping: random.uniform(0.08...0.2))
        strokes.append(retraction)
        return PlannedPunch(
            label: PunchLabel(start: strokes[0].start, end: thrust.end, kind: kind),
            strokes: strokes, twistAxis: twistAxis, twist: twist)
    }

    /// How long an uppercut's stop lasts, in seconds. Nothing locks the elbow at the top of an
    /// uppercut: the muscles stop the fist, over 0.15–0.26 s in real recordings (a jab's lockout
    /// takes 0.03–0.1 s).
    private static func uppercutStop(_ random: inout SeededGenerator) -> Double {
        random.uniform(0.15...0.26)
    }

    /// A stroke along an arc of `sweep` radians about `axis`, timed like a straight punch but for
    /// its `stopping` time: the radius is what lets the hand cover the sweep in that time.
    private static func arcStroke(
        tangent: Vector3, axis: Vector3, sweep: Double, speed: Double, start: Double, stopping: Double,
        random: inout SeededGenerator
    ) -> Stroke {
        let accelerating = random.uniform(0.09...0.2)
        let cruise = random.uniform(0...0.03)
        // Distance covered is V·(accelerating / 2 + cruising + stopping / 2).
        let distance = speed * (accelerating / 2 + cruise + stopping / 2)
        return Stroke(
            path: .arc(tangent: tangent, up: axis, radius: distance / sweep, turn: 1), start: start,
            topSpeed: speed, accelerating: accelerating, cruising: cruise, stopping: stopping)
    }

    private static func distraction(at start: Double, random: inout SeededGenerator) -> Stroke {
        let direction = Vector3(random.gaussian(), random.gaussian(), random.gaussian()).normalized
        if random.chance(0.5) {
            // A slow reach or a fidget: too gentle to be a punch.
            let slow = random.uniform(0.2...0.4)
            return Stroke(
                path: .line(direction), start: start, topSpeed: random.uniform(0.4...1.2),
                accelerating: slow, cruising: 0, stopping: slow)
        }
        // A bump: a sharp jolt with no thrust before it.
        return Stroke(
            path: .line(direction), start: start, topSpeed: random.uniform(0.05...0.15),
            accelerating: 0.006, cruising: 0, stopping: 0.006)
    }

    // MARK: - Motion

    /// What the sensor feels at time `t`, in g, device frame, before sampling effects.
    func reading(at t: Double) -> Vector3 {
        var acceleration = Vector3.zero
        for item in sway {
            acceleration += item.direction * (item.amplitude * sin(2 * .pi * item.frequency * t + item.phase))
        }
        if let stroke = latest(of: distractions, startingBy: t, start: \.start) {
            acceleration += stroke.acceleration(at: t)
        }
        if let punch = activePunch(at: t) {
            for stroke in punch.strokes { acceleration += stroke.acceleration(at: t) }
        }
        var felt = acceleration / standardGravity
        if sensor.includesGravity { felt += Vector3(0, 0, 1) }
        return orientation(at: t).deviceFrame(of: felt)
    }

    /// The device's orientation at time `t`: the grip, its wobble, and the wrist's twist during
    /// a punch.
    func orientation(at t: Double) -> Rotation {
        let held = grip.turned(
            by: Rotation(axis: wobbleAxis, angle: wobble.amplitude * sin(2 * .pi * wobble.frequency * t)))
        guard let punch = activePunch(at: t) else { return held }
        return held.turned(by: Rotation(axis: punch.twistAxis, angle: twistAngle(punch, at: t)))
    }

    /// What a gyroscope reads at time `t`: the device's rotation rate, in rad/s, device frame
    /// (right-handed). A world-fixed vector seen from the device turns by −ω: from the
    /// orientations a moment either side, the change they make to the device's view of the world.
    func rotationRate(at t: Double) -> Vector3 {
        let step = 1e-5
        let before = orientation(at: t - step)
        let after = orientation(at: t + step)
        // The change of view: after · beforeᵀ, as the images of the device's axes at `t − step`.
        let turn = [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)].map {
            after.deviceFrame(of: before.worldFrame(of: $0))
        }
        // For a small turn by −ω·2·step, the matrix is I − [ω]ₓ·2·step; its skew part gives ω.
        let skew = Vector3(turn[1].z - turn[2].y, turn[2].x - turn[0].z, turn[0].y - turn[1].x)
        return skew * (-1 / (4 * step))
    }

    private func activePunch(at t: Double) -> PlannedPunch? {
        guard let candidate = latest(of: punches, startingBy: t, start: \.label.start) else { return nil }
        return t < (candidate.strokes.last?.end ?? candidate.label.end) ? candidate : nil
    }

    /// The wrist turns during the thrust and turns back during the retraction.
    private func twistAngle(_ punch: PlannedPunch, at t: Double) -> Double {
        let begin = punch.label.start
        let out = punch.label.end
        let back = punch.strokes.last?.end ?? out
        let progress: Double
        if t < out {
            progress = (t - begin) / max(out - begin, 1e-6)
        } else {
            progress = 1 - (t - out) / max(back - out, 1e-6)
        }
        let clamped = min(1, max(0, progress))
        return punch.twist * clamped * clamped * (3 - 2 * clamped)
    }
}

/// The last of `items` (in order of `start`) that starts no later than `t`: a binary search, so a
/// long session costs the same per sample as a short one.
func latest<Item>(of items: [Item], startingBy t: Double, start: (Item) -> Double) -> Item? {
    var low = 0
    var high = items.count
    while low < high {
        let mid = (low + high) / 2
        if start(items[mid]) <= t { low = mid + 1 } else { high = mid }
    }
    return low > 0 ? items[low - 1] : nil
}
