import InputDevices
import Testing

/// Between two `SYN_REPORT`s the assembler keeps one pending value per axis, not a list of changes:
/// a stream that never sends `SYN_REPORT` must not make it grow (found fuzzing the event reader).
@Suite struct FrameAssemblerStagingTests {
    private func absolute(_ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(seconds: 1, microseconds: 0, type: .absolute, code: code, value: value)
    }

    @Test func theLastValueOfEachAxisBeforeTheReportWins() throws {
        var assembler = EvdevFrameAssembler(calibration: MotionCalibration(unitsPerG: 8192))
        // Many changes to each axis, as a device that lost its SYN_REPORTs would send them.
        for value in Int32(0)..<100_000 {
            #expect(try assembler.consume(absolute(UInt16(value % 3), value)) == nil)
        }
        let report = InputEvent(seconds: 1, microseconds: 1, type: .synchronization, code: 0, value: 0)
        let frame = try #require(try assembler.consume(report))
        // The last values were 99 999 on x (99 999 % 3 == 0), 99 997 on y and 99 998 on z.
        #expect(frame.acceleration == MotionVector(x: 99_999 / 8192, y: 99_997 / 8192, z: 99_998 / 8192))
    }

    @Test func changesDroppedWithTheFrameDoNotComeBack() throws {
        var assembler = EvdevFrameAssembler(
            calibration: MotionCalibration(unitsPerG: 8192), initialValues: [.x: 0, .y: 8192, .z: 0])
        _ = try assembler.consume(absolute(0, 4096))
        _ = try assembler.consume(InputEvent(seconds: 1, microseconds: 0, type: .synchronization, code: 3, value: 0))
        _ = try assembler.consume(InputEvent(seconds: 1, microseconds: 1, type: .synchronization, code: 0, value: 0))
        _ = try assembler.consume(absolute(2, 8192))
        let frame = try #require(
            try assembler.consume(InputEvent(seconds: 1, microseconds: 2, type: .synchronization, code: 0, value: 0)))
        // x's 4096 was staged before SYN_DROPPED, so it is gone; z's 8192 came after.
        #expect(frame.acceleration == MotionVector(x: 0, y: 1, z: 1))
    }
}
