import Foundation
import PunchKit
import Testing
import ZIPFoundation

@testable import MotionInput

/// Recordings as their apps export them: which files are read, and the gyroscope lined up.
@Suite struct MotionExportTests {
    // MARK: - Choosing the files

    @Test func choosesSensorLoggersTotalAccelerationAndCalibratedGyroscope() throws {
        let names = [
            "Accelerometer.csv", "AccelerometerUncalibrated.csv", "Gravity.csv", "Gyroscope.csv",
            "GyroscopeUncalibrated.csv", "TotalAcceleration.csv", "Metadata.csv",
        ]
        let chosen = try MotionExport.choose(from: names, in: "run")
        #expect(chosen.acceleration == "TotalAcceleration.csv")
        #expect(chosen.gyroscope == "Gyroscope.csv")
    }

    @Test func choosesPhyphoxsFilesAndPassesOverItsMetaFolder() throws {
        let chosen = try MotionExport.choose(
            from: ["Accelerometer.csv", "Barometer.csv", "Gyroscope.csv", "meta/device.csv", "meta/time.csv"], in: "run")
        #expect(chosen.acceleration == "Accelerometer.csv")
        #expect(chosen.gyroscope == "Gyroscope.csv")
        // Linear acceleration only where there is nothing with gravity.
        #expect(try MotionExport.choose(from: ["Linear Acceleration.csv"], in: "run").acceleration == "Linear Acceleration.csv")
    }

    @Test func choosesMetaBasesFilesInsideTheFolderAZipWrapsThemIn() throws {
        let names = [
            "Left Hook/Left Hook_Accelerometer_2019-11-05T11-58-49.181.csv",
            "Left Hook/Left Hook_Gyroscope_2019-11-05T11-58-49.181.csv",
        ]
        let chosen = try MotionExport.choose(from: names, in: "hook.zip")
        #expect(chosen.acceleration == names[0])
        #expect(chosen.gyroscope == names[1])
        #expect(try MotionExport.choose(from: [names[0]], in: "hook").gyroscope == nil)
    }

    @Test func looksThroughFoldersThatHoldOnlyOneFolder() throws {
        let names = ["runs/2024-06-08/Accelerometer.csv", "runs/2024-06-08/Gyroscope.csv", "runs/2024-06-08/meta/time.csv"]
        let chosen = try MotionExport.choose(from: names, in: "run.zip")
        #expect(chosen.acceleration == names[0] && chosen.gyroscope == names[1])
        // Two runs side by side are no one recording.
        #expect(throws: TraceInputError.self) {
            try MotionExport.choose(from: ["a/Accelerometer.csv", "b/Accelerometer.csv"], in: "runs")
        }
    }

    @Test func refusesTwoCandidatesForOneSensor() {
        #expect {
            try MotionExport.choose(from: ["A_Accelerometer_1.csv", "B_Accelerometer_2.csv"], in: "runs")
        } throws: { error in
            let message = "\(error)"
            return message.contains("runs: two candidates for the acceleration")
                && message.contains("A_Accelerometer_1.csv") && message.contains("B_Accelerometer_2.csv")
        }
        #expect(throws: TraceInputError.self) {
            try MotionExport.choose(from: ["Accelerometer.csv", "Gyroscope.csv", "Gyroscope 2.csv"], in: "runs")
        }
    }

    @Test func refusesAFolderWithNoAcceleration() {
        #expect {
            try MotionExport.choose(from: ["Barometer.csv", "Gyroscope.csv"], in: "runs")
        } throws: { error in
            "\(error)".contains("runs: no acceleration") && "\(error)".contains("\"Barometer.csv\", \"Gyroscope.csv\"")
        }
    }

    // MARK: - Reading an export

    /// A folder holding `files` (name and text), removed by the caller.
    func folder(_ files: [(String, String)]) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory.path
    }

    /// Sensor Logger's two files: acceleration at 100 Hz from 0 s, the gyroscope at 50 Hz from
    /// 0.005 s, turning about x at 2·t rad/s.
    func sensorLogger(gyroscopeFrom start: Double = 0.005) -> [(String, String)] {
        let moving = (0..<300).map { "0,\(Double($0) / 100),\(standardGravity),0,0" }
        let turning = (0..<150).map { index -> String in
            let t = start + Double(index) / 50
            return "0,\(t),0,0,\(2 * t)"
        }
        return [
            ("TotalAcceleration.csv", (["time,seconds_elapsed,z,y,x"] + moving).joined(separator: "\n")),
            ("Gyroscope.csv", (["time,seconds_elapsed,z,y,x"] + turning).joined(separator: "\n")),
        ]
    }

    func samples(of path: String) throws -> (samples: [MotionSample], file: TraceFile) {
        let file = try TraceFile(path: path)
        var samples: [MotionSample] = []
        try file.forEachSample { samples.append($0) }
        return (samples, file)
    }

    @Test func aFoldersGyroscopeIsInterpolatedToEachAccelerationSample() throws {
        let path = try folder(sensorLogger())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (read, file) = try samples(of: path)
        #expect(read.count == 300)
        #expect(read.allSatisfy { $0.acceleration == Vector3(0, 0, 1) })
        // 5 ms before the gyroscope's first sample: its nearest; after, the line 2·t.
        #expect(read[0].rotationRate?.x == 0.01)
        for sample in read.dropFirst().dropLast(2) {
            #expect(abs((sample.rotationRate?.x ?? .nan) - 2 * sample.time) < 1e-9, "\(sample.time)")
        }
        #expect(file.rotation?.span.count == 150)
        #expect(file.rotation.flatMap(\.span.rate).map { abs($0 - 50) < 0.01 } == true)
        #expect(file.accelerationSpan.rate.map { abs($0 - 100) < 0.01 } == true)
    }

    @Test func aZipOfTheFolderReadsAsTheFolderDoes() throws {
        let path = try folder(sensorLogger())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let zip = path + ".zip"
        defer { try? FileManager.default.removeItem(atPath: zip) }
        let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .create)
        for name in ["TotalAcceleration.csv", "Gyroscope.csv"] {
            try archive.addEntry(with: "export/" + name, fileURL: URL(fileURLWithPath: path + "/" + name))
        }
        let fromZip = try samples(of: zip)
        #expect(fromZip.samples == (try samples(of: path).samples))
        // Its files were extracted to a folder of their own, gone with the reader.
        let extracted = try #require(fromZip.file.export?.temporaryFolder)
        #expect(FileManager.default.fileExists(atPath: extracted))
        fromZip.file.export?.removeTemporaryFiles()
        #expect(!FileManager.default.fileExists(atPath: extracted))
    }

    @Test func metaBasesFilesAreLinedUpByTheirEpoch() throws {
        // The gyroscope began 80 ms before the accelerometer; each file's elapsed starts at 0.
        let header = "epoch (ms),time (-08:00),elapsed (s),X-Axis (%@),Y-Axis (%@),Z-Axis (%@)"
        let moving = (0..<50).map { "\(1_000_080 + 40 * $0),x,\(Double($0) * 0.04),0,0,1" }
        let turning = (0..<60).map { "\(1_000_000 + 40 * $0),x,\(Double($0) * 0.04),\(Double(40 * $0) * 0.18),0,0" }
        let path = try folder([
            ("S_Accelerometer_1.csv", ([header.replacingOccurrences(of: "%@", with: "g")] + moving).joined(separator: "\n")),
            ("S_Gyroscope_1.csv", ([header.replacingOccurrences(of: "%@", with: "°/s")] + turning).joined(separator: "\n")),
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try samples(of: path).samples
        // At the accelerometer's first sample the gyroscope has turned for 80 ms at 0.18 °/s a ms.
        let first = try #require(read.first?.rotationRate)
        #expect(abs(first.x - 80 * 0.18 * Double.pi / 180) < 1e-9)
    }

    @Test func refusesStreamsThatDoNotOverlapInTime() throws {
        let path = try folder(sensorLogger(gyroscopeFrom: 100))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try TraceFile(path: path)
        } throws: { error in
            "\(error)".contains("do not overlap") && "\(error)".contains("Gyroscope.csv")
        }
    }

    @Test func aFolderWithoutAGyroscopeReadsItsAccelerationAlone() throws {
        let path = try folder(Array(sensorLogger().prefix(1)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (read, file) = try samples(of: path)
        #expect(read.count == 300 && read.allSatisfy { $0.rotationRate == nil })
        #expect(file.rotation == nil && file.export != nil)
    }
}
