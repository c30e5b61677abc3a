import FightEngine
import Foundation
import Testing

@Suite struct GeoTests {
    let radius = Coordinate.earthRadiusKm
    /// Half the Earth's circumference on the mean sphere: π · 6371.0088 km.
    var halfCircumference: Double { Double.pi * radius }
    /// One degree of a great circle.
    var oneDegree: Double { Double.pi * radius / 180 }

    func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        Coordinate(latitude: lat1, longitude: lon1).distanceKm(to: Coordinate(latitude: lat2, longitude: lon2))
    }

    @Test func parisToLondon() {
        // Notre-Dame area to Charing Cross: the well-known ≈ 343.5 km great-circle figure.
        #expect(abs(distance(48.8566, 2.3522, 51.5074, -0.1278) - 343.5) < 0.1)
    }

    @Test func antipodesAreHalfACircumferenceApart() {
        #expect(abs(distance(0, 0, 0, 180) - halfCircumference) < 1e-6)
        // Off the equator the antipode's longitude is rounded, and asin is steep near 1, so
        // allow a metre.
        #expect(abs(distance(48.8566, 2.3522, -48.8566, -177.6478) - halfCircumference) < 1e-3)
    }

    @Test func acrossTheAntimeridian() {
        // 179.5° E to 179.5° W on the equator is one degree, not 359.
        #expect(abs(distance(0, 179.5, 0, -179.5) - oneDegree) < 1e-6)
    }

    @Test func poles() {
        #expect(abs(distance(90, 0, -90, 0) - halfCircumference) < 1e-6)
        // At a pole every longitude is the same point.
        #expect(distance(90, 0, 90, 123) < 1e-9)
        // 89° N on opposite meridians: across the pole, two degrees.
        #expect(abs(distance(89, 0, 89, 180) - 2 * oneDegree) < 1e-6)
    }

    @Test func symmetricAndZeroOnItself() {
        #expect(distance(10, 20, 30, 40) == distance(30, 40, 10, 20))
        #expect(distance(-33.8688, 151.2093, -33.8688, 151.2093) == 0)
    }

    /// Every point within the radius falls in one of the covering boxes, near the poles and the
    /// antimeridian too, and the boxes never cross the antimeridian themselves.
    @Test(arguments: [0.5, 50, 800, 5000])
    func boxesCoverTheCircle(radiusKm: Double) {
        var random = SeededRandom(seed: 7)
        let centers =
            [
                Coordinate(latitude: 0, longitude: 179.99), Coordinate(latitude: 0, longitude: -179.99),
                Coordinate(latitude: 89.9, longitude: 10), Coordinate(latitude: -89.99, longitude: -170),
                Coordinate(latitude: 48.85, longitude: 2.35),
            ]
            + (0..<20).map { _ in
                Coordinate(
                    latitude: Double.random(in: -90...90, using: &random),
                    longitude: Double.random(in: -180...180, using: &random))
            }
        for center in centers {
            let boxes = GeoBox.covering(radiusKm: radiusKm, around: center)
            #expect(
                boxes.allSatisfy {
                    $0.minLongitude <= $0.maxLongitude && $0.minLongitude >= -180 && $0.maxLongitude <= 180
                })
            // Points inside and on the circle: a random bearing, a random share of the radius
            // (every fourth point on the rim itself).
            for n in 0..<300 {
                let share = n % 4 == 0 ? 1 : Double.random(in: 0...1, using: &random)
                let point = destination(
                    from: center, km: radiusKm * share, bearing: Double.random(in: 0..<(2 * .pi), using: &random))
                guard point.distanceKm(to: center) <= radiusKm else { continue }
                #expect(
                    boxes.contains { $0.contains(point) },
                    "\(point) is \(point.distanceKm(to: center)) km from \(center)")
            }
        }
    }

    /// The point `km` along a great circle from `start` at `bearing` (radians from north).
    func destination(from start: Coordinate, km: Double, bearing: Double) -> Coordinate {
        let δ = km / radius, φ1 = start.latitude * .pi / 180, λ1 = start.longitude * .pi / 180
        let φ2 = asin(sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(bearing))
        let λ2 = λ1 + atan2(sin(bearing) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
        var longitude = λ2 * 180 / .pi
        while longitude > 180 { longitude -= 360 }
        while longitude < -180 { longitude += 360 }
        return Coordinate(latitude: φ2 * 180 / .pi, longitude: longitude)
    }
}
