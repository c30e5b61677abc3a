import InputDevices
import Testing

@Suite struct InputEventDecodingTests {
    private func decodeAll(_ bytes: [UInt8], layout: InputEventLayout, chunkSize: Int = .max) throws -> [InputEvent] {
        var reader = EventReader(
            source: MemoryByteSource(bytes, chunkSize: chunkSize), format: InputEventFormat(layout: layout),
            sourceName: "fixture")
        var events: [InputEvent] = []
        while let event = try reader.next() { events.append(event) }
        return events
    }

    @Test func decodes24ByteEventsFieldByField() throws {
        let bytes =
            Bytes.event24(1_700_000_000, 999_999, Raw.EV_ABS, Raw.ABS_Y, -32768)
            + Bytes.event24(1_700_000_001, 0, Raw.EV_MSC, Raw.MSC_TIMESTAMP, Int32(bitPattern: 0xFFFF_FFF0))
        #expect(bytes.count == 48)
        let events = try decodeAll(bytes, layout: .sixtyFourBit)
        #expect(
            events == [
                InputEvent(seconds: 1_700_000_000, microseconds: 999_999, type: .absolute, code: 1, value: -32768),
                InputEvent(seconds: 1_700_000_001, microseconds: 0, type: .miscellaneous, code: 5, value: -16),
            ])
        #expect(close([events[0].time], [1_700_000_000.999999], tolerance: 1e-6))
    }

    @Test func decodes16ByteEventsWithUnsignedSeconds() throws {
        // 32-bit ABIs write seconds as an unsigned long: 0x8000_0000 is 2038-01-19, not 1901.
        let bytes =
            Bytes.event16(0x8000_0000, 250_000, Raw.EV_ABS, Raw.ABS_Z, 8192)
            + Bytes.event16(7, 1, Raw.EV_SYN, Raw.SYN_REPORT, 0)
        #expect(bytes.count == 32)
        let events = try decodeAll(bytes, layout: .thirtyTwoBit)
        #expect(
            events == [
                InputEvent(seconds: 2_147_483_648, microseconds: 250_000, type: .absolute, code: 2, value: 8192),
                InputEvent(seconds: 7, microseconds: 1, type: .synchronization, code: 0, value: 0),
            ])
    }

    @Test(arguments: [(24, InputEventLayout.sixtyFourBit), (16, .thirtyTwoBit)])
    func layoutIsChosenByEventSize(size: Int, layout: InputEventLayout) {
        #expect(InputEventLayout(eventSize: size) == layout)
        #expect(layout.eventSize == size)
    }

    @Test(arguments: [0, 8, 20, 32])
    func rejectsOtherEventSizes(size: Int) {
        #expect(InputEventLayout(eventSize: size) == nil)
    }

    @Test func readsManyEventsPerRead() throws {
        var script = EventScript()
        for index in 0..<100 { script.frame(at: Int64(index) * 1000, [(Raw.ABS_X, Int32(index))]) }
        var reader = EventReader(
            source: MemoryByteSource(script.bytes), format: InputEventFormat(layout: .sixtyFourBit),
            sourceName: "fixture", eventsPerRead: 64)
        var count = 0
        while try reader.next() != nil { count += 1 }
        #expect(count == 200)
        // 200 events of 24 bytes in reads of at most 64 events: four reads, not 200.
        #expect(reader.readCount == 4)
    }

    @Test(arguments: [1, 5, 23, 25, 47])
    func reassemblesEventsSplitAcrossPipeReads(chunkSize: Int) throws {
        var script = EventScript()
        script.frame(at: 0, [(Raw.ABS_X, 1), (Raw.ABS_Y, -2), (Raw.ABS_Z, 3)], timestamp: 77)
        let events = try decodeAll(script.bytes, layout: .sixtyFourBit, chunkSize: chunkSize)
        #expect(events.map(\.value) == [1, -2, 3, 77, 0])
    }

    @Test func truncatedEventNamesItsOffset() throws {
        let bytes =
            Bytes.event24(1, 0, Raw.EV_ABS, Raw.ABS_X, 5)
            + Bytes.event24(1, 0, Raw.EV_SYN, Raw.SYN_REPORT, 0).prefix(10)
        let error = try #require(throws: EventDecodingError.self) {
            try decodeAll(bytes, layout: .sixtyFourBit, chunkSize: 7)
        }
        #expect(
            error == EventDecodingError(source: "fixture", offset: 24, problem: .truncated(expected: 24, available: 10))
        )
        #expect(error.description.contains("byte 24"))
    }

    @Test func sixteenByteStreamReadAsTwentyFourIsReportedAsGarbled() throws {
        // Read as one 24-byte event, the first 16-byte event's type/code/value (3, 0, 5) land in tv_usec:
        // 3 | 5 << 32, far above 999 999.
        let bytes = Bytes.event16(1, 0, Raw.EV_ABS, Raw.ABS_X, 5) + Bytes.event16(1, 0, Raw.EV_SYN, Raw.SYN_REPORT, 0)
        let error = try #require(throws: EventDecodingError.self) { try decodeAll(bytes, layout: .sixtyFourBit) }
        #expect(error.offset == 0)
        #expect(
            error.problem == .invalidField(name: "tv_usec", value: 3 | 5 << 32, expected: "microseconds 0...999999"))
    }

    @Test func eventTypeAboveEvMaxIsGarbled() throws {
        let bytes = Bytes.event24(1, 0, 0x20, 0, 0)
        let error = try #require(throws: EventDecodingError.self) { try decodeAll(bytes, layout: .sixtyFourBit) }
        #expect(error.problem == .invalidField(name: "type", value: 0x20, expected: "an event type 0...31 (EV_MAX)"))
    }

    /// A source whose read fails, as a node does after an unplug or a signal.
    private struct FailingSource: ByteSource {
        var error: Errno
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int { throw error }
    }

    @Test(arguments: [
        (Errno.noDevice, InputDeviceError.unplugged(path: "/dev/input/event4")),
        (.interrupted, .interrupted(path: "/dev/input/event4")),
    ])
    func readFailuresNameTheNode(error: Errno, expected: InputDeviceError) {
        var reader = EventReader(
            source: FailingSource(error: error), format: InputEventFormat(), sourceName: "/dev/input/event4")
        #expect(throws: expected) { try reader.next() }
    }

    @Test func emptyStreamEndsCleanly() throws {
        #expect(try decodeAll([], layout: .sixtyFourBit).isEmpty)
    }
}

@Suite struct JoystickEventDecodingTests {
    private func decodeAll(_ bytes: [UInt8]) throws -> [JoystickEvent] {
        var reader = EventReader(source: MemoryByteSource(bytes), format: JoystickEventFormat(), sourceName: "js")
        var events: [JoystickEvent] = []
        while let event = try reader.next() { events.append(event) }
        return events
    }

    @Test func decodesInitFlagKindAndNumber() throws {
        let bytes =
            Bytes.js(4_000_000_000, -32767, Raw.JS_EVENT_AXIS | Raw.JS_EVENT_INIT, 5)
            + Bytes.js(12, 1, Raw.JS_EVENT_BUTTON | Raw.JS_EVENT_INIT, 0)
            + Bytes.js(13, 300, Raw.JS_EVENT_AXIS, 1)
        #expect(
            try decodeAll(bytes) == [
                JoystickEvent(milliseconds: 4_000_000_000, value: -32767, kind: .axis, isInitialState: true, number: 5),
                JoystickEvent(milliseconds: 12, value: 1, kind: .button, isInitialState: true, number: 0),
                JoystickEvent(milliseconds: 13, value: 300, kind: .axis, isInitialState: false, number: 1),
            ])
    }

    @Test(arguments: [UInt8(0x00), 0x03, 0x80, 0x84])
    func rejectsUnknownTypes(type: UInt8) throws {
        let bytes = Bytes.js(0, 0, Raw.JS_EVENT_AXIS, 0) + Bytes.js(0, 0, type, 0)
        let error = try #require(throws: EventDecodingError.self) { try decodeAll(bytes) }
        #expect(error.offset == 8)
    }

    @Test func truncatedJoystickEvent() throws {
        let error = try #require(throws: EventDecodingError.self) {
            try decodeAll(Array(Bytes.js(1, 1, Raw.JS_EVENT_AXIS, 0).prefix(6)))
        }
        #expect(error.problem == .truncated(expected: 8, available: 6))
    }
}
