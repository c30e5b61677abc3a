import FightServer
import Foundation

// The full-screen client's logic, kept apart from the terminal so that tests can call it without
// a process.

// MARK: - Location

/// A location that is not two numbers in range: what was expected, for a usage error or the
/// screen's note line.
struct LocationError: Error, CustomStringConvertible {
    var description: String
}

extension Location {
    /// The example shown in prompts and messages.
    static let example = "48.8566,2.3522"

    /// Parses a location as a person types it: latitude then longitude in degrees, separated by a
    /// comma, spaces or both ("48.8566,2.3522", "48.8566 2.3522"). Checked here as the server checks
    /// it (latitude −90…90, longitude −180…180), so that a mistake is named before anything is sent.
    init(parsing text: String) throws(LocationError) {
        let parts = text.split(whereSeparator: { $0 == "," || $0.isWhitespace })
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
            latitude.isFinite, longitude.isFinite
        else {
            throw LocationError(description: "expected LAT,LON in degrees (e.g. \(Self.example)), got '\(text)'")
        }
        guard (-90...90).contains(latitude) else {
            throw LocationError(description: "latitude \(parts[0]) is not within -90…90")
        }
        guard (-180...180).contains(longitude) else {
            throw LocationError(description: "longitude \(parts[1]) is not within -180…180")
        }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// "48.8566, 2.3522": as typed, without the trailing zeros of a fixed format.
    var text: String { "\(latitude), \(longitude)" }
}
