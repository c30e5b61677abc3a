#if canImport(Glibc)
    import Glibc  // libm's trigonometry: the standard library has none.
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Coordinate

/// A point on the Earth in degrees (WGS 84 latitude and longitude).
public struct Coordinate: Hashable, Sendable, Codable {
    /// Degrees north of the equator, −90…90.
    public var latitude: Double
    /// Degrees east of Greenwich, −180…180.
    public var longitude: Double

    /// Creates a coordinate; `Command.register` and `Command.move` validate it.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Checks that both angles are finite and in range.
    public func validate() throws(FieldError) {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw FieldError(.latitude, expected: "a number from -90 to 90", got: "\(latitude)")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw FieldError(.longitude, expected: "a number from -180 to 180", got: "\(longitude)")
        }
    }
}

// MARK: - Haversine

extension Coordinate {
    /// The mean Earth radius (IUGG), in kilometres.
    public static let earthRadiusKm = 6371.0088

    /// The great-circle distance to `other` in kilometres, by the haversine formula on a sphere of
    /// radius `earthRadiusKm`.
    ///
    /// The haversine form stays accurate for nearby points (where the spherical law of cosines
    /// loses digits); the argument of `asin` is clamped so rounding near antipodes cannot make NaN.
    public func distanceKm(to other: Coordinate) -> Double {
        let lat1 = latitude.radians, lat2 = other.latitude.radians
        let halfDLat = (lat2 - lat1) / 2
        let halfDLon = (other.longitude - longitude).radians / 2
        let h = sin(halfDLat) * sin(halfDLat) + cos(lat1) * cos(lat2) * sin(halfDLon) * sin(halfDLon)
        return 2 * Self.earthRadiusKm * asin(min(1, h.squareRoot()))
    }
}

// MARK: - Bounding boxes

/// A latitude/longitude rectangle that never crosses the antimeridian (`minLongitude ≤ maxLongitude`).
public struct GeoBox: Hashable, Sendable {
    /// The southern edge in degrees.
    public var minLatitude: Double
    /// The northern edge in degrees.
    public var maxLatitude: Double
    /// The western edge in degrees.
    public var minLongitude: Double
    /// The eastern edge in degrees.
    public var maxLongitude: Double

    /// Creates a box.
    public init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.maxLatitude = maxLatitude
        self.minLongitude = minLongitude
        self.maxLongitude = maxLongitude
    }

    /// Whether the box holds `point` (edges included).
    public func contains(_ point: Coordinate) -> Bool {
        (minLatitude...maxLatitude).contains(point.latitude) && (minLongitude...maxLongitude).contains(point.longitude)
    }

    /// One or two boxes that together hold every point within `radiusKm` of `center`
    /// (two when the circle crosses the antimeridian), so an index over boxes can prefilter a
    /// distance query without missing anyone.
    ///
    /// The longitude half-width is `asin(sin δ / cos φ)` for angular radius δ at latitude φ: the
    /// widest point of the circle is not on `center`'s parallel but on the meridians' tangent
    /// points (J. P. Matuschek, "Finding points within a distance of a latitude/longitude").
    /// Where the circle reaches a pole every longitude is inside.
    public static func covering(radiusKm: Double, around center: Coordinate) -> [GeoBox] {
        // A hair of margin so rounding in the trigonometry cannot cut off a point on the circle.
        let margin = 1e-9
        let angular = radiusKm / Coordinate.earthRadiusKm
        let dLat = angular.degrees + margin
        let minLat = center.latitude - dLat, maxLat = center.latitude + dLat
        let everyLongitude = [
            GeoBox(minLatitude: max(-90, minLat), maxLatitude: min(90, maxLat), minLongitude: -180, maxLongitude: 180)
        ]
        guard minLat > -90, maxLat < 90, angular < .pi / 2 else { return everyLongitude }
        let ratio = sin(angular) / cos(center.latitude.radians)
        guard ratio < 1 else { return everyLongitude }
        let dLon = asin(ratio).degrees + margin
        let west = center.longitude - dLon, east = center.longitude + dLon
        if west < -180 {
            return [
                GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: east),
                GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: west + 360, maxLongitude: 180),
            ]
        }
        if east > 180 {
            return [
                GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: west, maxLongitude: 180),
                GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: east - 360),
            ]
        }
        return [GeoBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: west, maxLongitude: east)]
    }
}

extension Double {
    var radians: Double { self * .pi / 180 }
    var degrees: Double { self * 180 / .pi }
}
