import Testing

@testable import PunchKit

/// A file to read in chunks, and how.
struct ChunkingFixture: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var source = "trace.csv"
    var lenient = false

    var testDescription: String { name }
}

let chunkingFixtures: [ChunkingFixture] = {
    let samples = madeUpSamples(count: 700, rate: 150, seed: 9)
    func text(_ style: TraceWriter.Style, _ samples: [MotionSample] = samples) -> String {
        String(decoding: TraceWriter(style).bytes(samples), as: UTF8.self)
    }
    var phyphox = text(.phyphox(.semicolonWithDecimalComma)).split(separator: "\n").map(String.init)
    phyphox.insert("\"\";\"\";\"\";\"\";\"\"", at: 40)
    let broken = text(.generic).replacingLine(300, with: "0.5,nope,0,1")
        .replacingLine(500, with: "0.7")
    return [
        // Units decided from the data, so rows are held back and released mid-stream.
        ChunkingFixture(
            name: "generic, BOM, CRLF", bytes: Array(("\u{FEFF}" + text(.generic)).replacingNewlines(with: "\r\n").utf8)
        ),
        ChunkingFixture(
            name: "phyphox, decimal comma, a missing row", bytes: Array(phyphox.joined(separator: "\n").utf8)),
        ChunkingFixture(
            name: "Sensor Logger, blank lines", bytes: Array((text(.sensorLogger()) + "\n\n\r\n").utf8),
            source: "Accelerometer.csv"),
        ChunkingFixture(name: "Physics Toolbox, no last line end", bytes: Array(text(.physicsToolbox).dropLast().utf8)),
        ChunkingFixture(name: "generic, errors, lenient", bytes: Array(broken.utf8), lenient: true),
    ]
}()

private let chunkSizes = [1, 2, 7, 64, 4096]

@Suite struct TraceReaderChunkingTests {
    @Test(arguments: chunkingFixtures, chunkSizes)
    func chunkingNeverChangesTheResult(fixture: ChunkingFixture, chunkSize: Int) throws {
        let whole = try readTrace(fixture.bytes, source: fixture.source, lenient: fixture.lenient)
        let chunked = try readTrace(
            fixture.bytes, source: fixture.source, lenient: fixture.lenient, chunkSize: chunkSize)
        #expect(chunked.samples == whole.samples)
        #expect(chunked.summary == whole.summary)
        // The fixtures are all real traces: the comparison means something only if they read.
        #expect(whole.samples.count >= 600)
    }

    @Test(arguments: chunkSizes)
    func chunkingNeverChangesTheErrorReported(chunkSize: Int) throws {
        let text = "\u{FEFF}t,x,y,z\r\n0,0,0,1\r\n\r\n0.01,0,0,1\r\n0.02,0,1e400,1\r\n0.03,0,0,1\r\n"
        let error = try #require(traceError(text, source: "run.csv", chunkSize: chunkSize))
        #expect(error.description == "run.csv:5:3: expected a finite number for \"y\", found \"1e400\"")
    }

    @Test func everySplitPointGivesTheSameSamples() throws {
        // Every place a two-chunk split can fall, including inside the BOM, a CRLF and a number.
        let bytes = Array("\u{FEFF}t,x,y,z\r\n0,0.5,-0.25,1\r\n0.01,-1.5e-1,2,0.75\r\n0.02,0,0,1".utf8)
        let whole = try readTrace(bytes).samples
        #expect(whole.count == 3)
        for split in 0...bytes.count {
            var reader = TraceReader(source: "split.csv")
            var samples: [MotionSample] = []
            try bytes[..<split].withUnsafeBytes { try reader.feed($0) { samples.append($0) } }
            try bytes[split...].withUnsafeBytes { try reader.feed($0) { samples.append($0) } }
            try reader.finish { samples.append($0) }
            #expect(samples == whole, "split at \(split)")
        }
    }
}

@Suite struct TraceLineEndTests {
    @Test func findsLineEndsLikeAByteScan() {
        // Line ends found a word at a time, among bytes of every value, from every start.
        var random = TraceTestGenerator(seed: 21)
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                Bool.random(using: &random) ? UInt8(ascii: "\n") : UInt8.random(in: 0...255, using: &random)
            }
            bytes.withUnsafeBytes { buffer in
                for start in 0...bytes.count {
                    let expected = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
                    #expect(TraceReader.firstNewline(in: buffer, from: start) == expected)
                }
            }
        }
    }
}

extension String {
    /// The text with its 0-based line `index` replaced by `line`.
    func replacingLine(_ index: Int, with line: String) -> String {
        var lines = split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[index] = line
        return lines.joined(separator: "\n")
    }
}
