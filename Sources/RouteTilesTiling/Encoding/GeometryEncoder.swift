import RouteTilesModel

/// Writes the packed command stream of MVT 2.1 §4.3 for a feature's geometry, without any field key or length.
///
/// - Lines: each part loses its consecutive duplicate points (a zero-length `LineTo` is invalid); a part left with
///   fewer than two points is skipped. A written part is `MoveTo(1)` then `LineTo(n - 1)`.
/// - Points: every point goes into one `MoveTo` whose count is the number of points (a MultiPoint when above 1).
///
/// Parameters are zigzag-encoded deltas from a cursor that starts at (0, 0) for each feature and carries across parts,
/// so the `MoveTo` of a part is relative to the last point of the previous written part.
package enum GeometryEncoder {
    /// Coordinates beyond this magnitude are refused: renderers keep tile coordinates in 16-bit signed integers.
    static let maximumCoordinateMagnitude: Int32 = 32767

    /// The most bytes one command or parameter integer takes as a varint.
    private static let maximumVarintSize = 5

    /// Writes the command stream for `geometry` at the start of `buffer`, growing it when needed, and returns the
    /// number of bytes written. Returns nil when the geometry is malformed (part ends out of order or past the
    /// points), has a coordinate out of range, or has no part to write.
    ///
    /// `buffer` is scratch space kept by the caller: it only grows, so that encoding allocates nothing once it is
    /// large enough; bytes past the returned count are garbage.
    package static func encode(_ geometry: TileGeometry, into buffer: inout [UInt8]) -> Int? {
        guard let pointCount = usedPointCount(geometry) else { return nil }
        // Worst case: two command integers per part and two parameters per point.
        let maximumSize = (2 * geometry.partEnds.count + 2 * pointCount) * maximumVarintSize
        if buffer.count < maximumSize {
            buffer.append(contentsOf: repeatElement(0, count: max(maximumSize, 2 * buffer.count) - buffer.count))
        }
        return geometry.points.withUnsafeBufferPointer { points in
            buffer.withUnsafeMutableBufferPointer { bytes in
                var sink = VarintBufferWriter(buffer: UnsafeMutableBufferPointer(rebasing: bytes[0..<maximumSize]))
                let count: Int?
                switch geometry.kind {
                case .point: count = encodePoints(points, count: pointCount, into: &sink)
                case .lineString: count = encodeLines(points, partEnds: geometry.partEnds, into: &sink)
                }
                return sink.overflowed ? nil : count
            }
        }
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

    @inline(__always)
    private static func isSame(_ a: TilePoint, _ b: TilePoint) -> Bool {
        a.x == b.x && a.y == b.y
    }

    /// Returns the number of bytes written, or nil to refuse the geometry.
    private static func encodePoints(_ points: UnsafeBufferPointer<TilePoint>, count: Int,
                                     into sink: inout VarintBufferWriter) -> Int? {
        guard count > 0, count <= GeometryCommand.maximumCount else { return nil }
        for index in 0..<count where !isInRange(points[index]) { return nil }
        sink.writeVarint(GeometryCommand.moveTo.integer(count: count))
        var cursor = TilePoint(x: 0, y: 0)
        for index in 0..<count {
            writeDelta(from: &cursor, to: points[index], into: &sink)
        }
        return sink.count
    }

    /// Returns the number of bytes written, or nil to refuse the geometry.
    private static func encodeLines(_ points: UnsafeBufferPointer<TilePoint>, partEnds: [Int],
                                    into sink: inout VarintBufferWriter) -> Int? {
        var cursor = TilePoint(x: 0, y: 0)
        var start = 0
        for end in partEnds {
            defer { start = end }
            guard start < end else { continue }
            // First pass: check the range and count the points that survive duplicate removal.
            guard isInRange(points[start]) else { return nil }
            var distinct = 1
            for index in (start + 1)..<end {
                let point = points[index]
                guard isInRange(point) else { return nil }
                if !isSame(point, points[index - 1]) { distinct += 1 }
            }
            guard distinct >= 2 else { continue }
            guard distinct - 1 <= GeometryCommand.maximumCount else { return nil }
            // Second pass: MoveTo(1), then LineTo(distinct - 1) over the points that differ from their predecessor.
            sink.writeVarint(GeometryCommand.moveTo.integer(count: 1))
            writeDelta(from: &cursor, to: points[start], into: &sink)
            sink.writeVarint(GeometryCommand.lineTo.integer(count: distinct - 1))
            for index in (start + 1)..<end {
                let point = points[index]
                if !isSame(point, points[index - 1]) {
                    writeDelta(from: &cursor, to: point, into: &sink)
                }
            }
        }
        return sink.count > 0 ? sink.count : nil
    }

    /// Writes the zigzag-encoded delta from `cursor` to `point` and moves the cursor there. Coordinates are within
    /// ±32767, so deltas fit easily in 32 bits.
    @inline(__always)
    private static func writeDelta(from cursor: inout TilePoint, to point: TilePoint,
                                   into sink: inout VarintBufferWriter) {
        sink.writeVarint(ProtobufWriter.zigZag(point.x &- cursor.x))
        sink.writeVarint(ProtobufWriter.zigZag(point.y &- cursor.y))
        cursor = point
    }
}
