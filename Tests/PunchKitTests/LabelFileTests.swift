import PunchKit
import Testing

@Suite struct LabelFileTests {
    @Test func readsWhatItWrites() throws {
        let labels = [PunchLabel(start: 0.25, end: 0.5, kind: .jab), PunchLabel(start: 1.125, end: 1.5, kind: .hook)]
        let text = PunchLabel.formatLabels(labels)
        #expect(try PunchLabel.parseLabels(text, source: "x.labels.csv") == labels)
    }

    @Test func toleratesCRLFAndABOM() throws {
        let labels = try PunchLabel.parseLabels("\u{FEFF}start,end,type\r\n1,2,uppercut\r\n", source: "x")
        #expect(labels == [PunchLabel(start: 1, end: 2, kind: .uppercut)])
    }

    @Test(arguments: [
        ("begin,end,type\n", "x:1:1: expected the header start,end,type"),
        ("start,end,type\n1,2\n", "x:2:3: expected 3 fields"),
        ("start,end,type\n1,2,jab,\n", "x:2:4: expected 3 fields (start,end,type), found 4"),
        ("start,end,type\n1,2,jab,,,,,,\n", "x:2:4: expected 3 fields (start,end,type), found 9"),
        ("start,end,type\n1,abc,jab\n", "x:2:2: expected a number of seconds, found \"abc\""),
        ("start,end,type\n1,2,kick\n", "x:2:3: expected jab, uppercut or hook, found \"kick\""),
        ("start,end,type\n2,1,jab\n", "x:2:2: expected an end no earlier than the start 2"),
        ("", "x: expected the header start,end,type"),
    ])
    func malformedLabelsSayWhereAndWhat(text: String, message: String) {
        #expect {
            _ = try PunchLabel.parseLabels(text, source: "x")
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }
}

@Suite struct LabelsPathTests {
    @Test(arguments: [
        ("traces/run.csv", "traces/run.labels.csv"), ("run", "run.labels.csv"), ("a.csv.csv", "a.csv.labels.csv"),
    ])
    func labelsLieBesideTheTrace(trace: String, labels: String) {
        #expect(PunchLabel.labelsPath(forTrace: trace) == labels)
    }
}
