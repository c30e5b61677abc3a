import ArgumentParser
import Foundation
import InputDevices

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - devices

/// `hitthat devices`: the motion sensors this machine has, and how `listen` would read them.
package struct Devices: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        abstract: "List the motion sensors among the input devices.",
        discussion: """
            Lists every evdev node with the accelerometer property (or matching a known controller) \
            and every joystick node: name, ids, axes with their range, fuzz and resolution, units \
            per g, and the known device it matched. Nodes that could not be opened are listed with \
            the reason (for no permission, the group to join).
            """
    )

    @Option(help: "The directory of input nodes.")
    var directory = "/dev/input"

    @Flag(help: "Write the list as one JSON object.")
    var json = false

    package func run() throws {
        let report: InputDeviceDiscovery.Report
        do {
            report = try InputDeviceDiscovery.scan(directory: directory)
        } catch .notFound(let path) {
            printError("\(path): no such folder, so no input devices on this machine (a container shows none unless given them)")
            throw ExitCode.noInput
        } catch {
            printError("\(error)")
            throw ExitCode.status(for: error)
        }
        if json {
            writeLine(jsonReport(report), to: STDOUT_FILENO)
            return
        }
        for device in report.devices { writeLine(describe(device), to: STDOUT_FILENO) }
        for failure in report.failures { printError("\(failure)") }
        let found = report.devices.count
        printError(
            "\(directory): \(found) motion sensor\(found == 1 ? "" : "s")"
                + (report.otherNodeCount > 0 ? ", \(report.otherNodeCount) other input nodes" : "")
                + (report.failures.isEmpty ? "" : ", \(report.failures.count) not readable"))
    }

    // MARK: - Text

    private func describe(_ device: DiscoveredDevice) -> String {
        var lines = ["\(device.path)  \(device.name)"]
        switch device.kind {
        case .evdev(let description, let calibration):
            let id = description.id
            var line =
                "  id bus \(hex(id.bus)) vendor \(hex(id.vendor)) product \(hex(id.product)) version \(hex(id.version))"
            if description.isAccelerometer { line += "; accelerometer" }
            lines.append(line)
            for (axis, info) in description.sortedAxes {
                lines.append(
                    "  \(axis.description.padding(toLength: 7, withPad: " ", startingAt: 0)) min \(info.minimum) max \(info.maximum) "
                        + "fuzz \(info.fuzz) flat \(info.flat) resolution \(info.resolution)")
            }
            switch calibration {
            case .success(let calibration):
                let known = calibration.knownDevice.map { "matched \($0)" } ?? "no known device matched"
                lines.append(
                    "  \(formatted(calibration.unitsPerG, decimals: 0)) units per g, axes \(calibration.axisMap); \(known)"
                )
            case .failure(let problem):
                lines.append("  cannot be read as motion yet: \(problem)")
            }
        case .joystick(_, let axisCount):
            lines.append(
                "  joystick interface, \(axisCount) axes; joydev has no units: give listen --scale (units per g)")
        }
        return lines.joined(separator: "\n")
    }

    private func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    // MARK: - JSON

    private func jsonReport(_ report: InputDeviceDiscovery.Report) -> String {
        let devices = report.devices.map { device -> String in
            var fields = ["\"path\":\(jsonString(device.path))", "\"name\":\(jsonString(device.name))"]
            switch device.kind {
            case .evdev(let description, let calibration):
                let id = description.id
                fields.append("\"interface\":\"evdev\"")
                fields.append(
                    "\"id\":{\"bus\":\(id.bus),\"vendor\":\(id.vendor),\"product\":\(id.product),\"version\":\(id.version)}"
                )
                fields.append("\"accelerometer\":\(description.isAccelerometer)")
                let axes = description.sortedAxes.map { axis, info in
                    "{\"axis\":\"\(axis)\",\"min\":\(info.minimum),\"max\":\(info.maximum),\"fuzz\":\(info.fuzz),"
                        + "\"flat\":\(info.flat),\"resolution\":\(info.resolution)}"
                }
                fields.append("\"axes\":[\(axes.joined(separator: ","))]")
                switch calibration {
                case .success(let calibration):
                    fields.append("\"units_per_g\":\(calibration.unitsPerG)")
                    fields.append("\"axis_map\":\(jsonString(calibration.axisMap.description))")
                    fields.append(
                        "\"known_device\":\(calibration.knownDevice.map { jsonString($0.description) } ?? "null")")
                case .failure(let problem):
                    fields.append("\"problem\":\(jsonString(problem.description))")
                }
            case .joystick(_, let axisCount):
                fields.append("\"interface\":\"joystick\"")
                fields.append("\"axis_count\":\(axisCount)")
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let failures = report.failures.map { jsonString($0.description) }
        return "{\"devices\":[\(devices.joined(separator: ","))],\"unreadable\":[\(failures.joined(separator: ","))],"
            + "\"other_nodes\":\(report.otherNodeCount)}"
    }
}

/// A string as a JSON string literal.
package func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
