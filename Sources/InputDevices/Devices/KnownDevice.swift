// MARK: - KnownDevice

/// A motion sensor whose driver, axes and scale HitThat knows.
///
/// Most drivers report the accelerometer on its own evdev node with `INPUT_PROP_ACCELEROMETER` and a
/// resolution in units per g (include/uapi/linux/input.h, Documentation/input/event-codes.rst), and then
/// the node's own resolution wins over the table's scale. The table matters for the axis map and for
/// drivers that give no resolution (hid-wiimote).
public struct KnownDevice: Hashable, Sendable, CustomStringConvertible {
    /// A short human name, e.g. "DualSense".
    public let name: String
    /// The kernel driver that creates the node.
    public let driver: String
    /// The vendor id.
    public let vendor: UInt16
    /// The product ids.
    public let products: [UInt16]
    /// How the motion node's name ends (the driver appends it to the controller's name).
    public let nameSuffix: String
    /// The raw axes acceleration is read from, in raw x, y, z order.
    public let accelerationAxes: [AbsoluteAxis]
    /// The raw axes rotation rate is read from, if the driver reports a gyroscope.
    public let rotationAxes: [AbsoluteAxis]?
    /// Raw axes → HitThat's device frame.
    public let axisMap: AxisMap
    /// Accelerometer units per g, as the driver defines them.
    public let unitsPerG: Double
    /// Gyroscope units per deg/s, where the driver's value is known and fixed.
    public let unitsPerDegreePerSecond: Double?
    /// Something the user should know (e.g. a small range that clips punches).
    public let caveat: String?

    /// A table entry.
    init(
        name: String, driver: String, vendor: UInt16, products: [UInt16], nameSuffix: String,
        accelerationAxes: [AbsoluteAxis],
        rotationAxes: [AbsoluteAxis]?, axisMap: AxisMap, unitsPerG: Double, unitsPerDegreePerSecond: Double?,
        caveat: String? = nil
    ) {
        self.name = name
        self.driver = driver
        self.vendor = vendor
        self.products = products
        self.nameSuffix = nameSuffix
        self.accelerationAxes = accelerationAxes
        self.rotationAxes = rotationAxes
        self.axisMap = axisMap
        self.unitsPerG = unitsPerG
        self.unitsPerDegreePerSecond = unitsPerDegreePerSecond
        self.caveat = caveat
    }

    /// `name (driver)`.
    public var description: String { "\(name) (\(driver))" }

    /// Whether `device` is this kind of node: same vendor, one of the products, name ending right.
    public func matches(_ device: DeviceDescription) -> Bool {
        device.id.vendor == vendor && products.contains(device.id.product) && device.name.hasSuffix(nameSuffix)
    }

    /// The first table entry that matches `device`.
    public static func match(_ device: DeviceDescription) -> KnownDevice? {
        table.first { $0.matches(device) }
    }

    private static let sony: UInt16 = 0x054C
    private static let nintendo: UInt16 = 0x057E
    private static let valve: UInt16 = 0x28DE
    private static let directional: [AbsoluteAxis] = [.x, .y, .z]
    private static let rotational: [AbsoluteAxis] = [.rx, .ry, .rz]

    /// `-x,z,-y`.
    private static let wiiRemoteAxes = AxisMap(uncheckedComponents: [
        .init(source: 0, negated: true), .init(source: 2), .init(source: 1, negated: true),
    ])

    /// The devices HitThat knows.
    public static let table: [KnownDevice] = [
        // drivers/hid/hid-playstation.c: a separate "… Motion Sensors" node, ±32768 at 8192 per g
        // (DS_ACC_RES_PER_G), gyroscope at 1024 per deg/s (DS_GYRO_RES_PER_DEG_S), MSC_TIMESTAMP in µs.
        // Its frame is HitThat's reference frame.
        KnownDevice(
            name: "DualSense", driver: "hid-playstation", vendor: sony, products: [0x0CE6, 0x0DF2],
            nameSuffix: "Motion Sensors", accelerationAxes: directional, rotationAxes: rotational,
            axisMap: .identity, unitsPerG: 8192, unitsPerDegreePerSecond: 1024),
        KnownDevice(
            name: "DualShock 4", driver: "hid-playstation", vendor: sony, products: [0x05C4, 0x09CC, 0x0BA0],
            nameSuffix: "Motion Sensors", accelerationAxes: directional, rotationAxes: rotational,
            axisMap: .identity, unitsPerG: 8192, unitsPerDegreePerSecond: 1024),
        // drivers/hid/hid-sony.c (Sixaxis): −512…511 at 113 per g (SIXAXIS_ACC_RES_PER_G), no gyroscope node.
        KnownDevice(
            name: "DualShock 3", driver: "hid-sony", vendor: sony, products: [0x0268],
            nameSuffix: "Motion Sensors", accelerationAxes: directional, rotationAxes: nil,
            axisMap: .identity, unitsPerG: 113, unitsPerDegreePerSecond: nil),
        // drivers/hid/hid-nintendo.c: "… (IMU)" node, ±32767 at 4096 per g, a report about every 15 ms.
        // The gyroscope's resolution comes from the node itself.
        KnownDevice(
            name: "Joy-Con / Pro Controller", driver: "hid-nintendo", vendor: nintendo,
            products: [0x2006, 0x2007, 0x2009],
            nameSuffix: "(IMU)", accelerationAxes: directional, rotationAxes: rotational,
            axisMap: .identity, unitsPerG: 4096, unitsPerDegreePerSecond: nil),
        // drivers/hid/hid-wiimote-modules.c: "Nintendo Wii Remote Accelerometer" reports on ABS_RX/RY/RZ
        // (not ABS_X/Y/Z), −500…500 around the 10-bit zero point, without INPUT_PROP_ACCELEROMETER and
        // without a resolution. About 100 units per g (the remote's own calibration, which the driver does
        // not apply, varies by a few percent). The Wii Remote's axes (x left, y toward the pointing end,
        // z up out of the buttons) map to the reference frame held like a remote pointing forward.
        KnownDevice(
            name: "Wii Remote", driver: "hid-wiimote", vendor: nintendo, products: [0x0306, 0x0330],
            nameSuffix: "Accelerometer", accelerationAxes: rotational, rotationAxes: nil,
            axisMap: wiiRemoteAxes, unitsPerG: 100, unitsPerDegreePerSecond: nil,
            caveat: "no resolution reported: the scale is approximate, use --scale to calibrate"),
        // drivers/hid/hid-steam.c: "Steam Deck Motion Sensors", ±32768 at 16384 per g (±2 g),
        // gyroscope at 16 per deg/s. The driver already reorders the axes to the playstation convention.
        KnownDevice(
            name: "Steam Deck", driver: "hid-steam", vendor: valve, products: [0x1205],
            nameSuffix: "Motion Sensors", accelerationAxes: directional, rotationAxes: rotational,
            axisMap: .identity, unitsPerG: 16384, unitsPerDegreePerSecond: 16,
            caveat: "±2 g range: hard punches clip"),
    ]
}
