import InputDevices
import Testing

@Suite struct AxisMapTests {
    @Test(arguments: [
        ("x,y,z", "x,y,z", false),
        ("x,-z,y", "x,-z,y", false),
        (" -X , +y,Z ", "-x,y,z", true),
        ("y,x,z", "y,x,z", true),
        ("-x,-y,-z", "-x,-y,-z", true),
        ("z,x,y", "z,x,y", false),
    ])
    func parsesSignedPermutations(text: String, canonical: String, mirror: Bool) throws {
        let map = try AxisMap(parsing: text)
        #expect(map.description == canonical)
        #expect(map.isMirror == mirror)
    }

    @Test func appliesPermutationSignsAndScale() throws {
        let map = try AxisMap(parsing: "-y,z,x")
        #expect(map.apply((10, 20, 30), unitsPer: 10) == MotionVector(x: -2, y: 3, z: 1))
    }

    @Test(arguments: [
        ("x,y", 1, "three comma-separated terms like \"x,-z,y\", found 2"),
        ("x,y,z,x", 7, "each of x, y, z once, found x twice"),
        ("x,x,z", 3, "each of x, y, z once, found x twice"),
        ("x,,z", 3, "x, y or z with an optional sign, found \"\""),
        ("x, w,z", 4, "x, y or z with an optional sign, found \"w\""),
        ("x,y,--z", 5, "x, y or z with an optional sign, found \"--z\""),
    ])
    func rejectsBadMapsWithColumn(text: String, column: Int, expected: String) {
        #expect(throws: MotionConfigurationError.invalidAxisMap(text: text, column: column, expected: expected)) {
            try AxisMap(parsing: text)
        }
    }

    @Test(arguments: ["0", "-5", "abc", "nan", "inf", ""])
    func rejectsBadScales(text: String) {
        #expect(throws: MotionConfigurationError.invalidScale(text: text)) {
            try MotionOverrides(axes: nil, scale: text)
        }
    }
}

@Suite struct CalibrationTests {
    static let accelerometerBit = KernelBitmap(bytes: [0x40])
    static let noProperties = KernelBitmap(bytes: [])

    static func axes(_ codes: [AbsoluteAxis], range: Int32, resolution: Int32) -> [AbsoluteAxis: AbsoluteAxisInfo] {
        Dictionary(
            uniqueKeysWithValues: codes.map {
                ($0, AbsoluteAxisInfo(minimum: -range, maximum: range, resolution: resolution))
            })
    }

    @Test func nodeResolutionWinsOverTheTable() throws {
        // A DualSense whose node reports 8000 per g (say, a newer driver): the node knows best.
        let device = DeviceDescription(
            name: "DualSense Wireless Controller Motion Sensors",
            id: InputID(bus: 5, vendor: 0x054C, product: 0x0CE6, version: 1),
            properties: Self.accelerometerBit,
            axes: Self.axes([.x, .y, .z, .rx, .ry, .rz], range: 32768, resolution: 8000))
        let calibration = try MotionCalibration.resolve(for: device)
        #expect(calibration.knownDevice?.name == "DualSense")
        #expect(calibration.unitsPerG == 8000)
        #expect(calibration.unitsPerDegreePerSecond == 8000)
        #expect(calibration.rotationAxes == [.rx, .ry, .rz])
    }

    @Test func overridesWinOverEverything() throws {
        let device = DeviceDescription(
            name: "DualSense Wireless Controller Motion Sensors",
            id: InputID(bus: 5, vendor: 0x054C, product: 0x0CE6, version: 1),
            properties: Self.accelerometerBit, axes: Self.axes([.x, .y, .z], range: 32768, resolution: 8192))
        let calibration = try MotionCalibration.resolve(
            for: device, overrides: try MotionOverrides(axes: "z,y,-x", scale: "4000"))
        #expect(calibration.unitsPerG == 4000)
        #expect(calibration.axisMap.description == "z,y,-x")
    }

    @Test func wiiRemoteReadsRotationalAxesWithTableScale() throws {
        // hid-wiimote: no INPUT_PROP_ACCELEROMETER, no resolution, acceleration on ABS_RX/RY/RZ.
        let device = DeviceDescription(
            name: "Nintendo Wii Remote Accelerometer",
            id: InputID(bus: 5, vendor: 0x057E, product: 0x0306, version: 0x600),
            properties: Self.noProperties, axes: Self.axes([.rx, .ry, .rz], range: 500, resolution: 0))
        let calibration = try MotionCalibration.resolve(for: device)
        #expect(calibration.accelerationAxes == [.rx, .ry, .rz])
        #expect(calibration.unitsPerG == 100)
        #expect(calibration.rotationAxes == nil)
        // At rest, buttons up, the remote's z reads +1 g: that is "up", y in HitThat's frame.
        #expect(
            calibration.axisMap.apply((0, 0, 100), unitsPer: calibration.unitsPerG) == MotionVector(x: 0, y: 1, z: 0))
    }

    @Test func resolutionIsIgnoredWithoutTheAccelerometerProperty() {
        // Without INPUT_PROP_ACCELEROMETER, resolution means units per mm (a touchpad), not per g.
        let device = DeviceDescription(
            name: "Some Touchpad", id: InputID(bus: 3, vendor: 1, product: 2, version: 3),
            properties: Self.noProperties, axes: Self.axes([.x, .y, .z], range: 1000, resolution: 12))
        #expect(throws: MotionConfigurationError.unknownScale(device: "Some Touchpad")) {
            try MotionCalibration.resolve(for: device)
        }
    }

    @Test func missingAxesAreNamed() {
        let device = DeviceDescription(
            name: "Half a sensor", id: InputID(bus: 3, vendor: 1, product: 2, version: 3),
            properties: Self.accelerometerBit, axes: Self.axes([.x], range: 1000, resolution: 100))
        #expect(throws: MotionConfigurationError.missingAxes(device: "Half a sensor", axes: [.y, .z])) {
            try MotionCalibration.resolve(for: device)
        }
    }

    @Test func barePipeNeedsAScale() throws {
        #expect(throws: MotionConfigurationError.unknownScale(device: "")) {
            try MotionCalibration.resolve(for: .unknown)
        }
        let calibration = try MotionCalibration.resolve(for: .unknown, overrides: MotionOverrides(unitsPerG: 8192))
        #expect(calibration.accelerationAxes == [.x, .y, .z])
        #expect(calibration.rotationAxes == nil)
    }

    @Test(arguments: [
        (
            "Sony Interactive Entertainment Wireless Controller Motion Sensors", UInt16(0x054C), UInt16(0x09CC),
            "DualShock 4"
        ),
        ("Sony PLAYSTATION(R)3 Controller Motion Sensors", 0x054C, 0x0268, "DualShock 3"),
        ("Nintendo Switch Left Joy-Con (IMU)", 0x057E, 0x2006, "Joy-Con / Pro Controller"),
        ("Steam Deck Motion Sensors", 0x28DE, 0x1205, "Steam Deck"),
    ])
    func knownDevicesMatchByIdsAndNameSuffix(name: String, vendor: UInt16, product: UInt16, known: String) {
        let device = DeviceDescription(name: name, id: InputID(bus: 3, vendor: vendor, product: product, version: 1))
        #expect(KnownDevice.match(device)?.name == known)
        // The same controller's gamepad node (buttons and sticks) is not the motion node.
        let gamepad = DeviceDescription(
            name: "Gamepad", id: InputID(bus: 3, vendor: vendor, product: product, version: 1))
        #expect(KnownDevice.match(gamepad) == nil)
    }

    @Test func tableScalesMatchTheDrivers() {
        // The numbers from the drivers, as the issue lists them.
        let scales = Dictionary(uniqueKeysWithValues: KnownDevice.table.map { ($0.name, $0.unitsPerG) })
        #expect(
            scales == [
                "DualSense": 8192, "DualShock 4": 8192, "DualShock 3": 113, "Joy-Con / Pro Controller": 4096,
                "Wii Remote": 100, "Steam Deck": 16384,
            ])
    }
}
