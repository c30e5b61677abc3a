import PunchKit
import Testing

/// A gyroscope's file of an export, and rotation columns beside acceleration.
@Suite struct TraceReaderGyroscopeTests {
    func readGyroscope(_ text: String, source: String = "Gyroscope.csv", sharedClock: Bool = false) throws
        -> [MotionSample]
    {
        try TraceReader.readAll(bytes: Array(text.utf8), source: source, sensor: .gyroscope, sharedClock: sharedClock)
    }

    @Test func readsSensorLoggersGyroscopeInRadiansASecond() throws {
        let samples = try readGyroscope(
            "time,seconds_elapsed,z,y,x\n1696409036958328800,0.17,-0.73,-0.47,-0.06\n1696409036968328700,0.18,1,2,3\n")
        #expect(samples.map(\.time) == [0.17, 0.18])
        // Its columns come z, y, x; the sample is x, y, z.
        #expect(samples.map(\.rotationRate) == [Vector3(-0.06, -0.47, -0.73), Vector3(3, 2, 1)])
        #expect(samples.allSatisfy { $0.acceleration == .zero })
    }

    @Test func readsPhyphoxsPerSensorGyroscope() throws {
        let samples = try readGyroscope(
            "\"Time (s)\",\"X (rad/s)\",\"Y (rad/s)\",\"Z (rad/s)\"\n1.82E-2,-5.37E-2,-1.0E-1,-3.45E-1\n")
        #expect(samples.map(\.rotationRate) == [Vector3(-0.0537, -0.1, -0.345)])
    }

    /// MetaBase writes degrees a second, and its `elapsed (s)` starts at 0 in each sensor's
    /// file: read for an export, the time is its epoch, which the files share.
    @Test func readsMetaBasesGyroscopeInDegreesOnTheSharedClock() throws {
        let text = """
            epoch (ms),time (-08:00),elapsed (s),X-Axis (°/s),Y-Axis (°/s),Z-Axis (°/s)
            1572983929181,2019-11-05T11:58:49.181,0.000,180,-90,0

            """
        let shared = try readGyroscope(text, source: "A_Gyroscope_1.csv", sharedClock: true)
        #expect(shared.map(\.time) == [1_572_983_929.181])
        let rate = try #require(shared.first?.rotationRate)
        #expect(abs(rate.x - Double.pi) < 1e-12 && abs(rate.y + Double.pi / 2) < 1e-12 && rate.z == 0)
        #expect(try readGyroscope(text, source: "A_Gyroscope_1.csv").map(\.time) == [0])
    }

    /// A degree sign written in Latin-1 (one byte, 0xB0) is no unit the header can name: the
    /// rates' size tells degrees.
    @Test func aGarbledDegreeSignLeavesTheUnitToTheData() throws {
        var bytes = Array("epoch (ms),time (-08:00),elapsed (s),X-Axis (".utf8) + [0xB0] + Array("/s),Y-Axis (".utf8)
        bytes += [0xB0] + Array("/s),Z-Axis (".utf8) + [0xB0] + Array("/s)\n".utf8)
        for index in 0..<300 {
            bytes += Array("\(1_000_000 + 10 * index),x,\(Double(index) / 100),\(index == 100 ? 400 : 2),0,0\n".utf8)
        }
        var reader = TraceReader(source: "A_Gyroscope_1.csv", sensor: .gyroscope)
        var samples: [MotionSample] = []
        try bytes.withUnsafeBytes { try reader.feed($0) { samples.append($0) } }
        try reader.finish { samples.append($0) }
        #expect(reader.summary.rotationUnit == .degreesPerSecond && reader.summary.rotationUnitFromData)
        #expect(samples.count == 300)
        #expect(samples[100].rotationRate.map { abs($0.x - 400 * Double.pi / 180) < 1e-9 } == true)
    }

    @Test func anAccelerometersFileIsNoGyroscope() {
        #expect(throws: TraceError.self) {
            try readGyroscope("time,seconds_elapsed,z,y,x\n1,0,9.8,0,0\n", source: "TotalAcceleration.csv")
        }
    }

    /// `t,ax,ay,az,gx,gy,gz`: the rotation read beside the acceleration, its unit from the header…
    @Test func readsRotationColumnsBesideAcceleration() throws {
        let reading = try readTrace("t,ax,ay,az,gx (deg/s),gy (deg/s),gz (deg/s)\n0,0,0,1,90,0,-180\n0.01,0,0,1,0,0,0\n")
        #expect(reading.summary.columns?.rotation == ["gx (deg/s)", "gy (deg/s)", "gz (deg/s)"])
        #expect(reading.summary.rotationUnit == .degreesPerSecond)
        let rate = try #require(reading.samples.first?.rotationRate)
        #expect(abs(rate.x - Double.pi / 2) < 1e-12 && abs(rate.z + Double.pi) < 1e-12)
        #expect(reading.samples.first?.acceleration == Vector3(0, 0, 1))
    }

    /// … or, where the header names none, from the data: no arm turns at 40 rad/s.
    @Test(arguments: [(300.0, RotationUnit.degreesPerSecond), (6.0, .radiansPerSecond)])
    func takesTheRotationUnitFromTheData(largest: Double, unit: RotationUnit) throws {
        let rows = (0..<300).map { "\(Double($0) / 100),0,0,1,\($0 == 150 ? largest : 0.5),0,0" }
        let reading = try readTrace((["time,x,y,z,gyro_x,gyro_y,gyro_z"] + rows).joined(separator: "\n"))
        #expect(reading.summary.rotationUnit == unit)
        #expect(reading.summary.rotationUnitFromData)
    }

    @Test func aFileWithoutRotationColumnsHasNoRotationRate() throws {
        let reading = try readTrace("t,x,y,z\n0,0,0,1\n")
        #expect(reading.samples.first?.rotationRate == nil)
        #expect(reading.summary.columns?.rotation == [])
    }
}
