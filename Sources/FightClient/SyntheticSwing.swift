import FightProtocol

// MARK: - SyntheticSwing

/// A straight punch as a phone held upright records it, for programs that play without a sensor
/// (`hitthat-load`'s bots, tests): the server's detector finds in it a punch of about 4 × `peakG`
/// damage, as in a real swing.
public enum SyntheticSwing {
    /// Half a second still (the detector follows gravity from it), a thrust of 0.12 s along the
    /// device's x at 3 g, its stop at `peakG`, then 0.6 s still again (the detector confirms a
    /// punch once its strength has fallen); `rate` samples a second from `start` seconds, with a
    /// gyroscope reading a slow turn. Acceleration in m/s² with gravity on y, as `motion` carries it.
    public static func rows(peakG: Double, rate: Double = 100, from start: Double = 0) -> [MotionRow] {
        let g = 9.80665
        let count = Int((1.2 * rate).rounded())
        return (0..<count).map { index in
            let time = Double(index) / rate
            var x = 0.0
            if (0.5..<0.62).contains(time) { x = 3 * g }
            if (0.62..<0.66).contains(time) { x = -peakG * g }
            // A little of a hand's tremor, so that no reading repeats the one before (a held
            // reading is no new motion to the detector).
            let tremor = Double(index % 3) * 0.02
            return MotionRow(
                time: start + time, acceleration: SIMD3(x + tremor, 9.79, 0.2),
                rotationRate: SIMD3(0.4, Double(index % 4) * 0.1, 0.1))
        }
    }
}
