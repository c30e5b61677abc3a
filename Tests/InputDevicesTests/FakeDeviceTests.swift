import InputDevices
import InputDevicesTestSupport
import Testing

/// Discovery and reading through real open(2), ioctl(2) and read(2) on nodes served by the FUSE fixture.
@Suite(
    .enabled(
        if: FakeEvdev.isAvailable,
        "needs /dev/fuse, cc, pkg-config and libfuse3-dev (apt: fuse3 libfuse3-dev pkg-config)"),
    .timeLimit(.minutes(1))
)
struct FakeDeviceTests {
    // MARK: Devices like the real ones (ids, names, ranges from the drivers)

    static var dualSenseEvents: EventScript {
        var script = EventScript()
        script.frame(
            at: 0,
            [(Raw.ABS_X, 0), (Raw.ABS_Y, 8192), (Raw.ABS_Z, 0), (Raw.ABS_RX, 1024), (Raw.ABS_RY, 0), (Raw.ABS_RZ, 0)],
            timestamp: 1000)
        script.frame(at: 4000, [(Raw.ABS_X, 16384)], timestamp: 5000)
        return script
    }

    static let keyboard = FakeNode.evdev(
        "event0", name: "AT Translated Set 2 keyboard", id: [0x0011, 0x0001, 0x0001, 0xAB41],
        accelerometer: false, axes: [], keys: true, events: [])

    static let gamepad = FakeNode.joystick(
        "js0", name: "Fake Gamepad", axisCount: 6,
        events:
            Bytes.js(0, 0, Raw.JS_EVENT_AXIS | Raw.JS_EVENT_INIT, 0)
            + Bytes.js(0, 0, Raw.JS_EVENT_AXIS | Raw.JS_EVENT_INIT, 1)
            + Bytes.js(0, 0, Raw.JS_EVENT_AXIS | Raw.JS_EVENT_INIT, 2) + Bytes.js(10, 1000, Raw.JS_EVENT_AXIS, 0)
            + Bytes.js(10, 2000, Raw.JS_EVENT_AXIS, 1) + Bytes.js(10, -1000, Raw.JS_EVENT_AXIS, 2))

    private func frames(_ source: inout some MotionFrameSource) throws -> [MotionFrame] {
        var frames: [MotionFrame] = []
        while let frame = try source.nextFrame() { frames.append(frame) }
        return frames
    }

    // MARK: Discovery

    @Test func discoveryListsMotionNodesWithAxesScalesAndKnownDevices() throws {
        let fixture = try FakeInputDirectory([
            Self.keyboard, FakeNode.dualSense(events: []), FakeNode.joyCon(events: []), FakeNode.wiiRemote(events: []),
            Self.gamepad,
        ])
        defer { fixture.stop() }
        let report = try InputDeviceDiscovery.scan(directory: fixture.path)
        #expect(report.failures.isEmpty)
        #expect(report.otherNodeCount == 1)  // the keyboard
        #expect(report.devices.map(\.path) == ["event3", "event5", "event7", "js0"].map(fixture.node))

        guard report.devices.count == 4,
            case .evdev(let dualSense, let dualSenseCalibration) = report.devices[0].kind,
            case .evdev(let joyCon, let joyConCalibration) = report.devices[1].kind,
            case .evdev(let wii, let wiiCalibration) = report.devices[2].kind,
            case .joystick(let gamepadName, let gamepadAxes) = report.devices[3].kind
        else {
            Issue.record("unexpected devices: \(report.devices)")
            return
        }
        #expect(dualSense.name == "Sony Interactive Entertainment DualSense Wireless Controller Motion Sensors")
        #expect(dualSense.id == InputID(bus: 5, vendor: 0x054C, product: 0x0CE6, version: 0x8100))
        #expect(dualSense.isAccelerometer)
        #expect(dualSense.sortedAxes.map(\.axis) == [.x, .y, .z, .rx, .ry, .rz])
        #expect(
            dualSense.axes[.y]
                == AbsoluteAxisInfo(value: 4096, minimum: -32768, maximum: 32767, fuzz: 16, flat: 0, resolution: 8192))
        let dualSenseResolved = try dualSenseCalibration.get()
        #expect(dualSenseResolved.knownDevice?.name == "DualSense")
        #expect(dualSenseResolved.unitsPerG == 8192)
        #expect(dualSenseResolved.unitsPerDegreePerSecond == 1024)

        #expect(joyCon.name == "Nintendo Switch Right Joy-Con (IMU)")
        #expect(try joyConCalibration.get().knownDevice?.driver == "hid-nintendo")
        #expect(try joyConCalibration.get().unitsPerDegreePerSecond == 14247)

        #expect(!wii.isAccelerometer)
        #expect(wii.axes[.rx] == AbsoluteAxisInfo(minimum: -500, maximum: 500, fuzz: 2, flat: 4, resolution: 0))
        #expect(try wiiCalibration.get().knownDevice?.driver == "hid-wiimote")
        #expect(try wiiCalibration.get().unitsPerG == 100)

        #expect(gamepadName == "Fake Gamepad")
        #expect(gamepadAxes == 6)
    }

    // MARK: Reading

    @Test func dualSenseFramesUseTheTimestampAndRereadAxesAfterSynDropped() throws {
        var script = Self.dualSenseEvents
        script.add(100, 8000, Raw.EV_ABS, Raw.ABS_X, 7)  // the start of a frame…
        script.add(100, 8000, Raw.EV_SYN, Raw.SYN_DROPPED, 0)  // …cut off by an overrun
        script.add(100, 8000, Raw.EV_ABS, Raw.ABS_Y, 123)
        script.add(100, 8000, Raw.EV_SYN, Raw.SYN_REPORT, 0)
        script.frame(at: 12000, [(Raw.ABS_Z, -8192)], timestamp: 13000)
        let fixture = try FakeInputDirectory([FakeNode.dualSense(events: script.bytes)])
        defer { fixture.stop() }
        let node = try EvdevNode.open(fixture.node("event3"))
        defer { node.close() }
        var reader = try node.motionReader()
        let frames = try frames(&reader)
        #expect(close(frames.map(\.time), [0.001, 0.005, 0.013]))
        #expect(
            frames.map(\.acceleration) == [
                MotionVector(x: 0, y: 1, z: 0),
                MotionVector(x: 2, y: 1, z: 0),
                // After the drop, X and Y come from EVIOCGABS (100 and 4096), not from the dropped events.
                MotionVector(x: 100.0 / 8192, y: 0.5, z: -1),
            ])
        #expect(
            frames.map(\.rotation) == [
                MotionVector(x: 1, y: 0, z: 0), MotionVector(x: 1, y: 0, z: 0), MotionVector(x: 0, y: 0, z: 0),
            ])
        #expect(reader.assembler.statistics.droppedReports == 1)
        #expect(reader.assembler.statistics.resynchronizations == 1)
        // All 23 events arrived in one read(2).
        #expect(reader.events.readCount == 1)
        #expect(reader.events.offset == script.eventCount * 24)
    }

    @Test func aSecondOfFastReportsIsReadInLargeBatches() throws {
        // 600 frames of four events (2400 events, more than a DualShock sends in a second over Bluetooth).
        var script = EventScript()
        script.frame(
            at: 0, [(Raw.ABS_X, 0), (Raw.ABS_Y, 0), (Raw.ABS_Z, 0), (Raw.ABS_RX, 0), (Raw.ABS_RY, 0), (Raw.ABS_RZ, 0)],
            timestamp: 0)
        for index in 1..<600 {
            script.frame(
                at: Int64(index) * 1666, [(Raw.ABS_X, Int32(index)), (Raw.ABS_Y, Int32(-index))],
                timestamp: UInt32(index) * 1666)
        }
        let fixture = try FakeInputDirectory([FakeNode.dualSense(events: script.bytes)])
        defer { fixture.stop() }
        let node = try EvdevNode.open(fixture.node("event3"))
        defer { node.close() }
        var reader = try node.motionReader()
        let frames = try frames(&reader)
        #expect(frames.count == 600)
        #expect(frames.last?.acceleration == MotionVector(x: 599.0 / 8192, y: -599.0 / 8192, z: 0))
        // 8 events in the first frame, 4 in each of the other 599: 2404 events of 24 bytes, in reads of
        // at most 256 events: 10 reads.
        #expect(script.eventCount == 2404)
        #expect(reader.events.readCount == 10)
    }

    @Test func joyConFramesUseEventTimeAndNodeResolution() throws {
        var script = EventScript()
        script.frame(
            at: 0,
            [
                (Raw.ABS_X, 4096), (Raw.ABS_Y, 0), (Raw.ABS_Z, -4096), (Raw.ABS_RX, 14247), (Raw.ABS_RY, 0),
                (Raw.ABS_RZ, 0),
            ])
        script.frame(at: 15000, [(Raw.ABS_Y, 2048)])
        let fixture = try FakeInputDirectory([FakeNode.joyCon(events: script.bytes)])
        defer { fixture.stop() }
        let node = try EvdevNode.open(fixture.node("event5"))
        defer { node.close() }
        var reader = try node.motionReader()
        let frames = try frames(&reader)
        #expect(close(frames.map(\.time), [100, 100.015]))
        #expect(frames.map(\.acceleration) == [MotionVector(x: 1, y: 0, z: -1), MotionVector(x: 1, y: 0.5, z: -1)])
        #expect(frames.first?.rotation == MotionVector(x: 1, y: 0, z: 0))
    }

    @Test func wiiRemoteFramesComeFromRotationalAxesMappedToTheReferenceFrame() throws {
        var script = EventScript()
        script.frame(at: 0, [(Raw.ABS_RX, 0), (Raw.ABS_RY, 0), (Raw.ABS_RZ, 100)])
        script.frame(at: 10000, [(Raw.ABS_RX, -100)])
        let fixture = try FakeInputDirectory([FakeNode.wiiRemote(events: script.bytes)])
        defer { fixture.stop() }
        let node = try EvdevNode.open(fixture.node("event7"))
        defer { node.close() }
        var reader = try node.motionReader()
        let frames = try frames(&reader)
        // Raw z (+1 g at rest) is "up" (y); raw x is "left", so −100 is 1 g to the right.
        #expect(frames.map(\.acceleration) == [MotionVector(x: 0, y: 1, z: 0), MotionVector(x: 1, y: 1, z: 0)])
        #expect(frames.allSatisfy { $0.rotation == nil })
    }

    @Test func joystickNodeFrames() throws {
        let fixture = try FakeInputDirectory([Self.gamepad])
        defer { fixture.stop() }
        let node = try JoystickNode.open(fixture.node("js0"))
        defer { node.close() }
        var reader = try node.motionReader(mapping: JoystickMotionMapping(unitsPerG: 1000))
        #expect(try frames(&reader) == [MotionFrame(time: 0.010, acceleration: MotionVector(x: 1, y: 2, z: -1))])
        #expect(
            throws: MotionConfigurationError.missingJoystickAxes(device: "Fake Gamepad", axes: [6, 9], axisCount: 6)
        ) {
            try node.motionReader(mapping: JoystickMotionMapping(axes: (0, 6, 9), unitsPerG: 1000))
        }
    }

    // MARK: Failures

    @Test func unplugMidStreamIsAClearErrorAndTheNodeDisappears() throws {
        var node = FakeNode.dualSense(events: Self.dualSenseEvents.bytes + Self.dualSenseEvents.bytes)
        node.unplugAt = Self.dualSenseEvents.bytes.count
        let fixture = try FakeInputDirectory([node])
        defer { fixture.stop() }
        let path = fixture.node("event3")
        let opened = try EvdevNode.open(path)
        defer { opened.close() }
        var reader = try opened.motionReader()
        #expect(try reader.nextFrame() != nil)
        #expect(try reader.nextFrame() != nil)
        #expect(throws: InputDeviceError.unplugged(path: path)) { try reader.nextFrame() }
        #expect(try InputDeviceDiscovery.scan(directory: fixture.path).devices.isEmpty)
    }

    @Test func permissionDeniedNamesTheGroupToJoin() throws {
        let group = try #require(TemporaryFiles.existingGroup(), "no group to give the node")
        var node = FakeNode.dualSense(events: [])
        node.denyOpen = true
        node.gid = group.gid
        let fixture = try FakeInputDirectory([node])
        defer { fixture.stop() }
        let path = fixture.node("event3")
        #expect(throws: InputDeviceError.permissionDenied(path: path, group: group.name)) { try EvdevNode.open(path) }
        #expect(
            try InputDeviceDiscovery.scan(directory: fixture.path).failures == [
                .permissionDenied(path: path, group: group.name)
            ])
    }

    @Test func truncatedRecordingOnANodeIsReported() throws {
        let fixture = try FakeInputDirectory([
            FakeNode.dualSense(
                events: Self.dualSenseEvents.bytes
                    + Array(Bytes.event24(100, 9000, Raw.EV_ABS, Raw.ABS_X, 1).prefix(12)))
        ])
        defer { fixture.stop() }
        let path = fixture.node("event3")
        let node = try EvdevNode.open(path)
        defer { node.close() }
        var reader = try node.motionReader()
        #expect(
            throws: EventDecodingError(
                source: path, offset: Self.dualSenseEvents.bytes.count, problem: .truncated(expected: 24, available: 12)
            )
        ) {
            try frames(&reader)
        }
    }
}
