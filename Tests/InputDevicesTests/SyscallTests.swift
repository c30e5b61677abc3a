import Glibc
import InputDevices
import InputDevicesTestSupport
import Testing

@Suite struct IOControlRequestTests {
    // The request numbers as include/uapi/linux/input.h and joystick.h define them (x86_64), from the issue.
    static let expectations: [(IOControlRequest, UInt)] = [
        (.evdevName(length: 256), 0x8000_4506 | 256 << 16),
        (.evdevID, 0x8008_4502),
        (.evdevProperties(length: 4), 0x8000_4509 | 4 << 16),
        (.evdevBits(eventType: .synchronization, length: 4), 0x8000_4520 | 4 << 16),
        (.evdevBits(eventType: .absolute, length: 8), 0x8000_4523 | 8 << 16),
        (.evdevAbsoluteInfo(axis: .x), 0x8018_4540),
        (.evdevAbsoluteInfo(axis: .rz), 0x8018_4545),
        (.evdevGrab, 0x4004_4590),
        (.joystickAxes, 0x8001_6A11),
        (.joystickName(length: 128), 0x8000_6A13 | 128 << 16),
    ]

    @Test(arguments: expectations)
    func requestNumbersMatchTheKernelHeaders(request: IOControlRequest, expected: UInt) {
        #expect(request.rawValue == expected)
    }

    @Test func fieldsRoundTrip() {
        let request = IOControlRequest.evdevAbsoluteInfo(axis: .z)
        #expect(request.direction == .read)
        #expect(request.type == UInt8(ascii: "E"))
        #expect(request.number == 0x42)
        #expect(request.size == 24)
    }

    @Test func refusesABufferSmallerThanTheRequestSize() throws {
        // The size check happens before the call, so even a bad descriptor is not touched.
        var bytes = [UInt8](repeating: 0, count: 8)
        let error = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(Errno) in
                try FileDescriptor(rawValue: -1).control(.evdevAbsoluteInfo(axis: .x), buffer: buffer)
            }
        }
        #expect(throws: Errno.invalidArgument) { try error.get() }
    }
}

@Suite struct ErrorMappingTests {
    @Test(arguments: [
        (ENODEV, InputDeviceError.unplugged(path: "/n")),
        (ENOTTY, .notAnInputDevice(path: "/n")),
        (ENOENT, .notFound(path: "/n")),
        (EINTR, .interrupted(path: "/n")),
        (EIO, .system(path: "/n", operation: .read, errno: Errno(rawValue: EIO))),
    ])
    func errnoMapsToCases(code: CInt, expected: InputDeviceError) {
        #expect(InputDeviceError(Errno(rawValue: code), path: "/n", operation: .read) == expected)
    }

    @Test func permissionDeniedNamesTheNodesGroup() throws {
        let group = try #require(TemporaryFiles.existingGroup(), "no group to chown to in the group database")
        let path = try TemporaryFiles.file(contents: [])
        defer { unlink(path) }
        #expect(chown(path, getuid(), group.gid) == 0)
        let error = InputDeviceError(Errno(rawValue: EACCES), path: path, operation: .open)
        #expect(error == .permissionDenied(path: path, group: group.name))
        #expect(error.description.contains("usermod -aG \(group.name)"))
    }

    @Test func regularFileIsNotAnInputDevice() throws {
        let path = try TemporaryFiles.file(contents: Array("not a device".utf8))
        defer { unlink(path) }
        #expect(throws: InputDeviceError.notAnInputDevice(path: path)) { try EvdevNode.open(path) }
        #expect(throws: InputDeviceError.notAnInputDevice(path: path)) { try JoystickNode.open(path) }
    }

    @Test func missingNodeIsNotFound() {
        #expect(throws: InputDeviceError.notFound(path: "/nonexistent/event0")) {
            try EvdevNode.open("/nonexistent/event0")
        }
    }

    @Test func discoveryReportsUnreadableNodesAndSkipsOtherNames() throws {
        let directory = try TemporaryFiles.directory()
        defer { TemporaryFiles.remove(directory) }
        for name in ["event10", "event2", "js0", "mouse0", "eventX"] {
            let file = fopen(directory + "/" + name, "w")
            fclose(file)
        }
        let report = try InputDeviceDiscovery.scan(directory: directory)
        #expect(report.devices.isEmpty)
        #expect(report.failures == ["event2", "event10", "js0"].map { .notAnInputDevice(path: directory + "/" + $0) })
    }

    @Test func discoveryOfAMissingDirectoryThrows() {
        #expect(throws: InputDeviceError.notFound(path: "/nonexistent-input")) {
            try InputDeviceDiscovery.scan(directory: "/nonexistent-input")
        }
    }
}

@Suite struct PipeTests {
    private func pipeReader(_ bytes: [UInt8], layout: InputEventLayout) throws -> EvdevMotionReader<FileDescriptor> {
        var ends: [CInt] = [0, 0]
        #expect(pipe(&ends) == 0)
        // Well under the 64 KiB pipe buffer, so writing before reading cannot block.
        #expect(bytes.count < 60_000)
        #expect(write(ends[1], bytes, bytes.count) == bytes.count)
        close(ends[1])
        let calibration = try MotionCalibration.resolve(for: .unknown, overrides: MotionOverrides(unitsPerG: 1000))
        return EvdevMotionReader(
            source: FileDescriptor(rawValue: ends[0]), sourceName: "-", layout: layout,
            assembler: EvdevFrameAssembler(calibration: calibration))
    }

    @Test func framesFromA24BytePipe() throws {
        var script = EventScript()
        script.frame(at: 0, [(Raw.ABS_X, 1000), (Raw.ABS_Y, 0), (Raw.ABS_Z, -500)])
        script.frame(at: 2500, [(Raw.ABS_Y, 250)])
        var reader = try pipeReader(script.bytes, layout: .sixtyFourBit)
        defer { try? reader.events.source.close() }
        #expect(try reader.nextFrame()?.acceleration == MotionVector(x: 1, y: 0, z: -0.5))
        #expect(try reader.nextFrame()?.acceleration == MotionVector(x: 1, y: 0.25, z: -0.5))
        #expect(try reader.nextFrame() == nil)
    }

    @Test func framesFromA16BytePipe() throws {
        let bytes =
            Bytes.event16(5, 0, Raw.EV_ABS, Raw.ABS_X, 2000) + Bytes.event16(5, 0, Raw.EV_ABS, Raw.ABS_Y, 0)
            + Bytes.event16(5, 0, Raw.EV_ABS, Raw.ABS_Z, 1000) + Bytes.event16(5, 0, Raw.EV_SYN, Raw.SYN_REPORT, 0)
        var reader = try pipeReader(bytes, layout: .thirtyTwoBit)
        defer { try? reader.events.source.close() }
        #expect(try reader.nextFrame() == MotionFrame(time: 5, acceleration: MotionVector(x: 2, y: 0, z: 1)))
    }

    @Test func truncatedEventInAPipeIsAnErrorNotAHang() throws {
        var script = EventScript()
        script.frame(at: 0, [(Raw.ABS_X, 1), (Raw.ABS_Y, 2), (Raw.ABS_Z, 3)])
        var reader = try pipeReader(
            script.bytes + Bytes.event24(100, 0, Raw.EV_ABS, Raw.ABS_X, 9).prefix(20), layout: .sixtyFourBit)
        defer { try? reader.events.source.close() }
        #expect(try reader.nextFrame() != nil)
        #expect(
            throws: EventDecodingError(source: "-", offset: 4 * 24, problem: .truncated(expected: 24, available: 20))
        ) {
            try reader.nextFrame()
        }
    }
}
