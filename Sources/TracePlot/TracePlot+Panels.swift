import PunchKit

// MARK: - Panels under the acceleration

extension TracePlot {
    /// The height of each panel under the acceleration, in pixels.
    static let panelHeight = 170.0

    /// A panel under the acceleration: a quantity's three axes against the same times.
    struct Panel {
        /// The class of its group in the SVG, and the text beside its axis.
        var name: String
        var axisTitle: String
        /// The values of each sample, in the unit of the axis title.
        var values: (Int) -> Vector3
        /// Whether the length is drawn over the axes.
        var drawsLength: Bool
    }

    /// The panels this plot has: the rotation rate in °/s, and up as the filter followed it.
    var panels: [Panel] {
        var panels: [Panel] = []
        let degreesPerRadian = 180 / Double.pi
        if !rotation.isEmpty {
            panels.append(
                Panel(
                    name: "rotation", axisTitle: "rotation rate (°/s)", values: { rotation[$0] * degreesPerRadian },
                    drawsLength: true))
        }
        if !up.isEmpty {
            panels.append(Panel(name: "up", axisTitle: "up, device frame", values: { up[$0] }, drawsLength: false))
        }
        return panels
    }

    /// Draws the panels one under the other from `top`, on the acceleration's time scale, with
    /// each punch's time as a line across them.
    func drawPanels(_ visible: [Int], below top: Double, _ frame: Frame, _ svg: inout SVGText) {
        for (number, panel) in panels.enumerated() {
            let panelTop = top + Double(number) * Self.panelHeight + 16
            let panelBottom = panelTop + Self.panelHeight - 40
            var lower = 0.0
            var upper = 0.0
            for index in visible {
                let value = panel.values(index)
                guard value.isFinite else { continue }
                lower = min(lower, value.x, value.y, value.z)
                upper = max(upper, panel.drawsLength ? value.length : max(value.x, value.y, value.z))
            }
            if upper - lower < 1 { upper = lower + 1 }
            let area = Frame(x: frame.x, y: Scale(lower: lower, upper: upper, start: panelBottom, end: panelTop))
            svg.open("g", [("class", "panel \(panel.name)")])
            let (ticks, decimals) = area.y.ticks(spacing: 30)
            for value in ticks {
                let y = fixed(area.y(value))
                svg.element(
                    "line",
                    [
                        ("x1", fixed(area.left)), ("x2", fixed(area.right)), ("y1", y), ("y2", y),
                        ("stroke", value == 0 ? "#999" : "#e4e4e4"),
                    ])
                svg.element(
                    "text",
                    [
                        ("class", "tick-\(panel.name)"), ("x", fixed(area.left - 6)), ("y", y), ("text-anchor", "end"),
                        ("dominant-baseline", "middle"),
                    ], content: fixed(value, decimals))
            }
            for punch in punches where range.contains(punch.time) {
                let x = fixed(area.x(punch.time))
                svg.element(
                    "line",
                    [
                        ("class", "punch-time"), ("x1", x), ("x2", x), ("y1", fixed(area.top)),
                        ("y2", fixed(area.bottom)), ("stroke", Style(punch.kind).dark), ("stroke-dasharray", "3 3"),
                    ])
            }
            var series: [(name: String, color: String, width: String, value: (Int) -> Double)] = [
                ("x", Style.x, "1", { panel.values($0).x }),
                ("y", Style.y, "1", { panel.values($0).y }),
                ("z", Style.z, "1", { panel.values($0).z }),
            ]
            if panel.drawsLength { series.append(("magnitude", Style.magnitude, "1.5", { panel.values($0).length })) }
            for (name, color, width, value) in series {
                let points = decimated(
                    visible.count, x: { area.x(times[visible[$0]]) }, y: { area.y(value(visible[$0])) }
                ).map { "\(fixed($0.x)),\(fixed($0.y))" }.joined(separator: " ")
                svg.element(
                    "polyline",
                    [
                        ("class", "series \(name)"), ("fill", "none"), ("stroke", color), ("stroke-width", width),
                        ("stroke-linejoin", "round"), ("points", points),
                    ])
            }
            svg.element("rect", [("class", "plot-area")] + area.rectangle + [("fill", "none"), ("stroke", "#444")])
            svg.element(
                "text", [("class", "panel-title"), ("x", fixed(area.left)), ("y", fixed(panelTop - 4))],
                content: panel.axisTitle + " (x red, y green, z blue" + (panel.drawsLength ? ", length black)" : ")"))
            svg.close("g")
        }
    }
}

extension Frame {
    /// A plot area with the given scales.
    init(x: Scale, y: Scale) {
        self.x = x
        self.y = y
    }
}
