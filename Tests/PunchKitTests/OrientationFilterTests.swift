import Testing

@testable import PunchKit

/// The orientation filter on turns whose answer is known.
@Suite struct OrientationFilterTests {
    /// Feeds `filter` a device turning at `rate` (rad/s, device frame) for `duration` seconds at
    /// `hertz`, its accelerometer reading `reading` throughout.
    func turn(
        _ filter: inout OrientationFilter, rate: Vector3, for duration: Double, at hertz: Double,
        reading: Vector3 = Vector3(0, 0, 3)
    ) {
        for _ in 0..<Int((duration * hertz).rounded()) {
            filter.update(reading: reading, rotationRate: rate, interval: 1 / hertz)
        }
    }

    func degrees(between a: Vector3, _ b: Vector3) -> Double {
        arcCosine(a.normalized.dot(b.normalized)) * 180 / Double.pi
    }

    /// A filter seeded level, device z up, that the accelerometer does not correct.
    func uncorrected() -> OrientationFilter {
        var filter = OrientationFilter(correctionTime: .infinity, calmTolerance: 0.1)
        filter.warmUp = 0
        filter.update(reading: Vector3(0, 0, 1), rotationRate: .zero, interval: 0)
        return filter
    }

    /// A device turning a quarter turn about its own x axis (right-handed) sees up, fixed in
    /// the world, turn a quarter turn the other way: from +z to +y.
    @Test(arguments: [25.0, 100, 400])
    func aConstantTurnMovesUpTheOtherWay(hertz: Double) {
        var filter = uncorrected()
        turn(&filter, rate: Vector3(Double.pi / 2, 0, 0), for: 1, at: hertz)
        #expect(degrees(between: filter.up, Vector3(0, 1, 0)) < 0.01)
    }

    @Test func aTurnAndBackEndsWhereItBegan() {
        var filter = uncorrected()
        let rate = Vector3(1, -2, 0.5)
        turn(&filter, rate: rate, for: 0.7, at: 100)
        #expect(degrees(between: filter.up, Vector3(0, 0, 1)) > 30)
        turn(&filter, rate: rate * -1, for: 0.7, at: 100)
        #expect(degrees(between: filter.up, Vector3(0, 0, 1)) < 0.01)
    }

    /// A swing at 1,000 °/s for 0.12 s, 120° about the device's y axis: exact at 25 Hz as at
    /// 400 Hz, three samples or forty-eight, since each step turns by its whole angle.
    @Test(arguments: [25.0, 400])
    func aThousandDegreeASecondSwingIsFollowedAtAnyRate(hertz: Double) {
        var filter = uncorrected()
        turn(&filter, rate: Vector3(0, 1000 * Double.pi / 180, 0), for: 0.12, at: hertz)
        // Up turns −120° about y: from +z towards −x.
        let angle = -120 * Double.pi / 180
        let expected = Vector3(sinSeries(angle), 0, cosSeries(angle))
        #expect(degrees(between: filter.up, expected) < 0.01)
    }

    /// A gyroscope reading 3 °/s at rest drifts a gyroscope-only up by 60° in 20 s; the
    /// accelerometer's correction holds it within a few degrees (bias × correction time).
    @Test func theAccelerometerHoldsUpAgainstAGyroscopesBias() {
        let bias = Vector3(3 * Double.pi / 180, 0, 0)
        var corrected = OrientationFilter()
        corrected.update(reading: Vector3(0, 0, 1), rotationRate: .zero, interval: 0)
        turn(&corrected, rate: bias, for: 20, at: 100, reading: Vector3(0, 0, 1))
        #expect(degrees(between: corrected.up, Vector3(0, 0, 1)) < 4)
        var drifting = uncorrected()
        turn(&drifting, rate: bias, for: 20, at: 100, reading: Vector3(0, 0, 1))
        #expect(degrees(between: drifting.up, Vector3(0, 0, 1)) > 55)
    }

    /// Seeded mid-swing, a filter finds up while it warms up, though no reading is calm (someone
    /// boxing reads 0.75–1.3 g between punches); once warm, such readings no longer correct it.
    @Test func aFilterSeededMidSwingFindsUpWhileItWarmsUp() {
        var filter = OrientationFilter(correctionTime: 1, calmTolerance: 0.1)
        filter.update(reading: Vector3(1.2, 0, 0.6), rotationRate: .zero, interval: 0)
        #expect(degrees(between: filter.up, Vector3(0, 0, 1)) > 60)
        for index in 0..<150 {
            let reading = Vector3(0, 0, index % 2 == 0 ? 1.3 : 0.75)
            filter.update(reading: reading, rotationRate: .zero, interval: 0.01)
        }
        #expect(degrees(between: filter.up, Vector3(0, 0, 1)) < 5, "1.5 s in")
        turn(&filter, rate: .zero, for: 1, at: 100, reading: Vector3(0, 0, 1))
        turn(&filter, rate: .zero, for: 1, at: 100, reading: Vector3(1.3, 0, 0))
        #expect(degrees(between: filter.up, Vector3(0, 0, 1)) < 1, "warm: 1.3 g is no gravity")
    }

    /// A punch's several g say nothing of gravity: they do not pull up off its course.
    @Test func aReadingFarFromOneGDoesNotCorrect() {
        var filter = OrientationFilter(correctionTime: 0.01, calmTolerance: 0.1)
        filter.update(reading: Vector3(0, 0, 1), rotationRate: .zero, interval: 0)
        turn(&filter, rate: .zero, for: 0.5, at: 100, reading: Vector3(3, 0, 0))
        #expect(degrees(between: filter.up, Vector3(0, 0, 1)) < 0.01)
        turn(&filter, rate: .zero, for: 0.5, at: 100, reading: Vector3(1, 0, 0))
        #expect(degrees(between: filter.up, Vector3(1, 0, 0)) < 1)
    }

    @Test func theSeriesAgreeWithTheirFunctions() {
        for angle in stride(from: -7.0, through: 7.0, by: 0.37) {
            let sine = sinSeries(angle)
            let cosine = cosSeries(angle)
            #expect(abs(sine * sine + cosine * cosine - 1) < 1e-12)
            #expect(abs(arcCosine(cosine) - abs(angle - (angle / (2 * Double.pi)).rounded() * 2 * Double.pi)) < 1e-9)
        }
        #expect(abs(sinSeries(Double.pi / 6) - 0.5) < 1e-15)
    }
}
