import Testing

@testable import PunchKit

/// Rows of a device at rest in g (about 1 g along −y), `count` of them at 100 Hz, as `t,x,y,z`.
private func restingRows(count: Int, timeScale: Double = 1, accelerationScale: Double = 1) -> String {
    (0..<count).map { index in
        let time = Double(index) * 0.01 * timeScale
        return "\(time),\(0.02 * accelerationScale),\(-0.99 * accelerationScale),\(0.1 * accelerationScale)\n"
    }.joined()
}

@Suite struct TraceReaderFormatTests {
    // MARK: - Generic

    @Test func readsAPlainGenericTrace() throws {
        let reading = try readTrace("t,x,y,z\n0,0,0,1\n0.01,0.1,0.2,0.9\n0.02,-0.5,1.5,2\n")
        #expect(
            reading.samples == [
                MotionSample(time: 0, acceleration: Vector3(0, 0, 1)),
                MotionSample(time: 0.01, acceleration: Vector3(0.1, 0.2, 0.9)),
                MotionSample(time: 0.02, acceleration: Vector3(-0.5, 1.5, 2)),
            ])
        let summary = reading.summary
        #expect(summary.format == .generic)
        #expect(summary.separator == .comma)
        #expect(summary.columns == TraceColumns(time: "t", x: "x", y: "y", z: "z"))
        #expect(summary.timeUnit == .seconds)
        #expect(summary.units == .g)
        #expect(summary.unitsFromData)
        #expect(summary.gravityIncluded == true)
        #expect(summary.sampleCount == 3)
        #expect(summary.lineCount == 4)
    }

    @Test(arguments: [
        ("time,x,y,z", TraceColumns(time: "time", x: "x", y: "y", z: "z")),
        ("timestamp,ax,ay,az", TraceColumns(time: "timestamp", x: "ax", y: "ay", z: "az")),
        ("T,X,Y,Z", TraceColumns(time: "T", x: "X", y: "Y", z: "Z")),
        ("t,acc_x,acc_y,acc_z", TraceColumns(time: "t", x: "acc_x", y: "acc_y", z: "acc_z")),
        (" time , accel_x , accel_y , accel_z ", TraceColumns(time: "time", x: "accel_x", y: "accel_y", z: "accel_z")),
    ])
    func recognisesGenericColumnNames(header: String, columns: TraceColumns) throws {
        let reading = try readTrace("\(header)\n0,0.5,-0.25,1\n")
        #expect(reading.summary.format == .generic)
        #expect(reading.summary.columns == columns)
        #expect(reading.samples == [MotionSample(time: 0, acceleration: Vector3(0.5, -0.25, 1))])
    }

    @Test func takesColumnsByNameInAnyOrderAndIgnoresExtraOnes() throws {
        // gx, gy, gz are a gyroscope's, read beside the acceleration in whatever order they come.
        let text = """
            label,z,gx,x,t,y,gy,gz,note
            rest,1,0.1,0.2,0.5,0.3,0.2,0.3,"quoted, with a comma"
            jab ✓ naïve,2,0.1,0.4,0.51,0.6,0.2,0.3,plain

            """
        let reading = try readTrace(text)
        #expect(
            reading.samples == [
                MotionSample(time: 0.5, acceleration: Vector3(0.2, 0.3, 1), rotationRate: Vector3(0.1, 0.2, 0.3)),
                MotionSample(time: 0.51, acceleration: Vector3(0.4, 0.6, 2), rotationRate: Vector3(0.1, 0.2, 0.3)),
            ])
        #expect(
            reading.summary.columns == TraceColumns(time: "t", x: "x", y: "y", z: "z", rotation: ["gx", "gy", "gz"]))
    }

    @Test func readsRowsWithoutTheColumnsAfterTheLastNeededOne() throws {
        // Labels only on some rows: a row that stops after z is complete.
        let reading = try readTrace("t,x,y,z,label\n0,0,0,1,rest\n0.01,0,0,1\n")
        #expect(reading.samples.count == 2)
    }

    @Test func readsQuotedNumbersAndSpacesAroundFields() throws {
        let reading = try readTrace("t, x, y, z\n\"0.5\", 0.25 , \" -1 \",0.5\n")
        #expect(reading.samples == [MotionSample(time: 0.5, acceleration: Vector3(0.25, -1, 0.5))])
    }

    @Test(arguments: [TraceSeparator.tab, .semicolon])
    func readsGenericFilesWithOtherSeparatorsAndDecimalCommas(_ separator: TraceSeparator) throws {
        let s = separator.rawValue
        let reading = try readTrace("t\(s)x\(s)y\(s)z\n0,5\(s)1\(s)-0,25\(s)1.5\n")
        #expect(reading.summary.separator == separator)
        #expect(reading.samples == [MotionSample(time: 0.5, acceleration: Vector3(1, -0.25, 1.5))])
    }

    @Test func passesRepeatedRowsThrough() throws {
        // Sample-and-hold repeats: telling them apart is the detector's job, not the reader's.
        let reading = try readTrace("t,x,y,z\n0,0,0,1\n0,0,0,1\n0.01,0,0,1\n0.01,0,0,1\n")
        #expect(reading.samples.count == 4)
        #expect(reading.samples[0] == reading.samples[1])
    }

    // MARK: - Time units

    @Test(arguments: [
        ("time_ms", 1e3), ("t (ms)", 1e3), ("timestamp (ns)", 1e9), ("time [us]", 1e6), ("t_s", 1),
        ("time (s)", 1), ("timestamp_nanoseconds", 1e9),
    ])
    func takesTheTimeUnitFromTheHeader(timeColumn: String, perSecond: Double) throws {
        // Spacing that would look like seconds if the header were ignored.
        let reading = try readTrace("\(timeColumn),x,y,z\n0,0,0,1\n0.05,0,0,1\n0.1,0,0,1\n")
        #expect(reading.samples.map(\.time) == [0, 0.05 / perSecond, 0.1 / perSecond])
        #expect(reading.summary.timeUnit?.perSecond == perSecond)
    }

    @Test(arguments: [
        (TimeUnit.seconds, 0.0, 100.0), (.seconds, 1000.0, 25.0), (.seconds, 0.0, 400.0),
        (.milliseconds, 0.0, 100.0), (.milliseconds, 1.7e12, 25.0), (.milliseconds, 0.0, 400.0),
        (.microseconds, 0.0, 100.0), (.microseconds, 0.0, 25.0),
        (.nanoseconds, 0.0, 100.0), (.nanoseconds, 1.7e18, 400.0), (.nanoseconds, 1.7e18, 25.0),
    ])
    func recognisesTheTimeUnitFromTheSpacing(unit: TimeUnit, start: Double, rate: Double) throws {
        var random = TraceTestGenerator(seed: 3)
        var time = 0.0
        var text = "time,x,y,z\n"
        var expected: [Double] = []
        for _ in 0..<50 {
            time += Double.random(in: 0.7...1.3, using: &random) / rate
            // Whole numbers of the unit, as loggers write them, except seconds.
            let scaled = time * unit.perSecond
            let written = start + (unit == .seconds ? scaled : scaled.rounded())
            text += "\(written),0,0,1\n"
            expected.append(written / unit.perSecond)
        }
        let reading = try readTrace(text)
        #expect(reading.summary.timeUnit == unit)
        #expect(reading.samples.map(\.time) == expected)
    }

    @Test func takesSecondsWhenTheSpacingCannotTell() throws {
        let reading = try readTrace("t,x,y,z\n5,0,0,1\n5,0,0,1\n")
        #expect(reading.summary.timeUnit == .seconds)
        #expect(reading.samples.map(\.time) == [5, 5])
    }

    // MARK: - Acceleration units and gravity

    @Test(arguments: [
        ("x (g),y (g),z (g)", AccelerationUnit.g), ("ax_g,ay_g,az_g", .g),
        ("x (m/s^2),y (m/s^2),z (m/s^2)", .metersPerSecondSquared), ("ax_ms2,ay_ms2,az_ms2", .metersPerSecondSquared),
        ("x [m/s²],y [m/s²],z [m/s²]", .metersPerSecondSquared),
    ])
    func takesTheUnitsFromTheHeaderOverTheData(axes: String, units: AccelerationUnit) throws {
        // Resting at 9.8 would look like m/s²; resting at 1 like g: the header must win either way.
        let restingValue = units == .g ? 9.80665 : 1.0
        let reading = try readTrace("t,\(axes)\n0,0,\(restingValue),0\n")
        #expect(reading.summary.units == units)
        #expect(!reading.summary.unitsFromData)
        #expect(reading.samples.first?.acceleration.y == restingValue / units.perG)
    }

    @Test func recognisesGFromARestingMagnitudeOfOne() throws {
        let reading = try readTrace("t,x,y,z\n" + restingRows(count: 20))
        #expect(reading.summary.units == .g)
        #expect(reading.summary.gravityIncluded == true)
        #expect(reading.samples.first?.acceleration == Vector3(0.02, -0.99, 0.1))
    }

    @Test func recognisesMetresPerSecondSquaredFromARestingMagnitudeOfNinePointEight() throws {
        let reading = try readTrace("t,x,y,z\n" + restingRows(count: 20, accelerationScale: standardGravity))
        #expect(reading.summary.units == .metersPerSecondSquared)
        #expect(reading.summary.unitsFromData)
        #expect(reading.summary.gravityIncluded == true)
        let first = try #require(reading.samples.first)
        #expect(isClose(first.acceleration.y, -0.99))
    }

    @Test func takesRestingNearZeroAsLinearAccelerationInMetresPerSecondSquared() throws {
        let text = "t,x,y,z\n0,0.1,-0.05,0.02\n0.01,-0.2,0.1,0\n0.02,0.05,0,0.1\n"
        let reading = try readTrace(text)
        #expect(reading.summary.units == .metersPerSecondSquared)
        #expect(reading.summary.gravityIncluded == false)
        #expect(reading.samples.first?.acceleration.x == 0.1 / standardGravity)
    }

    @Test func decidesFromTheRestingMedianNotFromAFewPunches() throws {
        // Mostly at rest in m/s², with a few hard spikes that alone would look like g or more.
        var text = "t,x,y,z\n"
        for index in 0..<40 {
            let y = index % 10 == 0 ? -80.0 : -9.7
            text += "\(Double(index) * 0.01),0.1,\(y),0.3\n"
        }
        #expect(try readTrace(text).summary.units == .metersPerSecondSquared)
    }

    @Test(arguments: [AccelerationUnit.g, .metersPerSecondSquared])
    func letsTheCallerForceTheUnits(_ units: AccelerationUnit) throws {
        // The header says g; the caller's word wins over it.
        let reading = try readTrace("t,x (g),y (g),z (g)\n0,0,0,9.80665\n", units: units)
        #expect(reading.summary.units == units)
        #expect(reading.samples.first?.acceleration.z == 9.80665 / units.perG)
    }

    @Test func decidesGravityFromTheDataWhenTheHeaderGivesOnlyTheUnits() throws {
        let withGravity = try readTrace("t,x (g),y (g),z (g)\n0,0,0,1\n")
        #expect(withGravity.summary.gravityIncluded == true)
        let withoutGravity = try readTrace("t,x (g),y (g),z (g)\n0,0,0,0.05\n")
        #expect(withoutGravity.summary.gravityIncluded == false)
    }

    // MARK: - phyphox

    @Test func readsPhyphoxWithGravity() throws {
        let text = """
            "Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)","Absolute acceleration (m/s^2)"
            9.364549000E-3,-1.533477783E-1,9.806650000E0,2.5E-1,9.81E0
            1.934655700E-2,0.000000000E0,-9.806650000E0,0.000000000E0,9.80665E0

            """
        let reading = try readTrace(text, source: "Raw Data.csv")
        #expect(reading.summary.format == .phyphox)
        #expect(reading.summary.units == .metersPerSecondSquared)
        #expect(reading.summary.gravityIncluded == true)
        #expect(reading.summary.timeUnit == .seconds)
        #expect(
            reading.summary.columns
                == TraceColumns(
                    time: "Time (s)", x: "Acceleration x (m/s^2)", y: "Acceleration y (m/s^2)",
                    z: "Acceleration z (m/s^2)"))
        #expect(reading.samples.map(\.time) == [9.364549000e-3, 1.934655700e-2])
        #expect(reading.samples[0].acceleration == Vector3(-0.1533477783, 9.80665, 0.25) / standardGravity)
        #expect(reading.samples[1].acceleration == Vector3(0, -1, 0))
    }

    @Test func readsPhyphoxLinearAccelerationAsWithoutGravity() throws {
        let text = """
            "Time (s)","Linear Acceleration x (m/s^2)","Linear Acceleration y (m/s^2)","Linear Acceleration z (m/s^2)","Absolute acceleration (m/s^2)"
            0.0E0,1.0E0,2.0E0,3.0E0,3.74E0

            """
        let reading = try readTrace(text)
        #expect(reading.summary.format == .phyphox)
        #expect(reading.summary.gravityIncluded == false)
        #expect(reading.samples.first?.acceleration == Vector3(1, 2, 3) / standardGravity)
    }

    /// The header of phyphox's per-sensor export, the same for the "Acceleration with g" and
    /// "Linear Acceleration" experiments.
    private static let phyphoxPerSensorHeader = ["Time (s)", "X (m/s^2)", "Y (m/s^2)", "Z (m/s^2)"]

    @Test(
        arguments: [TraceSeparator.tab, .semicolon],
        [
            ["Time (s)", "Acceleration x (m/s^2)", "Acceleration y (m/s^2)", "Acceleration z (m/s^2)"],
            phyphoxPerSensorHeader,
        ])
    func readsPhyphoxWithADecimalComma(separator: TraceSeparator, columns: [String]) throws {
        let s = separator.rawValue
        let header = columns.map { "\"\($0)\"" }.joined(separator: s)
        let row = ["9,364549000E-3", "-1,533477783E-1", "9,806650000E0", "0,000000000E0"].joined(separator: s)
        let reading = try readTrace(header + "\n" + row + "\n")
        #expect(reading.summary.format == .phyphox)
        #expect(reading.summary.separator == separator)
        #expect(reading.summary.gravityIncluded == true)
        #expect(
            reading.samples == [
                MotionSample(time: 9.364549000e-3, acceleration: Vector3(-0.1533477783, 9.80665, 0) / standardGravity)
            ])
    }

    @Test func readsPhyphoxPerSensorExportAsPhyphoxWithGravityFromTheData() throws {
        let header = Self.phyphoxPerSensorHeader.map { "\"\($0)\"" }.joined(separator: ",")
        let text = header + "\n" + restingRows(count: 20, accelerationScale: standardGravity)
        // A name that means "no gravity" in Sensor Logger: here only the data may tell.
        let reading = try readTrace(text, source: "Accelerometer.csv")
        #expect(reading.summary.format == .phyphox)
        #expect(
            reading.summary.columns == TraceColumns(time: "Time (s)", x: "X (m/s^2)", y: "Y (m/s^2)", z: "Z (m/s^2)"))
        #expect(reading.summary.timeUnit == .seconds)
        #expect(reading.summary.units == .metersPerSecondSquared)
        #expect(!reading.summary.unitsFromData)
        #expect(reading.summary.gravityIncluded == true)
        let first = try #require(reading.samples.first)
        #expect(isClose(first.acceleration.y, -0.99))
    }

    @Test func readsPhyphoxPerSensorLinearAccelerationAsWithoutGravity() throws {
        // The "Linear Acceleration" experiment's export: the same header, resting near zero.
        let header = Self.phyphoxPerSensorHeader.map { "\"\($0)\"" }.joined(separator: ",")
        let text = header + "\n0.0E0,1.0E-1,-5.0E-2,2.0E-2\n1.0E-2,-2.0E-1,1.0E-1,0.0E0\n2.0E-2,5.0E-2,0.0E0,1.0E-1\n"
        let reading = try readTrace(text)
        #expect(reading.summary.format == .phyphox)
        #expect(reading.summary.units == .metersPerSecondSquared)
        #expect(reading.summary.gravityIncluded == false)
        #expect(reading.samples.first?.acceleration == Vector3(0.1, -0.05, 0.02) / standardGravity)
    }

    @Test(arguments: ["time,x,y,z", "t (s),X (m/s^2),Y (m/s^2),Z (m/s^2)", "time (s),x (g),y (g),z (g)"])
    func leavesHeadersThatAreNotPhyphoxsGeneric(header: String) throws {
        // phyphox's per-sensor export is its time in seconds and bare axes in m/s²: nothing less.
        #expect(try readTrace("\(header)\n0,0,0,1\n").summary.format == .generic)
    }

    @Test func skipsAndCountsPhyphoxRowsWithMissingValues() throws {
        let text = """
            "Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)"
            0.0E0,"","",""
            1.0E-2,1.0E0,2.0E0,3.0E0
            2.0E-2,,,
            3.0E-2,1.0E0,"",3.0E0
            4.0E-2,4.0E0,5.0E0,6.0E0

            """
        let reading = try readTrace(text)
        #expect(reading.samples.map(\.time) == [0.01, 0.04])
        #expect(reading.summary.missingValueRows == 3)
        #expect(reading.summary.skippedRows == 0)
        #expect(reading.summary.errors.isEmpty)
    }

    // MARK: - Sensor Logger

    private let sensorLoggerText = """
        time,seconds_elapsed,z,y,x
        1698765432000000000,-0.02,9.80665,1.5,-2.5
        1698765432010000000,-0.01,0.5,0.25,0.125
        1698765432020000000,0,0,19.6133,0

        """

    @Test func readsSensorLoggerColumnsInTheirOrder() throws {
        let reading = try readTrace(sensorLoggerText, source: "exports/run 3/TotalAcceleration.csv")
        #expect(reading.summary.format == .sensorLogger)
        #expect(reading.summary.columns == TraceColumns(time: "seconds_elapsed", x: "x", y: "y", z: "z"))
        #expect(reading.summary.units == .metersPerSecondSquared)
        #expect(reading.summary.timeUnit == .seconds)
        // seconds_elapsed is the time, starting below zero; x is the last column, z the third.
        #expect(reading.samples.map(\.time) == [-0.02, -0.01, 0])
        #expect(reading.samples[0].acceleration == Vector3(-2.5, 1.5, 9.80665) / standardGravity)
        #expect(reading.samples[2].acceleration == Vector3(0, 2, 0))
    }

    @Test(arguments: [
        ("TotalAcceleration.csv", true as Bool?), ("/tmp/a/Accelerometer.csv", false),
    ])
    func tellsSensorLoggerGravityFromTheFileName(source: String, gravity: Bool?) throws {
        // Rows that look like linear acceleration: only the name can say otherwise.
        let text = "time,seconds_elapsed,z,y,x\n1,0,0.1,0,0\n"
        #expect(try readTrace(text, source: source).summary.gravityIncluded == gravity)
    }

    @Test func tellsSensorLoggerGravityFromTheDataOnStandardInput() throws {
        #expect(try readTrace(sensorLoggerText, source: "-").summary.gravityIncluded == true)
        let linear = "time,seconds_elapsed,z,y,x\n1,0,0.1,0.2,0\n2,0.01,0,0.1,0.2\n"
        #expect(try readTrace(linear, source: "-").summary.gravityIncluded == false)
    }

    // MARK: - Physics Toolbox

    @Test func readsPhysicsToolboxGForce() throws {
        let text = "time,gFx,gFy,gFz,TgF\n0.003,0.01,-0.98,0.12,0.99\n0.013,8,-8,0.5,11.32\n"
        let reading = try readTrace(text)
        #expect(reading.summary.format == .physicsToolbox)
        #expect(reading.summary.units == .g)
        #expect(reading.summary.gravityIncluded == true)
        #expect(reading.summary.columns == TraceColumns(time: "time", x: "gFx", y: "gFy", z: "gFz"))
        #expect(
            reading.samples == [
                MotionSample(time: 0.003, acceleration: Vector3(0.01, -0.98, 0.12)),
                MotionSample(time: 0.013, acceleration: Vector3(8, -8, 0.5)),
            ])
    }

    // MARK: - Forcing a format

    @Test func readsAsTheForcedFormat() throws {
        // A Sensor Logger file read as generic takes `time` (nanoseconds) rather than seconds_elapsed.
        let text = "time,seconds_elapsed,z,y,x\n1000000000,5,0,0,9.8\n1010000000,5.01,0,0,9.8\n"
        let reading = try readTrace(text, format: .generic)
        #expect(reading.summary.format == .generic)
        #expect(reading.summary.timeUnit == .nanoseconds)
        #expect(reading.samples.map(\.time) == [1, 1.01])
    }

    @Test func rejectsAHeaderThatIsNotTheForcedFormat() {
        let error = traceError("t,x,y,z\n0,0,0,1\n", format: .phyphox)
        #expect(error?.kind == .unknownHeader)
        #expect(error?.expected.contains("phyphox") == true)
    }

    // MARK: - Line ends, BOM, blank lines

    @Test func readsCRLFLineEndsLikeLF() throws {
        let lf = "t,x,y,z\n0,0,0,1\n0.01,0.5,0.25,1\n"
        let crlf = lf.replacingNewlines(with: "\r\n")
        #expect(try readTrace(crlf).samples == readTrace(lf).samples)
        #expect(try readTrace(crlf).samples.count == 2)
    }

    @Test func skipsAByteOrderMark() throws {
        let text =
            "\u{FEFF}\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n0,0,9.8,0\n"
        let reading = try readTrace(text)
        #expect(reading.summary.format == .phyphox)
        #expect(reading.samples.count == 1)
    }

    @Test func skipsBlankLinesAndReadsALastLineWithoutLineEnd() throws {
        let reading = try readTrace("\n  \nt,x,y,z\r\n0,0,0,1\r\n\r\n0.01,0,0,1\n\n\n0.02,0,0,1")
        #expect(reading.samples.map(\.time) == [0, 0.01, 0.02])
    }

    @Test func readsAHeaderOnlyTraceAsNoSamples() throws {
        let reading = try readTrace("t,x,y,z\n")
        #expect(reading.samples.isEmpty)
        #expect(reading.summary.format == .generic)
        #expect(reading.summary.units == nil)
        #expect(reading.summary.gravityIncluded == nil)
    }

    // MARK: - Streaming

    @Test func holdsBackOnlyUntilTheUnitsAreDecided() throws {
        // 100 Hz, units from the data: the first 2 s (checked every 16 rows) are held back.
        var reader = TraceReader(source: "live.csv")
        var delivered = 0
        func feed(_ text: String) throws {
            try Array(text.utf8).withUnsafeBytes { try reader.feed($0) { _ in delivered += 1 } }
        }
        try feed("t,x,y,z\n")
        var rows = restingRows(count: 600).split(separator: "\n").map { String($0) + "\n" }[...]
        for row in rows.prefix(150) { try feed(row) }
        #expect(delivered == 0)
        rows = rows.dropFirst(150)
        for row in rows.prefix(100) { try feed(row) }
        #expect(delivered == 250)
        #expect(reader.summary.units == .g)
        for row in rows.dropFirst(100) { try feed(row) }
        #expect(delivered == 600)
    }

    @Test func deliversAtOnceWhenTheHeaderSaysEverything() throws {
        var reader = TraceReader(source: "live.csv")
        var delivered = 0
        try Array("time,gFx,gFy,gFz,TgF\n0,0,0,1,1\n".utf8).withUnsafeBytes {
            try reader.feed($0) { _ in delivered += 1 }
        }
        #expect(delivered == 1)
    }

    @Test func readAllGivesWhatStreamingGives() throws {
        let bytes = Array(("t,x,y,z\n" + restingRows(count: 700)).utf8)
        #expect(try TraceReader.readAll(bytes: bytes, source: "a.csv") == readTrace(bytes, chunkSize: 100).samples)
    }
}

extension String {
    /// The text with every `\n` replaced.
    func replacingNewlines(with lineEnd: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: lineEnd)
    }
}
