// MARK: - Decimation

/// A point of a line, in pixels.
struct Point: Equatable {
    var x: Double
    var y: Double
}

/// The points that draw a series of `count` samples, at most two a pixel column however many
/// samples fall in it: the lowest and the highest, in the order they came. A peak one sample
/// wide is what a developer looks for, so no column ever averages it away.
///
/// - Parameters:
///   - x: the pixel of sample `i`'s time, non-decreasing in `i`.
///   - y: the pixel of sample `i`'s value; a sample whose value is not finite is left out.
func decimated(_ count: Int, x: (Int) -> Double, y: (Int) -> Double) -> [Point] {
    var points: [Point] = []
    var column = -Int.max
    var lowest = Point(x: 0, y: 0)
    var highest = Point(x: 0, y: 0)
    var isEmpty = true

    func flush() {
        guard !isEmpty else { return }
        points.append(lowest.x <= highest.x ? lowest : highest)
        if lowest != highest { points.append(lowest.x <= highest.x ? highest : lowest) }
    }

    for index in 0..<count {
        let point = Point(x: x(index), y: y(index))
        guard point.x.isFinite, point.y.isFinite else { continue }
        let pointColumn = Int(point.x.rounded(.down))
        if pointColumn != column {
            flush()
            column = pointColumn
            lowest = point
            highest = point
            isEmpty = false
        } else if point.y > lowest.y {
            // Pixels grow downwards: the lowest value has the largest y.
            lowest = point
        } else if point.y < highest.y {
            highest = point
        }
    }
    flush()
    return simplified(points)
}

/// `points` rounded to a tenth of a pixel, less the middle of every three in a row at the same
/// height, which the line through the other two draws anyway: a calm stretch becomes a few
/// points instead of two a column.
func simplified(_ points: [Point]) -> [Point] {
    var kept: [Point] = []
    kept.reserveCapacity(points.count)
    for point in points {
        let rounded = Point(x: (point.x * 10).rounded() / 10, y: (point.y * 10).rounded() / 10)
        if kept.count >= 2 && kept[kept.count - 1].y == rounded.y && kept[kept.count - 2].y == rounded.y {
            kept[kept.count - 1] = rounded
        } else {
            kept.append(rounded)
        }
    }
    return kept
}
