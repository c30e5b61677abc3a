// MARK: - Query results

/// `struct input_id` (include/uapi/linux/input.h): how the device is connected and who made it.
public struct InputID: Hashable, Sendable, CustomStringConvertible {
    /// The bus (`BUS_USB` 0x03, `BUS_BLUETOOTH` 0x05, …).
    public var bus: UInt16
    /// The USB/Bluetooth vendor id.
    public var vendor: UInt16
    /// The product id.
    public var product: UInt16
    /// The product version.
    public var version: UInt16

    /// Creates an id.
    public init(bus: UInt16, vendor: UInt16, product: UInt16, version: UInt16) {
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
    }

    /// `bus:vendor:product:version` in hexadecimal, like evemu's `I:` line.
    public var description: String {
        [bus, vendor, product, version].map { hex4($0) }.joined(separator: ":")
    }
}

/// `struct input_absinfo` (include/uapi/linux/input.h): an absolute axis's current value and range.
public struct AbsoluteAxisInfo: Hashable, Sendable {
    /// The current value.
    public var value: Int32
    /// The smallest value the device reports.
    public var minimum: Int32
    /// The largest value the device reports.
    public var maximum: Int32
    /// Noise the kernel filters out: changes smaller than this may be suppressed.
    public var fuzz: Int32
    /// The dead zone around the centre (joysticks).
    public var flat: Int32
    /// Units per g (ABS_X/Y/Z) or per deg/s (ABS_RX/RY/RZ) on an accelerometer node; 0 when unknown.
    public var resolution: Int32

    /// Creates axis info.
    public init(
        value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0
    ) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 4 - digits.count) + digits
}

// MARK: - evdev and joydev queries

extension FileDescriptor {
    /// `EVIOCGNAME`: the device name.
    public func evdevName() throws(Errno) -> String {
        try string(.evdevName(length: 256))
    }

    /// `EVIOCGID`: bus, vendor, product and version.
    public func evdevID() throws(Errno) -> InputID {
        let words = try fixed(.evdevID, as: UInt16.self, count: 4)
        return InputID(bus: words[0], vendor: words[1], product: words[2], version: words[3])
    }

    /// `EVIOCGPROP`: the `INPUT_PROP_*` bitmap.
    public func evdevProperties() throws(Errno) -> KernelBitmap {
        try bitmap(.evdevProperties(length: InputProperty.count / 8))
    }

    /// `EVIOCGBIT`: the supported codes of `eventType` (type 0: the supported event types).
    public func evdevSupportedCodes(of eventType: EventType) throws(Errno) -> KernelBitmap {
        // 96 bytes hold KEY_CNT (0x300) bits, the largest code space; the kernel copies no more than it has.
        try bitmap(.evdevBits(eventType: eventType, length: 96))
    }

    /// `EVIOCGABS`: the current value and range of `axis`.
    public func evdevAbsoluteInfo(_ axis: AbsoluteAxis) throws(Errno) -> AbsoluteAxisInfo {
        let fields = try fixed(.evdevAbsoluteInfo(axis: axis), as: Int32.self, count: 6)
        return AbsoluteAxisInfo(
            value: fields[0], minimum: fields[1], maximum: fields[2], fuzz: fields[3], flat: fields[4],
            resolution: fields[5])
    }

    /// `EVIOCGRAB`: takes (or gives back) exclusive access, so no other reader sees the events.
    public func evdevGrab(_ exclusive: Bool) throws(Errno) {
        _ = try control(.evdevGrab, value: exclusive ? 1 : 0)
    }

    /// `JSIOCGAXES`: the number of axes of a joydev node.
    public func joystickAxisCount() throws(Errno) -> Int {
        Int(try fixed(.joystickAxes, as: UInt8.self, count: 1)[0])
    }

    /// `JSIOCGNAME`: the joystick's name.
    public func joystickName() throws(Errno) -> String {
        try string(.joystickName(length: 256))
    }

    // MARK: Helpers

    /// A query that returns a NUL-terminated string of at most `request.size` bytes.
    private func string(_ request: IOControlRequest) throws(Errno) -> String {
        var bytes = [UInt8](repeating: 0, count: request.size)
        _ = try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(Errno) in try control(request, buffer: buffer) }
        }.get()
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// A query that returns a bitmap; the result is the number of bytes the kernel wrote.
    private func bitmap(_ request: IOControlRequest) throws(Errno) -> KernelBitmap {
        var bytes = [UInt8](repeating: 0, count: request.size)
        let written = try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(Errno) in try control(request, buffer: buffer) }
        }.get()
        return KernelBitmap(bytes: Array(bytes.prefix(max(0, min(Int(written), bytes.count)))))
    }

    /// A query that fills a fixed-size struct of `count` values of `T`.
    private func fixed<T: FixedWidthInteger>(_ request: IOControlRequest, as _: T.Type, count: Int) throws(Errno) -> [T]
    {
        var values = [T](repeating: 0, count: count)
        _ = try values.withUnsafeMutableBytes { buffer in
            Result { () throws(Errno) in try control(request, buffer: buffer) }
        }.get()
        return values
    }
}
