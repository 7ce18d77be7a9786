/// A run of consecutive segments of one line, drawn `shift` worlds to the east (−1, 0 or 1: a line that crosses
/// the antimeridian is drawn once more a world to the west or east, so both sides of the map show it).
///
/// Segments `first ..< end` join vertex `i` to `i + 1`, by global vertex index in `ProjectedRouteSet`.
package struct SegmentSpan: Equatable, Sendable {
    var line: Int32
    var shift: Int32
    var first: Int32
    var end: Int32
}

/// Spans in line, shift and segment order, with adjacent segments merged into one span as they are added.
package struct SpanList: Sendable {
    package var spans: [SegmentSpan] = []

    package var isEmpty: Bool { spans.isEmpty }

    @inline(__always)
    mutating func add(line: Int32, shift: Int32, segment: Int32) {
        if let last = spans.last, last.end == segment, last.line == line, last.shift == shift {
            spans[spans.count - 1].end = segment + 1
        } else {
            spans.append(SegmentSpan(line: line, shift: shift, first: segment, end: segment + 1))
        }
    }

    mutating func add(_ span: SegmentSpan) {
        if let last = spans.last, last.end == span.first, last.line == span.line, last.shift == span.shift {
            spans[spans.count - 1].end = span.end
        } else {
            spans.append(span)
        }
    }
}
