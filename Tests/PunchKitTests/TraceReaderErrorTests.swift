import Testing

@testable import PunchKit

@Suite struct TraceReaderErrorTests {
    // MARK: - Headers and empty files

    @Test func reportsAnUnknownHeaderOnItsLine() throws {
        let error = try #require(traceError("\u{FEFF}\n\r\na,b,c\n1,2,3\n", source: "run.csv"))
        #expect(error.kind == .unknownHeader)
        #expect(error.line == 3)
        #expect(error.column == nil)
        #expect(error.found == "\"a,b,c\"")
        #expect(error.description.hasPrefix("run.csv:3: expected a header naming a time column"))
    }

    @Test func reportsAHeaderWithoutAllThreeAxes() {
        #expect(traceError("t,x,y\n0,0,0\n")?.kind == .unknownHeader)
        #expect(traceError("x,y,z\n0,0,0\n")?.kind == .unknownHeader)
    }

    @Test(arguments: [("", "an empty file"), ("\n \r\n\t\n", "only blank lines"), ("\u{FEFF}", "only blank lines")])
    func reportsAFileWithoutAHeader(text: String, found: String) throws {
        let error = try #require(traceError(text, source: "empty.csv"))
        #expect(error.kind == .emptyFile)
        #expect(error.line == nil)
        #expect(error.description == "empty.csv: expected a header line, found \(found)")
    }

    // MARK: - Other sensors' files

    @Test(arguments: [
        "\"Time (s)\",\"X (rad/s)\",\"Y (rad/s)\",\"Z (rad/s)\"",
        "\"Time (s)\"\t\"X (rad/s)\"\t\"Y (rad/s)\"\t\"Z (rad/s)\"",
        "\"Time (s)\",\"Gyroscope x (rad/s)\",\"Gyroscope y (rad/s)\",\"Gyroscope z (rad/s)\",\"Absolute (rad/s)\"",
        "t,gyro_x,gyro_y,gyro_z",
        "time,x (deg/s),y (deg/s),z (deg/s)",
    ])
    func refusesAGyroscopeByItsHeader(header: String) throws {
        let error = try #require(traceError(header + "\n0,0.1,0.2,0.3\n", source: "gyro.csv"))
        #expect(error.kind == .notAcceleration)
        #expect(error.line == 1)
        #expect(error.column == 2)
        let column = try #require(error.field)
        #expect(
            error.description
                == "gyro.csv:1:2: expected acceleration, found a gyroscope (rotation rate) file: \"\(column)\"")
    }

    @Test(arguments: [TraceFormat.phyphox, .generic])
    func refusesAGyroscopeReadAsAForcedFormat(_ format: TraceFormat) {
        let header = "\"Time (s)\",\"Gyroscope x (rad/s)\",\"Gyroscope y (rad/s)\",\"Gyroscope z (rad/s)\""
        #expect(traceError(header + "\n0,0,0,0\n", format: format)?.kind == .notAcceleration)
    }

    @Test func readsAccelerationBesideAGyroscope() throws {
        let reading = try readTrace("t,ax,ay,az,gyro_x,gyro_y,gyro_z\n0,0,0,1,0.5,0.5,0.5\n")
        // The gyroscope's columns are read too, their unit (none written) from the data.
        #expect(
            reading.samples == [
                MotionSample(time: 0, acceleration: Vector3(0, 0, 1), rotationRate: Vector3(0.5, 0.5, 0.5))
            ])
    }

    @Test(arguments: ["ts,ax,ay,az,gyro_x,gyro_y,gyro_z", "when,Acceleration x (m/s^2),Gyroscope x (rad/s)"])
    func blamesAnUnknownHeaderWithAccelerationBesideAGyroscopeOnItsColumns(header: String) {
        // Acceleration is there: what is wrong is a column not found, not the sensor.
        #expect(traceError(header + "\n0,0,0,1,0,0,0\n")?.kind == .unknownHeader)
    }

    @Test(arguments: [
        ("exports/run 3/Gyroscope.csv", "a gyroscope (rotation rate) file"),
        ("GyroscopeUncalibrated.csv", "a gyroscope (rotation rate) file"),
        ("Magnetometer.csv", "a magnetometer (magnetic field) file"),
        ("Gravity.csv", "a gravity-only file (the motion filtered out)"),
    ])
    func refusesSensorLoggerFilesOfOtherSensorsByName(source: String, sensor: String) throws {
        // The very header of Sensor Logger's acceleration files: only the name tells.
        let error = try #require(traceError("time,seconds_elapsed,z,y,x\n1,0,0.1,0.2,0.3\n", source: source))
        #expect(error.kind == .notAcceleration)
        #expect(error.line == 1)
        #expect(error.column == nil)
        let fileName = try #require(source.split(separator: "/").last)
        #expect(
            error.description
                == "\(source):1: expected acceleration (Sensor Logger's TotalAcceleration.csv or Accelerometer.csv), "
                + "found \(sensor): \"\(fileName)\"")
    }

    @Test func refusesSensorLoggerOrientationByName() {
        let header = "time,seconds_elapsed,qz,qy,qx,qw,roll,pitch,yaw"
        let error = traceError(header + "\n1,0,0,0,0,1,0,0,0\n", source: "Orientation.csv")
        #expect(error?.kind == .notAcceleration)
        #expect(error?.found == "an orientation (attitude) file: \"Orientation.csv\"")
    }

    @Test(arguments: ["gravity.csv", "Gyroscope.csv"])
    func takesTheNameIntoAccountOnlyForSensorLogger(source: String) throws {
        // A generic file, whatever it is called, is what its header says.
        #expect(try readTrace("t,x,y,z\n0,0,0,1\n", source: source).samples.count == 1)
    }

    @Test(arguments: ["TotalAcceleration.csv", "Accelerometer.csv", "-"])
    func readsSensorLoggerAccelerationWhateverItsFolderIsCalled(source: String) throws {
        let path = source == "-" ? source : "Gyroscope test/" + source
        #expect(try readTrace("time,seconds_elapsed,z,y,x\n1,0,9.8,0,0\n", source: path).samples.count == 1)
    }

    // MARK: - Fields

    @Test func reportsANonNumberWithLineFieldAndName() throws {
        let error = try #require(traceError("t,x,y,z\n0,0,0,1\n0.01,0,abc,1\n", source: "run.csv"))
        #expect(error.kind == .notANumber)
        #expect(error.line == 3)
        #expect(error.column == 3)
        #expect(error.field == "y")
        #expect(error.description == "run.csv:3:3: expected a number for \"y\", found \"abc\"")
    }

    @Test(arguments: ["1.2.3", "e5", "--1", "0x10", "1e", "abc", "\"\""])
    func rejectsWhatIsNotANumber(_ field: String) throws {
        let error = try #require(traceError("t,x,y,z\n0,0,0,1\n0.01,\(field),0,1\n"))
        #expect(error.kind == .notANumber)
        #expect(error.line == 3)
        #expect(error.column == 2)
        #expect(error.field == "x")
    }

    @Test func reportsAnEmptyFieldOutsidePhyphoxAsNotANumber() throws {
        let error = try #require(traceError("t,x,y,z\n0,0,,1\n"))
        #expect(error.kind == .notANumber)
        #expect(error.column == 3)
        #expect(error.found == "an empty field")
    }

    @Test(arguments: ["nan", "NaN", "inf", "-Infinity", "1e400", "-1e999"])
    func rejectsNaNAndInfinity(_ field: String) throws {
        let error = try #require(traceError("t,x,y,z\n0,0,0,1\n0.01,0,0,\(field)\n", source: "run.csv"))
        #expect(error.kind == .notFinite)
        #expect(error.description == "run.csv:3:4: expected a finite number for \"z\", found \"\(field)\"")
    }

    @Test func rejectsANonFiniteTime() throws {
        let error = try #require(traceError("t,x,y,z\ninf,0,0,1\n"))
        #expect(error.kind == .notFinite)
        #expect(error.column == 1)
        #expect(error.field == "t")
    }

    @Test func reportsTheFirstBadFieldOfARow() throws {
        let error = try #require(traceError("t,x,y,z\n0,0,x,nan\n"))
        #expect(error.column == 3)
        #expect(error.kind == .notANumber)
    }

    @Test func reportsBadFieldsByTheirPlaceInTheFileNotTheirAxis() throws {
        // Sensor Logger's x is its fifth field.
        let error = try #require(traceError("time,seconds_elapsed,z,y,x\n1,0,0,0,oops\n"))
        #expect(error.column == 5)
        #expect(error.field == "x")
    }

    @Test func quotesAtMostFortyCharactersOfALongField() throws {
        let field = String(repeating: "7", count: 30) + String(repeating: "z", count: 30)
        let error = try #require(traceError("t,x,y,z\n0,\(field),0,1\n"))
        #expect(error.found == "\"" + field.prefix(40) + "…\"")
    }

    // MARK: - Time

    @Test func reportsTimeGoingBackwards() throws {
        let error = try #require(
            traceError("t,x,y,z\n0,0,0,1\n0.02,0,0,1\n0.02,0,0,1\n0.01,0,0,1\n", source: "run.csv"))
        #expect(error.kind == .timeWentBackwards)
        #expect(error.line == 5)
        #expect(error.column == 1)
        #expect(error.description == "run.csv:5:1: expected a time of at least 0.02 for \"t\", found \"0.01\"")
    }

    @Test func allowsNegativeAndRepeatedTimes() throws {
        let reading = try readTrace("t,x,y,z\n-0.01,0,0,1\n-0.01,0,0,1\n0,0,0,1\n")
        #expect(reading.samples.map(\.time) == [-0.01, -0.01, 0])
    }

    // MARK: - Ragged rows

    @Test func reportsARaggedRowAtTheFirstMissingField() throws {
        let error = try #require(traceError("t,x,y,z\n0,0,0,1\n0.01,0\n", source: "run.csv"))
        #expect(error.kind == .raggedRow)
        #expect(error.line == 3)
        #expect(error.column == 3)
        #expect(error.field == "y")
        #expect(error.description == "run.csv:3:3: expected a value for \"y\" in field 3, found a row of 2 fields")
    }

    @Test func reportsARaggedRowPastIgnoredColumns() throws {
        // Needed: fields 2 and 5 (seconds_elapsed, x); the row stops after field 3.
        let error = try #require(traceError("time,seconds_elapsed,z,y,x\n1,0,0\n"))
        #expect(error.kind == .raggedRow)
        #expect(error.column == 4)
        #expect(error.field == "y")
    }

    @Test func reportsAOneFieldRow() throws {
        let error = try #require(traceError("t,x,y,z\n0\n"))
        #expect(error.found == "a row of 1 field")
        #expect(error.column == 2)
    }

    // MARK: - Long lines

    @Test(arguments: [64, 4096, Int.max])
    func reportsALineLongerThanTheLimit(chunkSize: Int) throws {
        let long = String(repeating: "9", count: TraceReader.maximumLineLength + 1)
        let text = "t,x,y,z\n0,0,0,1\n\(long)\n0.01,0,0,1\n"
        let error = try #require(traceError(text, chunkSize: chunkSize))
        #expect(error.kind == .lineTooLong)
        #expect(error.line == 3)

        let lenient = try readTrace(text, lenient: true, chunkSize: chunkSize)
        #expect(lenient.samples.map(\.time) == [0, 0.01])
        #expect(lenient.summary.skippedRows == 1)
        #expect(lenient.summary.errors.map(\.line) == [3])
        #expect(lenient.summary.lineCount == 4)
    }

    @Test(arguments: [64, 4096, Int.max])
    func readsALineAtTheLimitWhateverItsLineEnd(chunkSize: Int) throws {
        // Exactly the limit once its `\r` is gone: read (and found broken for its content), not
        // dropped as too long, wherever the chunks split it.
        let atLimit = "0.01," + String(repeating: "9", count: TraceReader.maximumLineLength - 9) + ",0,1"
        #expect(atLimit.utf8.count == TraceReader.maximumLineLength)
        let error = try #require(traceError("t,x,y,z\r\n0,0,0,1\r\n\(atLimit)\r\n", chunkSize: chunkSize))
        #expect(error.kind == .notFinite)
        #expect(error.line == 3)
    }

    // MARK: - Lenient mode

    @Test func skipsAndCountsBadRowsInLenientMode() throws {
        let text = """
            t,x,y,z
            0,0,0,1
            0.01,abc,0,1
            0.02,0,0,1
            0.015,0,0,1
            0.03,0,nan,1
            0.04,0
            0.05,0,0,1

            """
        let reading = try readTrace(text, lenient: true)
        #expect(reading.samples.map(\.time) == [0, 0.02, 0.05])
        #expect(reading.summary.skippedRows == 4)
        #expect(reading.summary.errors.map(\.kind) == [.notANumber, .timeWentBackwards, .notFinite, .raggedRow])
        #expect(reading.summary.errors.map(\.line) == [3, 5, 6, 7])
    }

    @Test func comparesTimeWithTheLastGoodRowAfterASkippedOne() throws {
        // The skipped row's late time must not make the next good row look early.
        let reading = try readTrace("t,x,y,z\n0,0,0,1\n9,abc,0,1\n0.01,0,0,1\n", lenient: true)
        #expect(reading.samples.map(\.time) == [0, 0.01])
        #expect(reading.summary.skippedRows == 1)
    }

    @Test func keepsOnlyTheFirstErrorsButCountsAll() throws {
        let text = "t,x,y,z\n" + (0..<25).map { "\($0),bad,0,1\n" }.joined() + "25,0,0,1\n"
        let reading = try readTrace(text, lenient: true)
        #expect(reading.summary.skippedRows == 25)
        #expect(reading.summary.errors.count == TraceReader.keptErrors)
        #expect(reading.summary.errors.first?.line == 2)
        #expect(reading.samples.count == 1)
    }

    @Test func stillThrowsForAnUnknownHeaderInLenientMode() {
        #expect(throws: TraceError.self) { try readTrace("a,b\n1,2\n", lenient: true) }
        #expect(throws: TraceError.self) { try readTrace("", lenient: true) }
    }
}
