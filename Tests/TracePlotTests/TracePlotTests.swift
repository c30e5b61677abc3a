import PunchKit
import Testing
import TracePlot

// MARK: - Synthetic traces

/// `count` samples over `duration` seconds from 0, calm (a little wobble on each axis) but for the
/// `spikes`: single samples of linear acceleration at the given times. The strength of motion is
/// half each sample's length: its value matters to no test but the one that reads it back.
func calmTrace(
    count: Int, duration: Double, spikes: [(time: Double, vector: Vector3)] = []
) -> (times: [Double], linear: [Vector3], strengths: [Double]) {
    let times = (0..<count).map { Double($0) * duration / Double(count - 1) }
    var linear = times.indices.map { index in
        let wobble = Double(index % 7) * 0.01 - 0.03
        return Vector3(wobble, -wobble, wobble * 0.5)
    }
    for spike in spikes {
        let index = times.firstIndex { $0 >= spike.time }!
        linear[index] = spike.vector
    }
    return (times, linear, linear.map { $0.length / 2 })
}

func punch(_ kind: PunchKind, at time: Double, damage: Int) -> Punch {
    Punch(
        time: time, kind: kind, damage: damage, peakG: Double(damage) / 4, speed: 3, rise: 0, clipped: false,
        decidedAt: time + 0.02)
}

/// The SVG of a plot, parsed, with its scales read from its ticks.
struct Drawn {
    let svg: Element
    let time: TickScale
    let g: TickScale
    let area: (left: Double, top: Double, right: Double, bottom: Double)

    init(_ plot: TracePlot) throws {
        let document = try parseXML(plot.svg())
        svg = try #require(document.children.first)
        time = try TickScale(svg, "tick-t", position: "x")
        g = try TickScale(svg, "tick-g", position: "y")
        let rect = try #require(svg.all("rect", class: "plot-area").first)
        let (x, y) = (try rect.number("x"), try rect.number("y"))
        area = (x, y, x + (try rect.number("width")), y + (try rect.number("height")))
    }

    func polyline(_ className: String) throws -> [(x: Double, y: Double)] {
        try #require(svg.all("polyline", class: className).first).points()
    }
}

// MARK: - Tests

@Suite struct TracePlotTests {
    @Test func isWellFormedSVGWithAViewBoxAndEverythingNamed() throws {
        let trace = calmTrace(count: 500, duration: 5)
        let plot = TracePlot(
            title: "a <trace> & \"its\" name.csv", times: trace.times, linear: trace.linear, strengths: trace.strengths,
            thresholds: Array(repeating: 2, count: 500), punches: [], labels: [], width: 900)
        let document = try parseXML(plot.svg())
        #expect(document.children.count == 1)
        let svg = try #require(document.children.first)
        #expect(svg.name == "svg")
        #expect(svg.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(svg.attributes["viewBox"] == "0 0 900 520")
        // The title escaped in the markup comes back as it was.
        #expect(svg.all("title").first?.text == "a <trace> & \"its\" name.csv")
        let drawn = try Drawn(plot)
        for series in ["magnitude", "x", "y", "z", "strength", "threshold"] {
            #expect(try !drawn.polyline(series).isEmpty, "\(series)")
        }
        #expect(svg.all("g", class: "legend").count == 1)
    }

    @Test func onePunchMarkerAPunchWithItsKindAndDamage() throws {
        let trace = calmTrace(count: 1000, duration: 10)
        let punches = [
            punch(.jab, at: 1.5, damage: 12), punch(.uppercut, at: 4.25, damage: 40), punch(.hook, at: 7, damage: 7),
            punch(.jab, at: 7.1, damage: 9),
        ]
        let plot = TracePlot(
            title: "punches", times: trace.times, linear: trace.linear, strengths: trace.strengths,
            thresholds: Array(repeating: 2, count: 1000), punches: punches, labels: [])
        let drawn = try Drawn(plot)
        let markers = drawn.svg.all("g", class: "punch")
        try #require(markers.count == punches.count)
        for (marker, punch) in zip(markers, punches) {
            let texts = marker.all("text").map(\.text)
            #expect(texts == ["\(punch.kind.rawValue) \(punch.damage)"])
            let line = try #require(marker.all("line").first)
            #expect(abs(try line.number("x1") - drawn.time(punch.time)) < 0.2)
            #expect(try line.number("x1") == line.number("x2"))
            #expect(abs(try line.number("y2") - drawn.area.bottom) < 0.2)
        }
        // Two punches 0.1 s apart: their texts are put on different rows, not on top of each other.
        let close = try markers[2...3].map { try #require($0.all("text").first).number("y") }
        #expect(close[0] != close[1])
    }

    @Test func oneShadedWindowALabelInsideTheRangeAndNoneOutside() throws {
        let trace = calmTrace(count: 1000, duration: 10)
        let labels = [
            PunchLabel(start: 0.5, end: 1.0, kind: .jab), PunchLabel(start: 3, end: 3.3, kind: .uppercut),
            PunchLabel(start: 5, end: 5.2, kind: .hook), PunchLabel(start: 9, end: 9.5, kind: .jab),
        ]
        let plot = TracePlot(
            title: "labels", times: trace.times, linear: trace.linear, strengths: trace.strengths,
            thresholds: Array(repeating: 2, count: 1000), punches: [], labels: labels, range: 2...8)
        let drawn = try Drawn(plot)
        let windows = drawn.svg.all("g", class: "label")
        try #require(windows.count == 2)
        for (window, label) in zip(windows, labels[1...2]) {
            #expect(window.attributes["class"]?.contains(label.kind.rawValue) == true)
            let rect = try #require(window.all("rect").first)
            #expect(abs(try rect.number("x") - drawn.time(label.start)) < 0.2)
            #expect(abs(try rect.number("x") + rect.number("width") - drawn.time(label.end)) < 0.2)
            #expect(abs(try rect.number("y") - drawn.area.top) < 0.2)
            #expect(abs(try rect.number("y") + rect.number("height") - drawn.area.bottom) < 0.2)
            #expect(window.all("text").map(\.text) == [label.kind.rawValue])
        }
    }

    @Test func linesStayInsideThePlotAreaAndGoForwardInTime() throws {
        // Noise of every size, spikes up and down, and more samples than pixels.
        var random = SplitMix(seed: 3)
        let times = (0..<20_000).map { Double($0) / 400 }
        let linear = times.map { _ in
            let size = random.next() < 0.01 ? 6.0 : 0.3
            return Vector3(size * (random.next() - 0.5), size * (random.next() - 0.5), size * (random.next() - 0.5))
        }
        let plot = TracePlot(
            title: "noise", times: times, linear: linear, strengths: times.map { _ in 0.5 }, thresholds: times.map { 2 + $0 / 100 }, punches: [],
            labels: [])
        let drawn = try Drawn(plot)
        for series in ["magnitude", "x", "y", "z", "strength", "threshold"] {
            let points = try drawn.polyline(series)
            #expect(points.count >= 2)
            #expect(points.allSatisfy { $0.x >= drawn.area.left && $0.x <= drawn.area.right }, "\(series)")
            #expect(points.allSatisfy { $0.y >= drawn.area.top && $0.y <= drawn.area.bottom }, "\(series)")
            #expect(zip(points, points.dropFirst()).allSatisfy { $0.x <= $1.x }, "\(series)")
        }
        // At most two points a pixel column, however many samples.
        #expect(try drawn.polyline("x").count <= 2 * Int(drawn.area.right - drawn.area.left + 1))
    }

    @Test func aPeakOneSampleWideSurvivesDecimation() throws {
        // 100,000 samples across 800 or so columns: about 120 a column, one of them the peak.
        let trace = calmTrace(count: 100_000, duration: 10, spikes: [(6.123_4, Vector3(0, -5, 0))])
        let plot = TracePlot(
            title: "peak", times: trace.times, linear: trace.linear, strengths: trace.strengths,
            thresholds: Array(repeating: 2, count: trace.times.count), punches: [], labels: [], width: 900)
        let drawn = try Drawn(plot)
        let magnitude = try drawn.polyline("magnitude")
        let highest = try #require(magnitude.min { $0.y < $1.y })
        #expect(abs(highest.y - drawn.g(5)) < 0.3)
        #expect(abs(highest.x - drawn.time(6.123_4)) < 0.3)
        let lowestY = try #require(try drawn.polyline("y").max { $0.y < $1.y })
        #expect(abs(lowestY.y - drawn.g(-5)) < 0.3)
        // The strength, half the length here, peaks at half the height.
        let strongest = try #require(try drawn.polyline("strength").min { $0.y < $1.y })
        #expect(abs(strongest.y - drawn.g(2.5)) < 0.3)
        // And the whole picture stays small.
        #expect(plot.svg().utf8.count < 180_000)
    }

    @Test func fromAndToDrawOnlyTheirTimes() throws {
        let trace = calmTrace(
            count: 2000, duration: 20, spikes: [(3, Vector3(7, 0, 0)), (10, Vector3(0, 0, 4)), (17, Vector3(9, 0, 0))])
        let punches = [
            punch(.jab, at: 3, damage: 28), punch(.uppercut, at: 10, damage: 16), punch(.jab, at: 17, damage: 36),
        ]
        let plot = TracePlot(
            title: "clipped", times: trace.times, linear: trace.linear, strengths: trace.strengths,
            thresholds: Array(repeating: 2, count: 2000), punches: punches, labels: [], range: 8...12)
        let drawn = try Drawn(plot)
        let ticks = try drawn.svg.all("text", class: "tick-t").map { try #require(Double($0.text)) }
        #expect(ticks.first! >= 8 && ticks.last! <= 12)
        #expect(abs(drawn.time(8) - drawn.area.left) < 0.2 && abs(drawn.time(12) - drawn.area.right) < 0.2)
        // Only the middle spike and punch: the g axis reaches 4 g, not 7 or 9.
        #expect(drawn.svg.all("g", class: "punch").map { $0.all("text").first?.text } == ["uppercut 16"])
        let magnitude = try drawn.polyline("magnitude")
        #expect(abs(try #require(magnitude.map(\.y).min()) - drawn.g(4)) < 0.3)
        let gTicks = try drawn.svg.all("text", class: "tick-g").map { try #require(Double($0.text)) }
        #expect(gTicks.max()! < 7)
        let first = try #require(magnitude.first)
        let last = try #require(magnitude.last)
        // The first and last samples inside the range, which start and end within a sample of it.
        let sample = drawn.time(8.01) - drawn.time(8)
        #expect(first.x >= drawn.area.left && first.x - drawn.area.left <= sample + 0.1)
        #expect(last.x <= drawn.area.right && drawn.area.right - last.x <= sample + 0.1)
    }

    @Test func theThresholdIsDrawnAtItsValueAsItChanges() throws {
        let trace = calmTrace(count: 1000, duration: 10)
        // 2 g for the first half, 3 g after, as an adaptive threshold might go.
        let thresholds = trace.times.map { $0 < 5 ? 2.0 : 3.0 }
        let plot = TracePlot(
            title: "threshold", times: trace.times, linear: trace.linear, strengths: trace.strengths, thresholds: thresholds, punches: [],
            labels: [])
        let drawn = try Drawn(plot)
        let line = try drawn.polyline("threshold")
        let before = line.filter { $0.x < drawn.time(4.99) }
        let after = line.filter { $0.x > drawn.time(5.01) }
        #expect(!before.isEmpty && !after.isEmpty)
        #expect(before.allSatisfy { abs($0.y - drawn.g(2)) < 0.3 })
        #expect(after.allSatisfy { abs($0.y - drawn.g(3)) < 0.3 })
        // A steady threshold needs no point a column: a handful draw it.
        #expect(line.count < 10)
        let constant = TracePlot(
            title: "threshold", times: trace.times, linear: trace.linear, strengths: trace.strengths,
            thresholds: Array(repeating: 2.5, count: 1000), punches: [], labels: [])
        let steady = try Drawn(constant)
        #expect(try steady.polyline("threshold").allSatisfy { abs($0.y - steady.g(2.5)) < 0.3 })
        #expect(steady.svg.all("g", class: "legend").first?.descendants.contains { $0.text.contains("2.50 g") } == true)
    }

    @Test func anEmptyTraceIsStillAPicture() throws {
        let plot = TracePlot(title: "empty", times: [], linear: [], strengths: [], thresholds: [], punches: [], labels: [])
        let drawn = try Drawn(plot)
        #expect(try drawn.polyline("magnitude").isEmpty)
    }
}

/// A small seeded generator of numbers in 0..<1, so that the noise is the same every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}
