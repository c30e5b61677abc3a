import PunchKit

// MARK: - Sampling

extension SessionPlan {
    /// The samples the sensor records: lazily, so a long session needs no memory.
    public var samples: SampledSession { SampledSession(plan: self) }
}

/// The samples of a session as the simulated sensor records them.
public struct SampledSession: Sequence, Sendable {
    /// The session being recorded.
    public let plan: SessionPlan

    /// Starts recording.
    public func makeIterator() -> Iterator { Iterator(plan: plan) }

    /// Produces one sample after another.
    public struct Iterator: IteratorProtocol {
        private let plan: SessionPlan
        private var random: SeededGenerator
        private var time = 0.0
        private var previous: Vector3?
        private let bias: Vector3

        init(plan: SessionPlan) {
            self.plan = plan
            random = SeededGenerator(seed: plan.seed ^ 0x5EED_5A3F_1E5)
            let b = plan.sensor.bias
            bias = Vector3(random.uniform(-b...b), random.uniform(-b...b), random.uniform(-b...b))
        }

        /// The next sample, or nil at the end of the session.
        public mutating func next() -> MotionSample? {
            let sensor = plan.sensor
            let nominal = 1 / sensor.rate
            repeat {
                time += nominal * (1 + random.uniform(-sensor.jitter...sensor.jitter))
            } while random.chance(sensor.dropProbability)
            guard time <= plan.duration else { return nil }

            let rotationRate = sensor.gyroscope ? plan.rotationRate(at: time) : nil
            if let held = previous, random.chance(sensor.holdProbability) {
                return MotionSample(time: time, acceleration: held, rotationRate: rotationRate)
            }
            var reading: Vector3
            if sensor.averages {
                reading = .zero
                let steps = 8
                for step in 0..<steps {
                    reading += plan.reading(at: time - nominal * Double(step) / Double(steps))
                }
                reading = reading / Double(steps)
            } else {
                reading = plan.reading(at: time)
            }
            reading += bias
            reading += Vector3(
                random.gaussian(deviation: sensor.noise), random.gaussian(deviation: sensor.noise),
                random.gaussian(deviation: sensor.noise))
            let range = sensor.range
            reading = Vector3(
                Swift.min(range, Swift.max(-range, reading.x)), Swift.min(range, Swift.max(-range, reading.y)),
                Swift.min(range, Swift.max(-range, reading.z)))
            previous = reading
            return MotionSample(time: time, acceleration: reading, rotationRate: rotationRate)
        }
    }
}

// MARK: - Random sessions

extension SensorSettings {
    /// Sensor settings drawn from what real recordings show: 25–400 Hz, jitter, held and lost
    /// samples, ranges of 4–16 g, noise and bias, some sensors low-passing.
    public static func random(using random: inout SeededGenerator) -> SensorSettings {
        var settings = SensorSettings()
        settings.rate = [25.0, 50, 60, 100, 200, 400].randomElement(using: &random) ?? 100
        settings.jitter = random.uniform(0...0.15)
        settings.holdProbability = random.chance(0.3) ? random.uniform(0...0.12) : 0
        settings.dropProbability = random.chance(0.3) ? random.uniform(0...0.03) : 0
        settings.range = random.chance(0.6) ? 8 : (random.chance(0.5) ? 16 : 4)
        settings.noise = random.uniform(0.003...0.04)
        settings.bias = random.uniform(0...0.04)
        settings.averages = random.chance(0.5)
        return settings
    }
}
