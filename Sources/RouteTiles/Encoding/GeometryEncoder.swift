/// Writes the packed command stream of MVT 2.1 §4.3 for a feature's geometry, without any field key or length.
///
/// - Lines: each part loses its consecutive duplicate points (a zero-length `LineTo` is invalid); a part left with
///   fewer than two points is skipped. A written part is `MoveTo(1)` then `LineTo(n - 1)`.
/// - Points: every point goes into one `MoveTo` whose count is the number of points (a MultiPoint when above 1).
///
/// Parameters are zigzag-encoded deltas from a cursor that starts at (0, 0) for each feature and carries across parts,
/// so the `MoveTo` of a part is relative to the last point of the previous written part.
enum GeometryEncoder {
    /// Coordinates beyond this magnitude are refused: renderers keep tile coordinates in 16-bit signed integers.
    static let maximumCoordinateMagnitude: Int32 = 32767

    /// Appends the command stream for `geometry` to `writer`. Returns false, with `writer` left as it was, when the
    /// geometry is malformed (part ends out of order or past the points), has a coordinate out of range, or has no
    /// part to write.
    static func encode(_ geometry: TileGeometry, into writer: inout ProtobufWriter) -> Bool {
        let startCount = writer.count
        let written: Bool
        switch geometry.kind {
        case .point: written = encodePoints(geometry, into: &writer)
        case .lineString: written = encodeLines(geometry, into: &writer)
        }
        if !written {
            // Drop whatever was written before the problem showed.
            writer.truncate(to: startCount)
        }
        return written
    }

    /// Checks that `partEnds` is non-decreasing and within `points`; returns the number of points in use.
    private static func usedPointCount(_ geometry: TileGeometry) -> Int? {
        var previous = 0
        for end in geometry.partEnds {
            guard end >= previous, end <= geometry.points.count else { return nil }
            previous = end
        }
        return previous
    }

    @inline(__always)
    private static func isInRange(_ point: TilePoint) -> Bool {
        point.x >= -maximumCoordinateMagnitude && point.x <= maximumCoordinateMagnitude
            && point.y >= -maximumCoordinateMagnitude && point.y <= maximumCoordinateMagnitude
    }

    private static func encodePoints(_ geometry: TileGeometry, into writer: inout ProtobufWriter) -> Bool {
        guard let count = usedPointCount(geometry), count > 0, count <= GeometryCommand.maximumCount else {
            return false
        }
        let points = geometry.points
        for index in 0..<count where !isInRange(points[index]) { return false }
        writer.writeVarint(GeometryCommand.moveTo.integer(count: count))
        var cursor = TilePoint(x: 0, y: 0)
        for index in 0..<count {
            writeDelta(from: &cursor, to: points[index], into: &writer)
        }
        return true
    }

    private static func encodeLines(_ geometry: TileGeometry, into writer: inout ProtobufWriter) -> Bool {
        guard usedPointCount(geometry) != nil else { return false }
        let points = geometry.points
        var cursor = TilePoint(x: 0, y: 0)
        var wroteAPart = false
        var start = 0
        for end in geometry.partEnds {
            defer { start = end }
            guard start < end else { continue }
            // First pass: check the range and count the points that survive duplicate removal.
            guard isInRange(points[start]) else { return false }
            var distinct = 1
            for index in (start + 1)..<end {
                let point = points[index]
                guard isInRange(point) else { return false }
                if point != points[index - 1] { distinct += 1 }
            }
            guard distinct >= 2 else { continue }
            guard distinct - 1 <= GeometryCommand.maximumCount else { return false }
            // Second pass: write MoveTo(1), then LineTo(distinct - 1) over the points that differ from their
            // predecessor.
            writer.writeVarint(GeometryCommand.moveTo.integer(count: 1))
            writeDelta(from: &cursor, to: points[start], into: &writer)
            writer.writeVarint(GeometryCommand.lineTo.integer(count: distinct - 1))
            for index in (start + 1)..<end {
                let point = points[index]
                if point != points[index - 1] {
                    writeDelta(from: &cursor, to: point, into: &writer)
                }
            }
            wroteAPart = true
        }
        return wroteAPart
    }

    /// Writes the zigzag-encoded delta from `cursor` to `point` and moves the cursor there. Coordinates are within
    /// ±32767, so deltas fit easily in 32 bits.
    @inline(__always)
    private static func writeDelta(from cursor: inout TilePoint, to point: TilePoint, into writer: inout ProtobufWriter) {
        writer.writeVarint(ProtobufWriter.zigZag(point.x &- cursor.x))
        writer.writeVarint(ProtobufWriter.zigZag(point.y &- cursor.y))
        cursor = point
    }
}
