import Foundation
import FoundationXML
import Testing

// MARK: - Reading back the SVG

/// An element of an SVG document as an XML parser reads it, with what the tests ask of it.
final class Element {
    let name: String
    let attributes: [String: String]
    var text = ""
    var children: [Element] = []

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// This element and every element inside it, in document order.
    var descendants: [Element] { [self] + children.flatMap(\.descendants) }

    /// The elements named `name` inside this one (itself included) whose class list has `className`.
    func all(_ name: String, class className: String? = nil) -> [Element] {
        descendants.filter { element in
            element.name == name
                && (className.map { (element.attributes["class"] ?? "").split(separator: " ").contains(Substring($0)) }
                    ?? true)
        }
    }

    /// A numeric attribute.
    func number(_ attribute: String) throws -> Double {
        try #require(attributes[attribute].flatMap(Double.init), "\(name) has no number \(attribute)")
    }

    /// The `points` of a polyline, as pairs.
    func points() throws -> [(x: Double, y: Double)] {
        try (attributes["points"] ?? "").split(separator: " ").map { pair in
            let numbers = pair.split(separator: ",").compactMap { Double($0) }
            try #require(numbers.count == 2, "a point is x,y: \(pair)")
            return (numbers[0], numbers[1])
        }
    }
}

/// Parses `text` with Foundation's XML parser (libxml2), which fails on anything not well-formed.
func parseXML(_ text: String) throws -> Element {
    let builder = TreeBuilder()
    let parser = XMLParser(data: Data(text.utf8))
    parser.delegate = builder
    let parsed = parser.parse()
    #expect(parsed, "not well-formed: \(String(describing: parser.parserError))")
    try #require(parsed)
    return builder.document
}

/// Builds the tree of elements as the parser reports them.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    let document = Element(name: "#document", attributes: [:])
    private lazy var open: [Element] = [document]

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        let element = Element(name: name, attributes: attributes)
        open.last?.children.append(element)
        open.append(element)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        open.last?.text += string
    }
}

// MARK: - The picture's scales, read from its ticks

/// The map from values to pixels that a scale's tick labels show: the first and last tick fix it.
struct TickScale {
    var value: (first: Double, last: Double)
    var pixel: (first: Double, last: Double)

    /// Reads the ticks of class `tickClass` (`tick-g`, positioned by `y`, or `tick-t`, by `x`).
    init(_ svg: Element, _ tickClass: String, position: String) throws {
        let ticks = try svg.all("text", class: tickClass).map { tick in
            (try #require(Double(tick.text), "a tick's label is a number: \(tick.text)"), try tick.number(position))
        }
        try #require(ticks.count >= 2, "at least two \(tickClass) ticks")
        value = (ticks[0].0, ticks[ticks.count - 1].0)
        pixel = (ticks[0].1, ticks[ticks.count - 1].1)
    }

    /// The pixel of a value.
    func callAsFunction(_ v: Double) -> Double {
        pixel.first + (v - value.first) / (value.last - value.first) * (pixel.last - pixel.first)
    }
}
