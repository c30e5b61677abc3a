import InputDevices
import Testing

/// Builds InputEvents tersely: time in microseconds since 100 s.
private func event(_ micros: Int64, _ type: EventType, _ code: UInt16, _ value: Int32) -> InputEvent {
    InputEvent(
        seconds: 100 + micros / 1_000_000, microseconds: micros % 1_000_000, type: type, code: code, value: value)
}

private func report(_ micros: Int64) -> InputEvent { event(micros, .synchronization, Raw.SYN_REPORT, 0) }
private func dropped(_ micros: Int64) -> InputEvent { event(micros, .synchronization, Raw.SYN_DROPPED, 0) }
private func abs(_ micros: Int64, _ code: UInt16, _ value: Int32) -> InputEvent {
    event(micros, .absolute, code, value)
}
private func timestamp(_ micros: Int64, _ ticks: UInt32) -> InputEvent {
    event(micros, .miscellaneous, Raw.MSC_TIMESTAMP, Int32(bitPattern: ticks))
}

private func feed(_ assembler: inout EvdevFrameAssembler, _ events: [InputEvent]) throws -> [MotionFrame] {
    try events.compactMap { try assembler.consume($0) }
}

@Suite struct EvdevFrameAssemblerTests {
    /// 8192 units per g, like hid-playstation.
    let calibration = MotionCalibration(unitsPerG: 8192)

    @Test func oneFramePerSynReportScaledToG() throws {
        var assembler = EvdevFrameAssembler(calibration: calibration)
        let frames = try feed(
            &assembler,
            [
                abs(0, Raw.ABS_X, 4096), abs(0, Raw.ABS_Y, -8192), abs(0, Raw.ABS_Z, 16384), report(0),
                abs(4000, Raw.ABS_X, 0), report(4000),
            ])
        #expect(close(frames.map(\.time), [100, 100.004]))
        #expect(
            frames.map(\.acceleration) == [
                MotionVector(x: 0.5, y: -1, z: 2),
                // Only ABS_X changed; Y and Z keep their values, as evdev sends only changes.
                MotionVector(x: 0, y: -1, z: 2),
            ])
        #expect(frames.allSatisfy { $0.rotation == nil })
        #expect(assembler.statistics.frames == 2)
    }

    @Test func noFrameUntilEveryAxisIsKnown() throws {
        var assembler = EvdevFrameAssembler(calibration: calibration)
        let frames = try feed(
            &assembler,
            [
                abs(0, Raw.ABS_X, 1), report(0), abs(1000, Raw.ABS_Y, 2), report(1000), abs(2000, Raw.ABS_Z, 3),
                report(2000),
            ])
        #expect(close(frames.map(\.time), [100.002]))
    }

    @Test func initialValuesFromTheNodeCountAsKnown() throws {
        var assembler = EvdevFrameAssembler(calibration: calibration, initialValues: [.x: 0, .y: 8192, .z: 0])
        let frames = try feed(&assembler, [abs(0, Raw.ABS_X, 8192), report(0)])
        #expect(frames.map(\.acceleration) == [MotionVector(x: 1, y: 1, z: 0)])
    }

    @Test func mscTimestampGivesTimeAndUnwraps() throws {
        var assembler = EvdevFrameAssembler(calibration: calibration, initialValues: [.x: 0, .y: 0, .z: 0])
        let frames = try feed(
            &assembler,
            [
                timestamp(0, 0xFFFF_F000), report(0),  // 4294.963200 s on the sensor's clock
                timestamp(4000, 0x0000_0FA0), report(4000),  // wrapped: 0x1000 + 0xFA0 = 8096 µs later
                timestamp(8000, 0x0000_1F40), report(8000),  // 4000 µs later
            ])
        let start = Double(0xFFFF_F000) / 1_000_000
        #expect(close(frames.map(\.time), [start, start + 0.008096, start + 0.008096 + 0.004]))
        #expect(assembler.statistics.clockResets == 0)
    }

    @Test func mscTimestampResetFallsBackToEventTimeStep() throws {
        var assembler = EvdevFrameAssembler(calibration: calibration, initialValues: [.x: 0, .y: 0, .z: 0])
        let frames = try feed(
            &assembler,
            [
                timestamp(0, 3_000_000_000), report(0),
                // The controller reconnected: its clock restarts near 0. Modular arithmetic would call this
                // a step of ~1295 s; the event time says 5 ms passed.
                timestamp(5000, 1000), report(5000),
                timestamp(9000, 5000), report(9000),
            ])
        #expect(close(frames.map(\.time), [3000, 3000.005, 3000.009]))
        #expect(assembler.statistics.clockResets == 1)
    }

    @Test func synDroppedMidFrameDropsThroughNextReportThenRereadsAxes() throws {
        var requested: [[AbsoluteAxis]] = []
        var assembler = EvdevFrameAssembler(calibration: calibration, initialValues: [.x: 0, .y: 0, .z: 0]) { axes in
            requested.append(axes)
            return [.x: 8192, .y: 4096, .z: -8192]
        }
        let frames = try feed(
            &assembler,
            [
                abs(0, Raw.ABS_X, 100), report(0),
                abs(1000, Raw.ABS_X, 999),  // the first half of a frame…
                dropped(1000),  // …then the buffer overran
                abs(1000, Raw.ABS_Y, 555), timestamp(1000, 42), report(1000),  // dropped up to and including this report
                abs(3000, Raw.ABS_Z, 0), report(3000),
            ])
        #expect(requested == [[.x, .y, .z]])
        #expect(close(frames.map(\.time), [100, 100.003]))
        #expect(
            frames.map(\.acceleration) == [
                MotionVector(x: 100.0 / 8192, y: 0, z: 0),
                // X and Y come from the re-read (not 999 or 555); Z from the new frame.
                MotionVector(x: 1, y: 0.5, z: 0),
            ])
        #expect(assembler.statistics.droppedReports == 1)
        #expect(assembler.statistics.resynchronizations == 1)
    }

    @Test func synDroppedWithoutAReaderKeepsTheLastCompleteState() throws {
        var assembler = EvdevFrameAssembler(calibration: calibration, initialValues: [.x: 0, .y: 0, .z: 0])
        let frames = try feed(
            &assembler,
            [
                abs(0, Raw.ABS_X, 8192), report(0),
                dropped(1000), abs(1000, Raw.ABS_X, 1), report(1000),
                abs(2000, Raw.ABS_Y, 8192), report(2000),
            ])
        #expect(frames.map(\.acceleration) == [MotionVector(x: 1, y: 0, z: 0), MotionVector(x: 1, y: 1, z: 0)])
        #expect(assembler.statistics.resynchronizations == 0)
    }

    @Test func failingRereadIsThrown() throws {
        var assembler = EvdevFrameAssembler(calibration: calibration) { _ in
            throw InputDeviceError.unplugged(path: "/dev/input/event9")
        }
        #expect(throws: InputDeviceError.unplugged(path: "/dev/input/event9")) {
            try feed(&assembler, [dropped(0), report(0)])
        }
    }

    @Test(arguments: [
        // x,-z,y is a proper rotation (90° about x): acceleration and rotation rate map alike.
        ("x,-z,y", MotionVector(x: 1, y: -3, z: 2), MotionVector(x: 1, y: -3, z: 2)),
        // y,x,z swaps two axes, a mirror: rotation rates are axial vectors and flip sign as well.
        ("y,x,z", MotionVector(x: 2, y: 1, z: 3), MotionVector(x: -2, y: -1, z: -3)),
    ])
    func axisMapAppliesToAccelerationAndRotation(
        axes: String, acceleration: MotionVector, rotation: MotionVector
    ) throws {
        let calibration = MotionCalibration(
            rotationAxes: [.rx, .ry, .rz], axisMap: try AxisMap(parsing: axes), unitsPerG: 100,
            unitsPerDegreePerSecond: 10)
        var assembler = EvdevFrameAssembler(calibration: calibration)
        let frames = try feed(
            &assembler,
            [
                abs(0, Raw.ABS_X, 100), abs(0, Raw.ABS_Y, 200), abs(0, Raw.ABS_Z, 300),
                abs(0, Raw.ABS_RX, 10), abs(0, Raw.ABS_RY, 20), abs(0, Raw.ABS_RZ, 30), report(0),
            ])
        #expect(frames == [MotionFrame(time: 100, acceleration: acceleration, rotation: rotation)])
    }
}

@Suite struct SensorClockTests {
    @Test func withoutTicksTheEventTimeIsUsed() {
        var clock = SensorClock(ticksPerSecond: 1_000_000)
        #expect(clock.time(ticks: nil, eventTime: 12.5) == 12.5)
        #expect(clock.time(ticks: nil, eventTime: 12.75) == 12.75)
    }

    @Test func neverGoesBackwards() {
        // CLOCK_REALTIME event times can step back (NTP); frames must not.
        var clock = SensorClock(ticksPerSecond: 1_000_000)
        #expect(clock.time(ticks: nil, eventTime: 10) == 10)
        #expect(clock.time(ticks: nil, eventTime: 9) == 10)
    }

    @Test func joydevMillisecondsWrap() {
        var clock = SensorClock(ticksPerSecond: 1000)
        #expect(clock.time(ticks: UInt32.max - 4, eventTime: nil) == Double(UInt32.max - 4) / 1000)
        #expect(close([clock.time(ticks: 5, eventTime: nil)], [Double(UInt32.max - 4) / 1000 + 0.010]))
    }
}

@Suite struct JoystickFrameAssemblerTests {
    private func js(_ ms: UInt32, _ number: UInt8, _ value: Int16, initial: Bool = false) -> JoystickEvent {
        JoystickEvent(milliseconds: ms, value: value, kind: .axis, isInitialState: initial, number: number)
    }

    @Test func initEventsSetStateAndThreeChangesMakeAFrame() {
        var assembler = JoystickFrameAssembler(mapping: JoystickMotionMapping(unitsPerG: 1000))
        var frames: [MotionFrame?] = [
            js(0, 0, 0, initial: true), js(0, 1, 0, initial: true), js(0, 2, 1000, initial: true),
        ].map { assembler.consume($0) }
        frames += [js(10, 0, 500), js(10, 1, -500), js(10, 2, 2000)].map { assembler.consume($0) }
        #expect(
            frames.compactMap(\.self) == [
                MotionFrame(time: 10.0 / 1000, acceleration: MotionVector(x: 0.5, y: -0.5, z: 2))
            ])
        #expect(assembler.resynchronizations == 0)
    }

    @Test func aLaterTimeFlushesAPartialFrame() {
        var assembler = JoystickFrameAssembler(mapping: JoystickMotionMapping(axes: (3, 4, 5), unitsPerG: 100))
        _ = [js(0, 3, 0, initial: true), js(0, 4, 0, initial: true), js(0, 5, 100, initial: true)].map {
            assembler.consume($0)
        }
        #expect(assembler.consume(js(20, 3, 100)) == nil)
        #expect(assembler.consume(js(20, 0, 7)) == nil)  // an unmapped axis changes nothing
        // Only axis 3 changed at 20 ms; the event at 35 ms emits the 20 ms frame first.
        #expect(
            assembler.consume(js(35, 4, 100))
                == MotionFrame(time: 20.0 / 1000, acceleration: MotionVector(x: 1, y: 0, z: 1)))
        let last = assembler.finish()
        #expect(last?.acceleration == MotionVector(x: 1, y: 1, z: 1))
        #expect(close([last?.time ?? 0], [0.035]))
        #expect(assembler.finish() == nil)
    }

    @Test func initBurstAfterLiveEventsCountsAsOverflow() {
        var assembler = JoystickFrameAssembler(mapping: JoystickMotionMapping(unitsPerG: 1))
        _ = [
            js(0, 0, 0, initial: true), js(0, 1, 0, initial: true), js(0, 2, 0, initial: true), js(5, 0, 1),
            js(9, 0, 2, initial: true), js(9, 1, 2, initial: true), js(9, 2, 2, initial: true),
        ].map { assembler.consume($0) }
        #expect(assembler.resynchronizations == 1)
    }
}
