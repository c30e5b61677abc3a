import InputDevices

// MARK: - Fuzz entry points

/// What each InputDevices fuzz target does with one input, shared by the libFuzzer drivers
/// (`Fuzz/<Target>/main.swift`, built by `tools/fuzz.sh`) and the regression test that replays
/// `Tests/Fixtures/fuzz/<Target>/` in a plain `swift test`.
///
/// The first byte picks options a user or a pipe controls (event size, how short the reads are,
/// gyroscope axes); the rest is the stream. Errors are the expected answer to bad bytes.
enum InputDevicesFuzzEntryPoints {
    /// Raw `input_event` records through the event reader and the evdev frame assembler.
    static func inputEvents(_ bytes: [UInt8]) {
        guard let options = bytes.first else { return }
        let calibration =
            options & 2 == 0
            ? MotionCalibration(unitsPerG: 8192)
            : MotionCalibration(
                rotationAxes: [.rx, .ry, .rz], axisMap: .identity, unitsPerG: 8192, unitsPerDegreePerSecond: 1024)
        // A live node re-reads its axes after SYN_DROPPED; a pipe keeps the last known state.
        let readAxisState: EvdevFrameAssembler.AxisStateReader? =
            options & 4 == 0 ? nil : { axes in Dictionary(uniqueKeysWithValues: axes.map { ($0, 0) }) }
        var reader = EvdevMotionReader(
            source: MemoryByteSource(Array(bytes.dropFirst()), chunkSize: chunkSize(options)), sourceName: "fuzz",
            layout: options & 1 == 0 ? .sixtyFourBit : .thirtyTwoBit,
            assembler: EvdevFrameAssembler(calibration: calibration, readAxisState: readAxisState))
        drain(&reader)
    }

    /// Raw `js_event` records through the event reader and the joystick frame assembler.
    static func joystickEvents(_ bytes: [UInt8]) {
        guard let options = bytes.first else { return }
        var reader = JoystickMotionReader(
            source: MemoryByteSource(Array(bytes.dropFirst()), chunkSize: chunkSize(options)), sourceName: "fuzz",
            mapping: JoystickMotionMapping(unitsPerG: 8192))
        drain(&reader)
    }

    /// An evemu-record capture through the parser, then replayed through the frame assembler with
    /// the calibration its header resolves to.
    static func evemu(_ bytes: [UInt8]) {
        guard let recording = try? EvemuRecording(parsing: String(decoding: bytes, as: UTF8.self), source: "fuzz"),
            var reader = try? EvemuMotionReader(recording: recording)
        else { return }
        drain(&reader)
    }

    // MARK: - Helpers

    /// Reads of 1 to 64 bytes, or unlimited: a pipe may split records anywhere.
    private static func chunkSize(_ options: UInt8) -> Int {
        let size = Int(options >> 3)
        return size == 0 ? .max : size * 2 - 1
    }

    private static func drain(_ source: inout some MotionFrameSource) {
        while let frame = try? source.nextFrame() {
            precondition(
                frame.acceleration.x.isFinite && frame.acceleration.y.isFinite && frame.acceleration.z.isFinite,
                "a frame whose acceleration is not finite")
        }
    }
}
