import FightServer
import Foundation
import Testing

@testable import hitthat

/// The full-screen client's logic without a process or a terminal: locations as typed, the keys,
/// and the screen's text.
@Suite struct PlayScreenTests {
    // MARK: Locations

    @Test(arguments: [
        ("48.8566,2.3522", 48.8566, 2.3522), ("48.8566, 2.3522", 48.8566, 2.3522), (" -33.9 18.4 ", -33.9, 18.4),
        ("90,-180", 90, -180), ("-90,180", -90, 180),
    ])
    func aLocationIsTwoNumbersInRange(text: String, latitude: Double, longitude: Double) throws {
        #expect(try Location(parsing: text) == Location(latitude: latitude, longitude: longitude))
    }

    @Test(arguments: [
        ("", "expected LAT,LON"), ("48.8", "expected LAT,LON"), ("1,2,3", "expected LAT,LON"),
        ("paris", "expected LAT,LON"), ("nan,0", "expected LAT,LON"), ("inf,0", "expected LAT,LON"),
        ("90.5,0", "latitude 90.5 is not within -90…90"), ("0,-181", "longitude -181 is not within -180…180"),
    ])
    func anythingElseSaysWhatWasExpected(text: String, message: String) {
        #expect(throws: LocationError.self) { try Location(parsing: text) }
        do {
            _ = try Location(parsing: text)
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
    }
}
