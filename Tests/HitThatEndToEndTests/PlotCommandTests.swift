import Foundation
import FoundationXML
import Testing

@Suite struct PlotCommandTests {
    /// Whether `text` is well-formed XML, as Foundation's parser (libxml2) reads it.
    func isWellFormed(_ text: String) -> Bool { XMLParser(data: Data(text.utf8)).parse() }

    /// How many elements of the SVG open with `prefix` (an element and the start of its class).
    func count(_ prefix: String, in svg: String) -> Int { svg.components(separatedBy: prefix).count - 1 }

    @Test func drawsABundledTraceBesideItWithItsPunchesAndLabels() throws {
        // A copy, so that the picture written beside the trace lands outside the repository.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("mixed.csv")
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("traces/mixed-phyphox.csv"), to: trace)
        try FileManager.default.copyItem(
            at: packageRoot.appendingPathComponent("traces/mixed-phyphox.labels.csv"),
            to: directory.appendingPathComponent("mixed.labels.csv"))

        let result = try hitthat(["plot", trace.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.isEmpty)
        let picture = directory.appendingPathComponent("mixed.svg")
        #expect(result.error.contains("drawn to \(picture.path)"), "\(result.error)")
        let svg = try String(contentsOf: picture, encoding: .utf8)
        #expect(isWellFormed(svg))
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "))

        // A marker for each punch `detect` finds, and a window for each label (the sibling file's).
        let detected = try jsonLines(try hitthat(["detect", "--json", trace.path]).output)
        #expect(!detected.isEmpty)
        #expect(count("<g class=\"punch ", in: svg) == detected.count)
        let labels = try String(contentsOf: directory.appendingPathComponent("mixed.labels.csv"), encoding: .utf8)
        #expect(count("<g class=\"label ", in: svg) == labels.split(separator: "\n").count - 1)

        // `-o -` writes the same picture to standard output.
        let toStandardOutput = try hitthat(["plot", trace.path, "-o", "-"])
        #expect(toStandardOutput.status == 0)
        #expect(toStandardOutput.output == svg)
    }

    @Test func fromAndToDrawPartOfTheTrace() throws {
        let whole = try hitthat(["plot", "traces/mixed-generic-100hz.csv", "-o", "-"])
        let part = try hitthat(["plot", "traces/mixed-generic-100hz.csv", "-o", "-", "--from", "2", "--to", "6"])
        #expect(whole.status == 0 && part.status == 0, "\(part.error)")
        #expect(isWellFormed(part.output))
        #expect(part.output.contains("2.00–6.00 s:"))
        #expect(count("<g class=\"punch ", in: part.output) < count("<g class=\"punch ", in: whole.output))
    }

    @Test func aBadTraceNamesTheLineAndColumnAndExitsWith65() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("bad.csv")
        try Data("t,x,y,z\n0,0,0,1\n0.01,0,abc,1\n".utf8).write(to: trace)
        let result = try hitthat(["plot", trace.path])
        #expect(result.status == 65)
        #expect(result.error.contains("\(trace.path):3:3: expected"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("bad.svg").path))

        // A bad labels file likewise, before the trace is read.
        let labels = directory.appendingPathComponent("bad.labels.csv")
        try Data("start,end,type\n1,2,kick\n".utf8).write(to: labels)
        let badLabels = try hitthat(["plot", "traces/mixed-generic-100hz.csv", "--labels", labels.path, "-o", "-"])
        #expect(badLabels.status == 65)
        #expect(badLabels.error.contains("\(labels.path):2:3: expected"), "\(badLabels.error)")
    }

    @Test(arguments: [
        ["--from", "5", "--to", "3"], ["--to", "0"], ["--from=-1"], ["--to", "nan"], ["--from", "500"],
    ])
    func aRangeThatIsNoRangeIsRefused(arguments: [String]) throws {
        let result = try hitthat(["plot", "traces/mixed-generic-100hz.csv", "-o", "-"] + arguments)
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("--from") || result.error.contains("--to"), "\(result.error)")
        #expect(result.output.isEmpty)
    }
}
