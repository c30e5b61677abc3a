import InputDevices
import Testing

/// Recordings copied through Windows tools come back with CRLF line ends; in Swift "\r\n" is one
/// Character, so a parser that splits at "\n" alone would see one long comment line and no events.
@Suite struct EvemuLineEndingTests {
    @Test func crlfRecordingReadsLikeTheLFOne() throws {
        let lf = try EvemuRecording(parsing: EvemuTests.dualSense, source: "lf.evemu")
        let crlf = try EvemuRecording(
            parsing: EvemuTests.dualSense.split(separator: "\n").joined(separator: "\r\n") + "\r\n",
            source: "crlf.evemu")
        #expect(lf.events.count == 11)
        #expect(crlf == lf)
    }

    @Test func crlfErrorNamesTheRightLine() {
        let error = #expect(throws: EvemuSyntaxError.self) {
            try EvemuRecording(parsing: "# EVEMU 1.3\r\nN: pad\r\nX: 1\r\n", source: "bad.evemu")
        }
        #expect(error?.line == 3)
        #expect(error?.column == 1)
    }
}
