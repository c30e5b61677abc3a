import Dispatch
import Testing

@testable import PunchKit

// MARK: - Reading half a chunk alongside

/// Starts `job` on another thread, as `hitthat` does.
private func inBackground(_ job: @escaping @Sendable () -> Void) -> () -> Void {
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group, execute: job)
    return { group.wait() }
}

/// Reads `bytes` in `chunks`, each in halves or in order: the samples delivered (up to an error,
/// if one stopped it), either the summary at the end or that error, and how many second halves
/// were read alongside.
private func readingUntilError(
    _ bytes: [UInt8], source: String = "test.csv", lenient: Bool = false, chunks: [Range<Int>], inHalves: Bool
) -> (samples: [MotionSample], summary: TraceSummary?, error: String?, halves: Int) {
    var reader = TraceReader(source: source, lenient: lenient)
    var samples: [MotionSample] = []
    var halves = 0
    do {
        for chunk in chunks {
            try bytes[chunk].withUnsafeBytes { chunk in
                if inHalves {
                    try reader.feed(
                        chunk,
                        inBackground: { job in
                            halves += 1
                            return inBackground(job)
                        }
                    ) { samples.append($0) }
                } else {
                    try reader.feed(chunk) { samples.append($0) }
                }
            }
        }
        try reader.finish { samples.append($0) }
        return (samples, reader.summary, nil, halves)
    } catch {
        return (samples, nil, "\(error)", halves)
    }
}

/// `bytes` in chunks of `size`.
private func chunks(of bytes: [UInt8], size: Int) -> [Range<Int>] {
    stride(from: 0, to: bytes.count, by: size).map { $0..<min($0 + size, bytes.count) }
}

/// A generic trace of `count` rows at 100 Hz, times in whole milliseconds of one width, so that a
/// row's time can be swapped for another's without moving any line.
private func evenRows(_ count: Int) -> [String] {
    (0..<count).map { "\(time(ofRow: $0)),0.1,\($0 % 7 == 0 ? "-0.9" : "-1.0"),0.2" }
}

private func time(ofRow row: Int) -> String { "\(100_000 + 10 * row)" }

private func trace(_ rows: [String]) -> [UInt8] { Array(("t,x,y,z\n" + rows.joined(separator: "\n") + "\n").utf8) }

@Suite struct TraceReaderHalvesTests {
    @Test(arguments: chunkingFixtures, [257, 4096, 16_384])
    func halvesNeverChangeTheResult(fixture: ChunkingFixture, chunkSize: Int) throws {
        let whole = try readTrace(fixture.bytes, source: fixture.source, lenient: fixture.lenient)
        let inHalves = readingUntilError(
            fixture.bytes, source: fixture.source, lenient: fixture.lenient,
            chunks: chunks(of: fixture.bytes, size: chunkSize), inHalves: true)
        #expect(inHalves.error == nil)
        #expect(inHalves.samples == whole.samples)
        #expect(inHalves.summary == whole.summary)
        // The comparison says something only if halves were read alongside.
        #expect(inHalves.halves > 0)
    }

    @Test(arguments: [false, true], [false, true])
    func aRowThatGoesBackAtTheSecondHalfsStartIsJudgedAsInOrder(lenient: Bool, lastRowBeforeIsBroken: Bool) throws {
        // The copy reading the second half cannot know the time before it: it takes the last
        // row of the first half's, which is wrong when that row is broken, and then the second
        // half has to be read again, in order.
        var rows = evenRows(3000)
        let bytes = trace(rows)
        // The rows of the first 20 KB decide the units; the rest is one chunk of whole lines.
        let cut = try #require(bytes[20_000...].firstIndex(of: UInt8(ascii: "\n"))) + 1
        let rest = Array(bytes[cut...])
        let middle = try #require(
            rest[TraceReader.splitPoint(from: 0, to: rest.count - 1)...].firstIndex(of: UInt8(ascii: "\n")))
        let borderRow = bytes[..<(cut + middle + 1)].filter { $0 == UInt8(ascii: "\n") }.count - 1
        rows[borderRow] = time(ofRow: borderRow - 3) + rows[borderRow].dropFirst(time(ofRow: borderRow).count)
        if lastRowBeforeIsBroken { rows[borderRow - 1] = "\(time(ofRow: borderRow - 1)),0.1,oops,0.2" }
        let broken = trace(rows)
        #expect(broken.count == bytes.count)

        let parts = [0..<cut, cut..<broken.count]
        let inOrder = readingUntilError(broken, lenient: lenient, chunks: parts, inHalves: false)
        let inHalves = readingUntilError(broken, lenient: lenient, chunks: parts, inHalves: true)
        let firstBadRow = lastRowBeforeIsBroken ? borderRow - 1 : borderRow
        if lenient {
            #expect(inOrder.summary?.skippedRows == (lastRowBeforeIsBroken ? 2 : 1))
            #expect(inOrder.samples.count == 3000 - (lastRowBeforeIsBroken ? 2 : 1))
        } else {
            #expect(inOrder.error?.contains("test.csv:\(firstBadRow + 2):") == true)
            #expect(inOrder.samples.count == firstBadRow)
        }
        #expect(inHalves.error == inOrder.error)
        #expect(inHalves.summary == inOrder.summary)
        #expect(inHalves.samples == inOrder.samples)
        #expect(inHalves.halves == 1)
    }

    @Test func aBrokenRowStopsReadingAtTheSamePlace() throws {
        // A broken row anywhere, in a chunk's first half or second, or where a chunk begins:
        // the same samples before it and the same error, line and column, as reading in order.
        let rows = evenRows(4000)
        for broken in [900, 1500, 2222, 2223, 2999, 3100, 3999] {
            var changed = rows
            changed[broken] = "\(time(ofRow: broken)),0.1,oops,0.2"
            let bytes = trace(changed)
            let inOrder = readingUntilError(bytes, chunks: chunks(of: bytes, size: 30_000), inHalves: false)
            let inHalves = readingUntilError(bytes, chunks: chunks(of: bytes, size: 30_000), inHalves: true)
            #expect(inOrder.error == "test.csv:\(broken + 2):3: expected a number for \"y\", found \"oops\"")
            #expect(inHalves.error == inOrder.error)
            #expect(inHalves.samples == inOrder.samples)
            // The first chunk, and the line that straddles into the next, are read in order.
            let rowStart = "t,x,y,z\n".utf8.count + changed[..<broken].reduce(0) { $0 + $1.utf8.count + 1 }
            #expect((inHalves.halves > 0) == (rowStart > 30_000), "row \(broken)")
        }
    }

    @Test func lenientReadingKeepsTheSameFirstErrorsWithTheirLines() throws {
        var rows = evenRows(4000)
        let brokenRows = Array(stride(from: 700, to: 4000, by: 150))
        for row in brokenRows { rows[row] = "\(time(ofRow: row)),0.1,oops,0.2" }
        let bytes = trace(rows)
        let inOrder = readingUntilError(bytes, lenient: true, chunks: chunks(of: bytes, size: 30_000), inHalves: false)
        let inHalves = readingUntilError(bytes, lenient: true, chunks: chunks(of: bytes, size: 30_000), inHalves: true)
        #expect(inOrder.summary?.skippedRows == brokenRows.count)
        #expect(inOrder.summary?.errors.count == TraceReader.keptErrors)
        #expect(inHalves.summary == inOrder.summary)
        #expect(inHalves.samples == inOrder.samples)
        #expect(inHalves.halves > 0)
    }
}
