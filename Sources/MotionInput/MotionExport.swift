import Foundation
import PunchKit
import ZIPFoundation

// MARK: - MotionExport

/// A recording as its app exports it, every motion sensor in a file of its own, in a folder or
/// in the `.zip` the app shares: which file holds the acceleration, and which the gyroscope's
/// rotation rate where one was recorded.
///
/// - Sensor Logger: `TotalAcceleration.csv` (or `Accelerometer.csv`, gravity removed) with
///   `Gyroscope.csv`.
/// - phyphox's per-sensor export: `Accelerometer.csv` (or `Linear Acceleration.csv`) with
///   `Gyroscope.csv`, beside `meta/`.
/// - MetaWear's MetaBase: `NAME_Accelerometer_….csv` with `NAME_Gyroscope_….csv`.
///
/// Other files (a barometer, `meta/`, a magnetometer…) are passed over. A zip's two files are
/// extracted, alone, into a temporary folder that goes with this value's owner.
public struct MotionExport: Sendable {
    /// The folder or zip, as given.
    public var path: String
    /// The acceleration's file, on disk.
    public var acceleration: String
    /// The gyroscope's file, on disk, when the export has one.
    public var gyroscope: String?
    /// The temporary folder a zip's files were extracted to, to be removed once read.
    public var temporaryFolder: String?

    /// Whether `path` is an export to look into rather than a trace file: a folder, or a `.zip`.
    public static func isExport(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
        return isDirectory.boolValue || path.lowercased().hasSuffix(".zip")
    }

    /// Finds the acceleration's and the gyroscope's files in the folder or zip at `path`.
    ///
    /// - Throws: ``TraceInputError`` for a folder or zip that cannot be read, one with no
    ///   acceleration, or one with two candidates for one sensor.
    public init(path: String) throws(TraceInputError) {
        self.path = path
        if path.lowercased().hasSuffix(".zip") {
            (acceleration, gyroscope, temporaryFolder) = try Self.extract(zip: path)
        } else {
            let names: [String]
            do {
                names = try Self.files(in: path)
            } catch {
                throw TraceInputError(
                    description: "\(path): cannot read the folder: \(error.localizedDescription)", cause: .cannotOpen)
            }
            let chosen = try Self.choose(from: names, in: path)
            acceleration = (path as NSString).appendingPathComponent(chosen.acceleration)
            gyroscope = chosen.gyroscope.map { (path as NSString).appendingPathComponent($0) }
            temporaryFolder = nil
        }
    }

    /// Removes the temporary folder of a zip's files, if there is one.
    public func removeTemporaryFiles() {
        if let temporaryFolder { try? FileManager.default.removeItem(atPath: temporaryFolder) }
    }

    // MARK: - Choosing the files

    /// The acceleration's files, in order of preference: the first rank with a file decides,
    /// and two files in it are two candidates for one sensor. Gravity included before removed:
    /// up is found from gravity.
    static let accelerationRanks: [@Sendable (String) -> Bool] = [
        { $0 == "totalacceleration.csv" },
        { $0.contains("accelerometer") && !$0.contains("linear") && !$0.contains("uncalibrated") },
        { $0.contains("linear acceleration") || $0.contains("linear accelerometer") },
        { $0 == "raw data.csv" },
    ]

    /// The gyroscope's files, in order of preference: calibrated before uncalibrated.
    static let gyroscopeRanks: [@Sendable (String) -> Bool] = [
        { $0.contains("gyroscope") && !$0.contains("uncalibrated") },
        { $0.contains("gyroscope") },
    ]

    /// The acceleration's and gyroscope's files among `names` (paths relative to the export,
    /// `/` between folders): CSV files at the top, or in the one folder a zip often wraps them in.
    ///
    /// - Throws: ``TraceInputError`` when there is no acceleration, or two candidates for one sensor.
    static func choose(from names: [String], in source: String) throws(TraceInputError) -> (
        acceleration: String, gyroscope: String?
    ) {
        let csv = names.filter { $0.lowercased().hasSuffix(".csv") && !$0.hasPrefix("__MACOSX/") }
        // The top level, or else a single folder holding every CSV (a zip of the export's folder);
        // `meta/` and the like are never looked into.
        // Down through folders that hold nothing but one folder (a zip of a folder of a run).
        var prefix = ""
        var level = csv.filter { !$0.contains("/") }
        for _ in 0..<maximumDepth where level.isEmpty {
            let inside = csv.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            let folders = Set(inside.compactMap { $0.split(separator: "/").first.map(String.init) })
            guard folders.count == 1, let folder = folders.first else { break }
            prefix += folder + "/"
            level = csv.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
        }
        func chosen(_ ranks: [@Sendable (String) -> Bool], sensor: String) throws(TraceInputError) -> String? {
            for rank in ranks {
                let found = level.filter { rank(fileName($0).lowercased()) }.sorted()
                if found.count > 1 {
                    throw TraceInputError(
                        description: "\(source): two candidates for the \(sensor): "
                            + found.map { "\"\($0)\"" }.joined(separator: " and ") + "; give one file, or one of each sensor")
                }
                if let file = found.first { return file }
            }
            return nil
        }
        guard let acceleration = try chosen(accelerationRanks, sensor: "acceleration") else {
            let listed = (level.isEmpty ? csv : level).sorted().prefix(6).map { "\"\($0)\"" }.joined(separator: ", ")
            let seen =
                csv.isEmpty
                ? "no CSV file" : level.isEmpty ? "CSV files in more than one folder (\(listed)): give one run's folder" : listed
            throw TraceInputError(
                description: "\(source): no acceleration: expected a recording's export with TotalAcceleration.csv, "
                    + "Accelerometer.csv, NAME_Accelerometer_….csv or Linear Acceleration.csv; found \(seen)")
        }
        return (acceleration, try chosen(gyroscopeRanks, sensor: "gyroscope"))
    }

    /// How many folders deep the CSV files are looked for.
    static let maximumDepth = 3

    /// Every file under `folder`, as paths relative to it, `maximumDepth` folders deep at most.
    private static func files(in folder: String, depth: Int = 0) throws -> [String] {
        let manager = FileManager.default
        var found: [String] = []
        for name in try manager.contentsOfDirectory(atPath: folder) {
            var isDirectory: ObjCBool = false
            let path = (folder as NSString).appendingPathComponent(name)
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if !isDirectory.boolValue {
                found.append(name)
            } else if depth < maximumDepth {
                found += ((try? files(in: path, depth: depth + 1)) ?? []).map { name + "/" + $0 }
            }
        }
        return found
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    // MARK: - Zips

    /// The most a zip's chosen file may hold once extracted: an hour at 400 Hz with every column
    /// is under 200 MB; more is a zip bomb or not a recording.
    static let largestExtractedFile: UInt64 = 1 << 30

    /// Extracts the acceleration's and gyroscope's files of the zip at `path` into a new
    /// temporary folder.
    private static func extract(zip path: String) throws(TraceInputError) -> (String, String?, String) {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch Archive.ArchiveError.missingEndOfCentralDirectoryRecord {
            throw TraceInputError(
                description: "\(path): not a zip archive (it has no zip directory at its end: cut short, or another kind of file)")
        } catch {
            throw TraceInputError(description: "\(path): cannot read the zip: \(error)")
        }
        let entries = Dictionary(archive.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let chosen = try choose(from: Array(entries.keys), in: path)
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("hitthat-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw TraceInputError(description: "\(path): cannot make a temporary folder: \(error.localizedDescription)")
        }
        func extracted(_ name: String, as file: String) throws(TraceInputError) -> String {
            let destination = (folder as NSString).appendingPathComponent(file)
            guard let entry = entries[name] else { return destination }
            guard entry.uncompressedSize <= largestExtractedFile else {
                try? FileManager.default.removeItem(atPath: folder)
                throw TraceInputError(
                    description: "\(path): \"\(name)\" holds \(entry.uncompressedSize) bytes; "
                        + "expected a recording of at most \(largestExtractedFile)")
            }
            do {
                _ = try archive.extract(entry, to: URL(fileURLWithPath: destination))
            } catch {
                try? FileManager.default.removeItem(atPath: folder)
                throw TraceInputError(description: "\(path): cannot extract \"\(name)\": \(error)")
            }
            return destination
        }
        // Under their own names (a Sensor Logger file's name says whether gravity is in it),
        // flattened so that no path in the zip can point outside the folder.
        let acceleration = try extracted(chosen.acceleration, as: fileName(chosen.acceleration))
        let gyroscope = try chosen.gyroscope.map { name throws(TraceInputError) in
            try extracted(name, as: fileName(name))
        }
        return (acceleration, gyroscope, folder)
    }
}
