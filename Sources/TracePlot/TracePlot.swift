import PunchKit

// MARK: - TracePlot

/// A trace drawn as an SVG picture, to see why a recording gives the punches it gives: the
/// acceleration with gravity removed (its length and the three axes) against time, the strength of
/// motion and the detector's threshold it is held against, each punch it found with its kind and
/// damage, and the labelled windows.
///
/// Every time is in seconds since the trace's first sample, as in a labels file. A plot is a value
/// that reads no file: the caller runs the detector and hands over what it saw.
public struct TracePlot: Sendable {
    /// What the plot is of, written at its top: the trace's name, say.
    public let title: String
    /// The time of each sample, in order.
    public let times: [Double]
    /// The acceleration with gravity removed at each of `times`, in g, device frame.
    public let linear: [Vector3]
    /// The strength of motion at each of `times`, in g: what the detector holds against the
    /// threshold (the acceleration's mean length over a quarter second).
    public let strengths: [Double]
    /// The detector's threshold at each of `times`, in g: a line over time, as it adapts.
    public let thresholds: [Double]
    /// The punches found, each at its `time` (the stop's peak) since the first sample.
    public let punches: [Punch]
    /// The labelled punches: the trace's ground truth.
    public let labels: [PunchLabel]
    /// The gyroscope's rotation rate at each of `times`, in rad/s, device frame; empty where the
    /// source has no gyroscope. Drawn in a panel of its own under the acceleration, in °/s.
    public let rotation: [Vector3]
    /// Up as the orientation filter followed it at each of `times` (a unit vector, device
    /// frame); empty where it was not followed. Drawn in a panel under the rotation: a punch's
    /// kind is told against it.
    public let up: [Vector3]
    /// The times drawn; samples, punches and labels outside them are left out.
    public let range: ClosedRange<Double>
    /// The picture's width in pixels. The plot area is one column a pixel, and each column draws
    /// the lowest and highest value of its samples, so a long trace makes a picture of bounded
    /// size in which no peak is lost.
    public let width: Int

    /// The picture's height in pixels with a legend of one row; each more row adds `legendRow`.
    static let height = 520.0
    static let legendRow = 18.0
    /// Space around the plot area: the title and the punches' text above, the g axis to the left,
    /// the time axis and the legend below.
    static let margin = (left: 64.0, right: 24.0, top: 84.0, bottom: 76.0)
    /// Pixels a second by default, within the bounds below: enough to read a punch's text.
    static let pixelsPerSecond = 60.0
    static let plotWidths = 720.0...3600.0

    /// Creates a plot.
    ///
    /// - Parameters:
    ///   - times, linear, strengths, thresholds: one entry a sample, the same number of each.
    ///   - rotation, up: one entry a sample too, or none.
    ///   - range: the times to draw; by default from the first sample to the last.
    ///   - width: the picture's width, at least 200 pixels; by default 60 pixels a second of
    ///     `range`, from about 800 to 3,700 pixels.
    public init(
        title: String, times: [Double], linear: [Vector3], strengths: [Double], thresholds: [Double],
        punches: [Punch], labels: [PunchLabel], rotation: [Vector3] = [], up: [Vector3] = [],
        range: ClosedRange<Double>? = nil, width: Int? = nil
    ) {
        precondition(
            times.count == linear.count && times.count == strengths.count && times.count == thresholds.count
                && (rotation.isEmpty || rotation.count == times.count) && (up.isEmpty || up.count == times.count),
            "one entry a sample in each")
        self.rotation = rotation
        self.up = up
        self.title = title
        self.times = times
        self.linear = linear
        self.strengths = strengths
        self.thresholds = thresholds
        self.punches = punches
        self.labels = labels
        var range = range ?? (times.first ?? 0)...(times.last ?? 0)
        // A single instant has no width to draw it in.
        if range.lowerBound == range.upperBound { range = range.lowerBound...range.lowerBound + 1 }
        self.range = range
        let margins = Self.margin.left + Self.margin.right
        let plotWidth = min(
            max((range.upperBound - range.lowerBound) * Self.pixelsPerSecond, Self.plotWidths.lowerBound),
            Self.plotWidths.upperBound)
        self.width = max(width ?? Int((plotWidth + margins).rounded()), 200)
    }

    // MARK: - Drawing

    /// The picture, as the text of an SVG document.
    public func svg() -> String {
        let visible = times.indices.filter { range.contains(times[$0]) }
        let frame = Frame(width: Double(width), range: range, gRange: gRange(of: visible))
        let legend = legendEntries(visible, frame)
        let panelsTop = Self.height + Double(legend.last?.row ?? 0) * Self.legendRow
        let height = fixed(panelsTop + Double(panels.count) * Self.panelHeight, 0)
        var svg = SVGText()
        svg.open(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("viewBox", "0 0 \(width) \(height)"),
                ("width", "\(width)"), ("height", height), ("font-family", "sans-serif"), ("font-size", "12"),
            ])
        svg.element("title", [], content: title)
        svg.element("rect", [("width", "100%"), ("height", "100%"), ("fill", "white")])
        drawLabels(frame, &svg)
        drawAxes(frame, &svg)
        drawSeries(visible, frame, &svg)
        let untold = drawPunches(frame, &svg)
        svg.element("rect", [("class", "plot-area")] + frame.rectangle + [("fill", "none"), ("stroke", "#444")])
        drawHeading(visible, untold: untold, frame, &svg)
        drawLegend(legend, frame, &svg)
        drawPanels(visible, below: panelsTop, frame, &svg)
        svg.close("svg")
        return svg.text
    }

    /// The values the g axis must show: every plotted value, zero and the threshold, with a
    /// little room above and below.
    private func gRange(of visible: [Int]) -> ClosedRange<Double> {
        var lower = 0.0
        var upper = 0.0
        for index in visible where linear[index].isFinite && thresholds[index].isFinite {
            // No axis reaches below the least of them, nor above the length.
            let a = linear[index]
            lower = min(lower, a.x, a.y, a.z, thresholds[index])
            upper = max(upper, a.length, thresholds[index])
        }
        if upper - lower < 1 { upper = lower + 1 }
        let room = (upper - lower) * 0.04
        return (lower - (lower < 0 ? room : 0))...(upper + room)
    }

    private func drawLabels(_ frame: Frame, _ svg: inout SVGText) {
        // A window's kind is written under it where it does not run into the last one written.
        var textEnd = -Double.infinity
        for label in labels.sorted(by: { $0.start < $1.start })
        where label.end >= range.lowerBound && label.start <= range.upperBound {
            let left = frame.x(max(label.start, range.lowerBound))
            let right = frame.x(min(label.end, range.upperBound))
            let halfText = textWidth(label.kind.rawValue, size: 10) / 2
            let style = Style(label.kind)
            svg.open("g", [("class", "label label-\(label.kind.rawValue)")])
            svg.element(
                "rect",
                [
                    ("x", fixed(left)), ("y", fixed(frame.top)), ("width", fixed(max(right - left, 1))),
                    ("height", fixed(frame.bottom - frame.top)), ("fill", style.light),
                ])
            if (left + right) / 2 - halfText > textEnd + 4 {
                textEnd = (left + right) / 2 + halfText
                svg.element(
                    "text",
                    [
                        ("x", fixed((left + right) / 2)), ("y", fixed(frame.bottom - 5)), ("text-anchor", "middle"),
                        ("font-size", "10"), ("fill", style.dark),
                    ], content: label.kind.rawValue)
            }
            svg.close("g")
        }
    }

    private func drawAxes(_ frame: Frame, _ svg: inout SVGText) {
        let (gTicks, gDecimals) = frame.y.ticks(spacing: 40)
        svg.open("g", [("class", "g-axis")])
        for value in gTicks {
            let y = fixed(frame.y(value))
            // The zero line is what the axes swing about: darker than the rest of the grid.
            svg.element(
                "line",
                [
                    ("x1", fixed(frame.left)), ("x2", fixed(frame.right)), ("y1", y), ("y2", y),
                    ("stroke", value == 0 ? "#999" : "#e4e4e4"),
                ])
            svg.element(
                "text",
                [
                    ("class", "tick-g"), ("x", fixed(frame.left - 6)), ("y", y), ("text-anchor", "end"),
                    ("dominant-baseline", "middle"),
                ], content: fixed(value, gDecimals))
        }
        let middle = fixed((frame.top + frame.bottom) / 2)
        svg.element(
            "text",
            [
                ("x", "16"), ("y", middle), ("text-anchor", "middle"), ("transform", "rotate(-90 16 \(middle))"),
            ], content: "acceleration, gravity removed (g)")
        svg.close("g")

        let (timeTicks, timeDecimals) = frame.x.ticks(spacing: 70)
        svg.open("g", [("class", "time-axis")])
        for value in timeTicks {
            let x = fixed(frame.x(value))
            svg.element(
                "line",
                [("x1", x), ("x2", x), ("y1", fixed(frame.top)), ("y2", fixed(frame.bottom)), ("stroke", "#e4e4e4")])
            svg.element(
                "line",
                [
                    ("x1", x), ("x2", x), ("y1", fixed(frame.bottom)), ("y2", fixed(frame.bottom + 5)),
                    ("stroke", "#444"),
                ])
            svg.element(
                "text", [("class", "tick-t"), ("x", x), ("y", fixed(frame.bottom + 18)), ("text-anchor", "middle")],
                content: fixed(value, timeDecimals))
        }
        svg.element(
            "text",
            [("x", fixed((frame.left + frame.right) / 2)), ("y", fixed(frame.bottom + 36)), ("text-anchor", "middle")],
            content: "time since the first sample (s)")
        svg.close("g")
    }

    private func drawSeries(_ visible: [Int], _ frame: Frame, _ svg: inout SVGText) {
        // The axes first, thin, so that the length drawn over them stays readable.
        let series: [(name: String, color: String, width: String, value: (Int) -> Double)] = [
            ("x", Style.x, "1", { linear[$0].x }),
            ("y", Style.y, "1", { linear[$0].y }),
            ("z", Style.z, "1", { linear[$0].z }),
            ("magnitude", Style.magnitude, "1.5", { linear[$0].length }),
            ("strength", Style.threshold, "2.5", { strengths[$0] }),
        ]
        for (name, color, width, value) in series {
            svg.element(
                "polyline",
                [
                    ("class", "series \(name)"), ("fill", "none"), ("stroke", color), ("stroke-width", width),
                    ("stroke-linejoin", "round"), ("points", points(visible, frame, value)),
                ])
        }
        svg.element(
            "polyline",
            [
                ("class", "threshold"), ("fill", "none"), ("stroke", Style.threshold), ("stroke-width", "1.5"),
                ("stroke-dasharray", "7 4"), ("points", points(visible, frame) { thresholds[$0] }),
            ])
    }

    /// The `points` attribute of a series: its samples decimated to two a pixel column.
    private func points(_ visible: [Int], _ frame: Frame, _ value: (Int) -> Double) -> String {
        decimated(visible.count, x: { frame.x(times[visible[$0]]) }, y: { frame.y(value(visible[$0])) })
            .map { "\(fixed($0.x)),\(fixed($0.y))" }.joined(separator: " ")
    }

    /// Draws the punches in range and returns how many went without their text.
    private func drawPunches(_ frame: Frame, _ svg: inout SVGText) -> Int {
        // Each punch's text sits above the plot area in the first of three rows where it does
        // not run into the text before it. Where punches are too dense for that, text on text
        // would be unreadable: the marker goes without, its tooltip still says what it is.
        let rowHeight = 15.0
        var rowEnds = [Double](repeating: -.infinity, count: 3)
        var untold = 0
        for punch in punches.sorted(by: { $0.time < $1.time }) where range.contains(punch.time) {
            let x = frame.x(punch.time)
            let text = "\(punch.kind.rawValue) \(punch.damage)"
            let size = textWidth(text, size: 11)
            // Text that would run off the picture's right edge goes to the left of its marker.
            let leftward = x + 3 + size > Double(width) - 2
            let row = rowEnds.firstIndex { $0 < (leftward ? x - 3 - size : x) }
            if let row { rowEnds[row] = (leftward ? x : x + 3 + size) + 6 } else { untold += 1 }
            let baseline = frame.top - 6 - Double(row ?? 0) * rowHeight
            let style = Style(punch.kind)
            svg.open("g", [("class", "punch punch-\(punch.kind.rawValue)")])
            svg.element(
                "title", [],
                content:
                    "\(punch.kind.rawValue) at \(fixed(punch.time, 3)) s: damage \(punch.damage), "
                    + "peak \(fixed(punch.peakG, 2)) g, speed \(fixed(punch.speed, 2)) m/s")
            svg.element(
                "line",
                [
                    ("x1", fixed(x)), ("x2", fixed(x)), ("y1", fixed(baseline - 10)), ("y2", fixed(frame.bottom)),
                    ("stroke", style.dark), ("stroke-width", "1.2"),
                ])
            if row != nil {
                svg.element(
                    "text",
                    [
                        ("x", fixed(leftward ? x - 3 : x + 3)), ("y", fixed(baseline)),
                        ("text-anchor", leftward ? "end" : "start"), ("font-size", "11"), ("fill", style.dark),
                    ],
                    content: text)
            }
            svg.close("g")
        }
        return untold
    }

    private func drawHeading(_ visible: [Int], untold: Int, _ frame: Frame, _ svg: inout SVGText) {
        let shownPunches = punches.count { range.contains($0.time) }
        let shownLabels = labels.count { $0.end >= range.lowerBound && $0.start <= range.upperBound }
        svg.element(
            "text", [("x", fixed(frame.left)), ("y", "20"), ("font-size", "15"), ("font-weight", "bold")],
            content: title)
        svg.element(
            "text", [("x", fixed(frame.right)), ("y", "20"), ("text-anchor", "end"), ("fill", "#555")],
            content:
                "\(fixed(range.lowerBound, 2))–\(fixed(range.upperBound, 2)) s: \(visible.count) samples, "
                + "\(shownPunches) punch\(shownPunches == 1 ? "" : "es") found, \(shownLabels) labelled"
                + (untold > 0 ? " (\(untold) without their text, for want of room: draw less time)" : ""))
    }

    /// What the legend explains, each entry with its row (from 0) and where in it it begins: as
    /// many entries a row as fit the plot area's width.
    private func legendEntries(
        _ visible: [Int], _ frame: Frame
    ) -> [(text: String, swatch: Swatch, row: Int, x: Double)] {
        let shownThresholds = Set(visible.map { thresholds[$0] })
        let threshold = shownThresholds.count == 1 ? "threshold, \(fixed(shownThresholds.first!, 2)) g" : "threshold"
        var entries: [(text: String, swatch: Swatch)] = [
            ("|a|, the length", .line(Style.magnitude, dashed: false)),
            ("x", .line(Style.x, dashed: false)), ("y", .line(Style.y, dashed: false)),
            ("z", .line(Style.z, dashed: false)), ("strength (mean |a| over 0.25 s)", .line(Style.threshold, dashed: false)),
            (threshold, .line(Style.threshold, dashed: true)),
        ]
        for kind in PunchKind.allCases where punches.contains(where: { $0.kind == kind }) {
            entries.append(("\(kind.rawValue) found, with its damage", .marker(Style(kind).dark)))
        }
        for kind in PunchKind.allCases where labels.contains(where: { $0.kind == kind }) {
            entries.append(("labelled \(kind.rawValue)", .area(Style(kind).light)))
        }
        var row = 0
        var x = frame.left
        return entries.map { text, swatch in
            let entryWidth = 28 + textWidth(text, size: 12)
            if x > frame.left && x + entryWidth > frame.right {
                row += 1
                x = frame.left
            }
            defer { x += entryWidth + 18 }
            return (text, swatch, row, x)
        }
    }

    private func drawLegend(
        _ entries: [(text: String, swatch: Swatch, row: Int, x: Double)], _ frame: Frame, _ svg: inout SVGText
    ) {
        svg.open("g", [("class", "legend")])
        for (text, swatch, row, x) in entries {
            let y = Self.height - 14 + Double(row) * Self.legendRow
            switch swatch {
            case .line(let color, let dashed):
                svg.element(
                    "line",
                    [
                        ("x1", fixed(x)), ("x2", fixed(x + 22)), ("y1", fixed(y)), ("y2", fixed(y)), ("stroke", color),
                        ("stroke-width", "2"),
                    ] + (dashed ? [("stroke-dasharray", "7 4")] : []))
            case .marker(let color):
                svg.element(
                    "line",
                    [
                        ("x1", fixed(x + 11)), ("x2", fixed(x + 11)), ("y1", fixed(y - 8)), ("y2", fixed(y + 6)),
                        ("stroke", color), ("stroke-width", "2"),
                    ])
            case .area(let color):
                svg.element(
                    "rect",
                    [("x", fixed(x)), ("y", fixed(y - 7)), ("width", "22"), ("height", "14"), ("fill", color)])
            }
            svg.element(
                "text", [("x", fixed(x + 28)), ("y", fixed(y)), ("dominant-baseline", "middle")], content: text)
        }
        svg.close("g")
    }
}

// MARK: - Frame

/// Where the plot area is in the picture, and its scales.
struct Frame {
    var x: Scale
    var y: Scale

    init(width: Double, range: ClosedRange<Double>, gRange: ClosedRange<Double>) {
        let margin = TracePlot.margin
        x = Scale(
            lower: range.lowerBound, upper: range.upperBound, start: margin.left, end: width - margin.right)
        y = Scale(
            lower: gRange.lowerBound, upper: gRange.upperBound, start: TracePlot.height - margin.bottom,
            end: margin.top)
    }

    var left: Double { x.start }
    var right: Double { x.end }
    var top: Double { y.end }
    var bottom: Double { y.start }

    /// The plot area as the attributes of a `rect`.
    var rectangle: [(String, String)] {
        [("x", fixed(left)), ("y", fixed(top)), ("width", fixed(right - left)), ("height", fixed(bottom - top))]
    }
}

// MARK: - Style

/// The colours: the axes as most tools draw them (x red, y green, z blue), their length in near
/// black over them, and one hue a kind of punch, light for a labelled window and dark for a punch
/// found, so that a punch found of another kind than its label stands out.
struct Style {
    static let magnitude = "#1a1a1a"
    static let x = "#d62728"
    static let y = "#2ca02c"
    static let z = "#1f77b4"
    static let threshold = "#ff7f0e"

    var light: String
    var dark: String

    init(_ kind: PunchKind) {
        switch kind {
        case .jab: (light, dark) = ("#e4d3ee", "#7b3294")
        case .uppercut: (light, dark) = ("#f6e6c0", "#a6611a")
        case .hook: (light, dark) = ("#cdebe6", "#01665e")
        }
    }
}

/// What a legend entry shows beside its text.
enum Swatch {
    case line(String, dashed: Bool)
    case marker(String)
    case area(String)
}

/// About how wide `text` is in a sans-serif font of `size` pixels: the picture cannot measure it.
func textWidth(_ text: String, size: Double) -> Double {
    Double(text.count) * size * 0.58
}
