import PunchKit
import Testing

/// Headers of exports from devices beyond the four named formats, read as generic traces.
@Suite struct TraceReaderExportTests {
    @Test func readsAMetaWearExportByItsElapsedSeconds() throws {
        // MetaBase writes the epoch in ms, a wall-clock string and the elapsed seconds; only the
        // last is a usable number of seconds.
        let text = """
            epoch (ms),time (-08:00),elapsed (s),X-Axis (g),Y-Axis (g),Z-Axis (g)
            1572985339146,2019-11-05T12:22:19.146,0.000,-0.488,-1.019,0.720
            1572985339186,2019-11-05T12:22:19.186,0.040,-0.813,-0.039,0.786

            """
        let reading = try readTrace(text)
        #expect(reading.samples.map(\.time) == [0, 0.04])
        #expect(reading.samples.last?.acceleration == Vector3(-0.813, -0.039, 0.786))
        #expect(
            reading.summary.columns
                == TraceColumns(time: "elapsed (s)", x: "X-Axis (g)", y: "Y-Axis (g)", z: "Z-Axis (g)"))
        #expect(reading.summary.units == .g)
    }

    @Test func readsAControllerLogWithASpacedTimeStamp() throws {
        let reading = try readTrace(
            "time stamp,accel x,accel y,accel z,pitch,roll,yaw\n0,0.88,-0.18,0.48,0.01,0.02,0.01\n")
        #expect(reading.samples == [MotionSample(time: 0, acceleration: Vector3(0.88, -0.18, 0.48))])
    }
}
