import InputDevices
import InputDevicesTestSupport
import Testing

@Suite struct EvemuTests {
    /// Shaped like `evemu-record` output for a DualSense motion node (comments as evemu 2.7 writes them).
    static let dualSense = """
        # EVEMU 1.3
        # Kernel: 6.8.0
        # Input device name: "Sony Interactive Entertainment DualSense Wireless Controller Motion Sensors"
        N: Sony Interactive Entertainment DualSense Wireless Controller Motion Sensors
        I: 0005 054c 0ce6 8100
        P: 40 00 00 00 00 00 00 00
        B: 00 19 00 00 00 00 00 00 00
        B: 03 3f 00 00 00 00 00 00 00
        B: 04 20 00 00 00 00 00 00 00
        A: 00 -32768 32767 16 0 8192
        A: 01 -32768 32767 16 0 8192
        A: 02 -32768 32767 16 0 8192
        A: 03 -2097152 2097152 16 0 1024
        A: 04 -2097152 2097152 16 0 1024
        A: 05 -2097152 2097152 16 0 1024
        ################################
        #      Waiting for events      #
        ################################
        E: 0.000000 0003 0000 0000\t# EV_ABS / ABS_X                0
        E: 0.000000 0003 0001 8192\t# EV_ABS / ABS_Y                8192
        E: 0.000000 0003 0002 -4096\t# EV_ABS / ABS_Z               -4096
        E: 0.000000 0003 0003 1024
        E: 0.000000 0003 0004 0000
        E: 0.000000 0003 0005 -2048
        E: 0.000000 0004 0005 1000000\t# EV_MSC / MSC_TIMESTAMP       1000000
        E: 0.000000 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +0ms
        E: 0.004000 0003 0000 16384
        E: 0.004000 0004 0005 1004000
        E: 0.004000 0000 0000 0000
        """

    @Test func parsesHeader() throws {
        let recording = try EvemuRecording(parsing: Self.dualSense, source: "ds.evemu")
        #expect(recording.device.name == "Sony Interactive Entertainment DualSense Wireless Controller Motion Sensors")
        #expect(recording.device.id == InputID(bus: 5, vendor: 0x054C, product: 0x0CE6, version: 0x8100))
        #expect(recording.device.isAccelerometer)  // P: 0x40 is bit 6
        #expect(
            recording.device.axes[.x]
                == AbsoluteAxisInfo(minimum: -32768, maximum: 32767, fuzz: 16, flat: 0, resolution: 8192))
        #expect(recording.device.axes[.rz]?.resolution == 1024)
        #expect(recording.supportedCodes[.absolute]?.setBits == [0, 1, 2, 3, 4, 5])
        #expect(recording.events.count == 11)
        #expect(recording.events[2] == InputEvent(seconds: 0, microseconds: 0, type: .absolute, code: 2, value: -4096))
        #expect(
            recording.events[8] == InputEvent(seconds: 0, microseconds: 4000, type: .absolute, code: 0, value: 16384))
    }

    @Test func replaysIntoFramesWithKnownDeviceScales() throws {
        var reader = try EvemuMotionReader(recording: EvemuRecording(parsing: Self.dualSense, source: "ds.evemu"))
        var frames: [MotionFrame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        // Time from MSC_TIMESTAMP (µs): 1 000 000 and 1 004 000.
        #expect(close(frames.map(\.time), [1.0, 1.004]))
        #expect(frames.map(\.acceleration) == [MotionVector(x: 0, y: 1, z: -0.5), MotionVector(x: 2, y: 1, z: -0.5)])
        #expect(frames.map(\.rotation) == [MotionVector(x: 1, y: 0, z: -2), MotionVector(x: 1, y: 0, z: -2)])
    }

    @Test func shortFractionIsADecimalFraction() throws {
        let recording = try EvemuRecording(parsing: "E: 12.5 0000 0000 0", source: "t")
        #expect(
            recording.events == [
                InputEvent(seconds: 12, microseconds: 500_000, type: .synchronization, code: 0, value: 0)
            ])
    }

    @Test func headerWithoutEventsDescribesADevice() throws {
        // `evemu-describe` output, as `listen --device-info` reads it for a pipe.
        let recording = try EvemuRecording(
            parsing: "N: Nintendo Wii Remote Accelerometer\nI: 0005 057e 0306 0600\nA: 03 -500 500 2 4\n",
            source: "wii.desc")
        #expect(recording.events.isEmpty)
        #expect(
            recording.device.axes[.rx] == AbsoluteAxisInfo(minimum: -500, maximum: 500, fuzz: 2, flat: 4, resolution: 0)
        )
        #expect(KnownDevice.match(recording.device)?.driver == "hid-wiimote")
    }

    @Test(arguments: [
        ("E: 0.000001 0003 0000", 1, 22, "value as a decimal 32-bit integer", ""),
        ("N: x\nE: 0.1.2 0003 0000 5", 2, 4, "a time as seconds.microseconds", "0.1.2"),
        ("E: 0.0000001 0003 0000 5", 1, 4, "a time as seconds.microseconds", "0.0000001"),
        ("I: 0005 054c zz 0001", 1, 14, "product in hexadecimal", "zz"),
        ("A: 00 -5 5 0 0 0 9", 1, 18, "the end of the line", "9"),
        ("A: 40 -5 5 0 0", 1, 4, "an axis code below 0x40", "40"),
        ("\n\nQ: what", 3, 1, "a line starting with N:, I:, P:, B:, A:, L:, S:, E: or #", "Q:"),
        ("E: 1.000000 0003 0000 99999999999", 1, 23, "value as a decimal 32-bit integer", "99999999999"),
    ])
    func errorsNameLineAndColumn(text: String, line: Int, column: Int, expected: String, found: String) throws {
        let error = try #require(throws: EvemuSyntaxError.self) {
            try EvemuRecording(parsing: text, source: "bad.evemu")
        }
        #expect(
            error == EvemuSyntaxError(source: "bad.evemu", line: line, column: column, expected: expected, found: found)
        )
    }
}

@Suite struct EvemuFileTests {
    @Test func loadsAFile() throws {
        let path = try TemporaryFiles.file(contents: Array(EvemuTests.dualSense.utf8))
        defer { TemporaryFiles.remove(path) }
        #expect(try EvemuRecording.load(path: path) == EvemuRecording(parsing: EvemuTests.dualSense, source: path))
    }

    @Test func errorsNameTheFile() throws {
        let path = try TemporaryFiles.file(contents: Array("N: x\nE: 0.0 0003\n".utf8))
        defer { TemporaryFiles.remove(path) }
        let error = try #require(throws: EvemuSyntaxError.self) { try EvemuRecording.load(path: path) }
        #expect(error.description == "\(path):2:12: expected event code in hexadecimal, found the end of the line")
    }

    @Test func missingFile() {
        #expect(throws: InputDeviceError.notFound(path: "/nonexistent.evemu")) {
            try EvemuRecording.load(path: "/nonexistent.evemu")
        }
    }
}
