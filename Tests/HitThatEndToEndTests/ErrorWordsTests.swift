import Foundation
import Glibc
import Testing

/// What a person is told when an input or an output is wrong: words to act on, and one exit status
/// a cause across commands (65 malformed, 66 missing, 69 a port taken, 73 cannot create).
@Suite struct ErrorWordsTests {
    @Test func anOutputInAMissingFolderCannotBeCreated() throws {
        let result = try hitthat(["simulate", "--output", "/no/such/folder/x.csv"])
        #expect(result.status == 73)
        #expect(result.error.contains("/no/such/folder/x.csv: cannot create it: no such folder /no/such/folder"))
        #expect(!result.error.contains("Usage"), "not a usage error: \(result.error)")
    }

    @Test func aFileThatIsNotAZipSaysSo() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let zip = directory.appendingPathComponent("export.zip")
        try Data("PK not really a zip\n".utf8).write(to: zip)
        let result = try hitthat(["detect", zip.path])
        #expect(result.status == 65)
        #expect(result.error.contains("not a zip archive"), "\(result.error)")
        #expect(!result.error.contains("missingEndOfCentralDirectoryRecord"))
    }

    @Test func aBinaryFileIsNotEchoed() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("program.csv")
        try Data([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x1B, 0x5B, 0x32, 0x4A, 0x0A]).write(to: file)
        let result = try hitthat(["detect", file.path])
        #expect(result.status == 65)
        #expect(result.error.contains("found binary data, not text"), "\(result.error)")
        #expect(!result.error.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no control byte echoed")
    }

    @Test func aMissingDeviceOrFolderIsMissingInput() throws {
        let listened = try hitthat(["listen", "/no/such/event0"])
        #expect(listened.status == 66)
        #expect(listened.error.contains("/no/such/event0: no such file"))
        let listed = try hitthat(["devices", "--directory", "/no/such/input"])
        #expect(listed.status == 66)
        #expect(listed.error.contains("/no/such/input: no such folder, so no input devices"), "\(listed.error)")
    }

    @Test func aKindNeitherLabelledNorFoundHasNoScore() throws {
        // The trace has jabs and uppercuts, no hook.
        let result = try hitthat(["evaluate", "traces/mixed-phyphox.csv"])
        #expect(result.status == 0)
        let hook = result.output.split(separator: "\n").first { $0.hasPrefix("hook ") }
        #expect(hook?.contains("(none labelled or found)") == true, "\(result.output)")
        #expect(hook?.contains("1.000") == false)
    }

    @Test func aServerWhosePortIsTakenSaysSo() throws {
        // A port this test holds: bound and listening, so the server's bind must fail.
        let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(held >= 0)
        defer { close(held) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(held, pointer, length) == 0 && listen(held, 1) == 0 && getsockname(held, pointer, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try hitthat([
            "serve", "--port", "\(port)", "--database", directory.appendingPathComponent("s.sqlite").path,
        ])
        #expect(result.status == 69)
        #expect(result.error.contains("127.0.0.1:\(port): cannot listen there: the port is in use"), "\(result.error)")
    }

    @Test func ctrlCOnAPipeStillSumsUp() throws {
        let text = try String(
            contentsOf: packageRoot.appendingPathComponent("traces/mixed-generic-100hz.csv"), encoding: .utf8)
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("hitthat")
        process.arguments = ["detect", "--json", "-"]
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        // Standard input stays open: the first punch out says the trace is being read, then Ctrl-C.
        _ = output.fileHandleForReading.availableDataBlocking(upTo: 1)
        interruptAndWait(process)
        try input.fileHandleForWriting.close()
        let summary = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(summary.contains("punches"), "\(summary)")
        #expect(summary.contains("stopped by Ctrl-C"), "\(summary)")
    }
}
