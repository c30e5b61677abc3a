import Testing

@testable import PunchKit

/// Every style the writer has, each variant once.
private let allStyles: [TraceWriter.Style] =
    [
        .generic, .genericWithUnits, .physicsToolbox, .sensorLogger(),
        .sensorLogger(epochNanosecondsAtZero: 1_500_000_000_123_456_789),
    ]
    + TraceWriter.PhyphoxDialect.allCases.flatMap { dialect -> [TraceWriter.Style] in
        [.phyphox(dialect, gravityIncluded: true), .phyphox(dialect, gravityIncluded: false)]
    }

@Suite struct TraceWriterTests {
    // MARK: - Round trips

    @Test(arguments: allStyles)
    func readsBackWhatItWrote(_ style: TraceWriter.Style) throws {
        let writer = TraceWriter(style)
        var gravity = true
        var source = "trace.csv"
        if case .phyphox(_, let gravityIncluded) = style { gravity = gravityIncluded }
        if case .sensorLogger = style { source = "TotalAcceleration.csv" }
        let samples = madeUpSamples(count: 700, rate: 200, gravity: gravity)

        let reading = try readTrace(writer.bytes(samples), source: source)

        #expect(reading.summary.format == writer.format)
        #expect(reading.summary.gravityIncluded == gravity)
        #expect(reading.summary.timeUnit == .seconds)
        // phyphox prints ten significant digits; the others print each double exactly, and only
        // the conversion to m/s² and back may cost the last bit.
        let tolerance = writer.format == .phyphox ? 1e-9 : 1e-15
        #expect(samplesAgree(reading.samples, samples, relative: tolerance, absolute: 1e-15))
    }

    @Test(arguments: [true, false])
    func readsBackSensorLoggerLinearAccelerationNamedAccelerometer(gravity: Bool) throws {
        let samples = madeUpSamples(count: 50, gravity: gravity)
        let source = gravity ? "TotalAcceleration.csv" : "Accelerometer.csv"
        let reading = try readTrace(TraceWriter(.sensorLogger()).bytes(samples), source: source)
        #expect(reading.summary.gravityIncluded == gravity)
        #expect(samplesAgree(reading.samples, samples, relative: 1e-15, absolute: 1e-15))
    }

    @Test func readsBackGenericLinearAccelerationInMetresPerSecondSquared() throws {
        // Written in g without gravity, it rests near 0 and is taken as m/s² unless the caller
        // says otherwise: the reader cannot tell, and says so by its guess.
        let samples = madeUpSamples(count: 300, gravity: false)
        let bytes = TraceWriter(.generic).bytes(samples)
        #expect(try readTrace(bytes).summary.units == .metersPerSecondSquared)
        let forced = try readTrace(bytes, units: .g)
        #expect(forced.summary.gravityIncluded == false)
        #expect(forced.samples == samples)
    }

    @Test func readsBackGenericLinearAccelerationWithUnitsInTheHeaderAsWritten() throws {
        let samples = madeUpSamples(count: 300, gravity: false)
        let reading = try readTrace(TraceWriter(.genericWithUnits).bytes(samples))
        #expect(reading.summary.units == .g)
        #expect(!reading.summary.unitsFromData)
        #expect(reading.summary.gravityIncluded == false)
        #expect(reading.samples == samples)
    }

    @Test func writesNothingButTheHeaderForNoSamples() throws {
        for style in allStyles {
            let bytes = TraceWriter(style).bytes([])
            #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 1)
            #expect(try readTrace(bytes).samples.isEmpty)
        }
    }

    // MARK: - What the files look like

    @Test func writesPhyphoxHeadersAsPhyphoxDoes() {
        var text = ""
        TraceWriter(.phyphox()).appendHeader(to: &text)
        #expect(
            text == "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\","
                + "\"Absolute acceleration (m/s^2)\"\n")
        text = ""
        TraceWriter(.phyphox(.tabWithDecimalComma, gravityIncluded: false)).appendHeader(to: &text)
        #expect(text.hasPrefix("\"Time (s)\"\t\"Linear Acceleration x (m/s^2)\"\t"))
    }

    @Test func writesPhyphoxNumbersWithTenSignificantDigits() {
        var text = ""
        let sample = MotionSample(time: 9.364549e-3, acceleration: Vector3(-0.5, 1, 0) / standardGravity)
        TraceWriter(.phyphox(.semicolonWithDecimalComma)).appendRow(sample, to: &text)
        let fields = text.dropLast().split(separator: ";").map(String.init)
        #expect(fields.count == 5)
        #expect(fields[0] == "9,364549000E-3")
        #expect(fields[1].hasPrefix("-5,0000000") && fields[1].hasSuffix("E-1"))
        #expect(fields[2].hasPrefix("1,0000000") || fields[2].hasPrefix("9,9999999"))
    }

    @Test(arguments: [
        (9.364549e-3, "9.364549000E-3"), (-0.1533477783, "-1.533477783E-1"), (9.81, "9.810000000E0"),
        (0, "0.000000000E0"), (1234.5, "1.234500000E3"), (1e-300, "1.000000000E-300"),
        // Rounded half up at the tenth digit, carrying into a new leading digit when all are nines.
        (1.23456789049, "1.234567890E0"), (1.23456789050, "1.234567891E0"), (0.99999999999, "1.000000000E0"),
        (123456789012345.0, "1.234567890E14"),
    ])
    func formatsNumbersAsPhyphoxDoes(value: Double, written: String) {
        #expect(TraceWriter.scientific(value, significantDigits: 10) == written)
    }

    @Test func writesSensorLoggerEpochTimeAndAxesInItsOrder() throws {
        var text = ""
        let writer = TraceWriter(.sensorLogger(epochNanosecondsAtZero: 1_700_000_000_000_000_000))
        writer.appendRow(MotionSample(time: -0.25, acceleration: Vector3(1, 2, 3)), to: &text)
        let fields = text.dropLast().split(separator: ",").map(String.init)
        #expect(fields.count == 5)
        #expect(fields[0] == "1699999999750000000")
        #expect(fields[1] == "-0.25")
        #expect(fields[2...].compactMap(Double.init) == [3 * standardGravity, 2 * standardGravity, standardGravity])
    }

    @Test func writesPhysicsToolboxTotalGForce() throws {
        var text = ""
        TraceWriter(.physicsToolbox).write([MotionSample(time: 0.5, acceleration: Vector3(0, 3, 4))], to: &text)
        #expect(text == "time,gFx,gFy,gFz,TgF\n0.5,0.0,3.0,4.0,5.0\n")
    }

    @Test func writesTimesTooFarOutForNanosecondsWithoutTrapping() {
        let overflowing = TraceWriter.epochNanoseconds(Int64.max - 10, plus: 1)
        #expect(Double(overflowing) == Double(Int64.max - 10) + 1e9)
        #expect(TraceWriter.epochNanoseconds(0, plus: .infinity) == "inf")
    }
}

extension TraceWriter.Style: CustomTestStringConvertible {
    /// The style as Swift prints it, naming its variant.
    public var testDescription: String { "\(self)" }
}

@Suite struct TraceWriterRotationTests {
    /// A generic trace with rotation columns reads back with the same rotation rates.
    @Test func aGenericTraceWithRotationReadsBack() throws {
        let samples = (0..<300).map { index in
            MotionSample(
                time: Double(index) / 100, acceleration: Vector3(0, 0.5, 1),
                rotationRate: Vector3(Double(index) / 10, -1.25, 0.003))
        }
        let writer = TraceWriter(.generic, rotation: true)
        let read = try TraceReader.readAll(bytes: writer.bytes(samples), source: "gyro.csv")
        #expect(read == samples)
        // Written without: the columns are not there.
        #expect(try TraceReader.readAll(bytes: TraceWriter(.generic).bytes(samples), source: "t.csv").allSatisfy {
            $0.rotationRate == nil
        })
    }
}
