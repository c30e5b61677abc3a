import PunchKit
import Testing
import TracePlot

/// The panels under the acceleration, where the source has a gyroscope.
@Suite struct TracePlotPanelTests {
    func plot(rotation: [Vector3], up: [Vector3], punches: [Punch] = []) -> TracePlot {
        let trace = calmTrace(count: 400, duration: 4)
        return TracePlot(
            title: "turning", times: trace.times, linear: trace.linear, strengths: trace.strengths,
            thresholds: Array(repeating: 2, count: 400), punches: punches, labels: [], rotation: rotation, up: up,
            width: 900)
    }

    @Test func withoutAGyroscopeThereIsNoPanelAndThePictureKeepsItsHeight() throws {
        let svg = try #require(try parseXML(plot(rotation: [], up: []).svg()).children.first)
        #expect(svg.all("g", class: "panel").isEmpty)
        #expect(svg.attributes["viewBox"] == "0 0 900 520")
    }

    /// The rotation rate in °/s, a turn of π rad/s at 2 s drawn as 180 on the panel's own ticks,
    /// below the acceleration; up in a panel under it; each punch's time across both.
    @Test func theRotationRateInDegreesAndUpAreDrawnUnderTheAcceleration() throws {
        let rotation = (0..<400).map { $0 == 200 ? Vector3(Double.pi, 0, 0) : Vector3.zero }
        let up = (0..<400).map { _ in Vector3(0, 0, 1) }
        let drawn = try Drawn(plot(rotation: rotation, up: up, punches: [punch(.hook, at: 2, damage: 9)]))
        let panels = drawn.svg.all("g", class: "panel")
        try #require(panels.count == 2)
        #expect(panels[0].attributes["class"] == "panel rotation")
        #expect(panels[1].attributes["class"] == "panel up")
        let turning = try TickScale(panels[0], "tick-rotation", position: "y")
        let x = try #require(panels[0].all("polyline", class: "x").first).points()
        let highest = try #require(x.min { $0.y < $1.y })
        // The peak, at 2 s on the acceleration's time scale, reads 180 °/s on the panel's scale.
        #expect(abs(turning(180) - highest.y) < 1)
        #expect(abs(highest.x - drawn.time(2)) <= 1.5, "within the pixel column of its sample")
        // Under the acceleration's plot area, one panel after the other.
        let areas = try panels.map { try #require($0.all("rect", class: "plot-area").first).number("y") }
        #expect(areas[0] > drawn.area.bottom && areas[1] > areas[0])
        for panel in panels {
            let line = try #require(panel.all("line", class: "punch-time").first)
            #expect(abs(try line.number("x1") - drawn.time(2)) < 0.2)
        }
        let viewBox = try #require(drawn.svg.attributes["viewBox"])
        #expect(viewBox != "0 0 900 520")
    }
}
