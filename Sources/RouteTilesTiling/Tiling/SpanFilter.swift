@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

/// Culling: picks the segments of a set of spans whose bounding box meets a map rectangle.
///
/// The predicate is exact and monotone: a child tile's buffered rectangle lies inside its parent's, so the
/// segments a child gets from its parent's spans are exactly those it would get from the whole route set. The
/// top-down pyramid and the on-demand index therefore hand the cutter the very same spans for a tile.
package enum SpanFilter {
    /// The rectangles of the four children of a tile, in `TileID.children` order.
    static func childBounds(of tile: TileID, extent: Int, buffer: Int) -> [MapRect] {
        tile.children.map { WebMercator.bounds(of: $0, extent: extent, buffer: buffer) }
    }

    /// Appends to `out` the segments of `spans` whose bounding box meets `box`.
    static func select<S: Sequence<SegmentSpan>>(_ spans: S, meeting box: MapRect, in set: ProjectedRouteSet, into out: inout SpanList) {
        forEachSegment(of: spans, in: set) { span, segment, ax, ay, bx, by in
            if min(ax, bx) <= box.maxX && max(ax, bx) >= box.minX && min(ay, by) <= box.maxY && max(ay, by) >= box.minY {
                out.add(line: span.line, shift: span.shift, segment: segment)
            }
        }
    }

    /// Splits a tile's spans among its four children in one pass.
    package static func split(_ spans: [SegmentSpan], of tile: TileID, options: TilingOptions,
                      in set: ProjectedRouteSet) -> [SpanList] {
        let boxes = childBounds(of: tile, extent: options.extent, buffer: options.buffer)
        var out = [SpanList](repeating: SpanList(), count: 4)
        // Children 0 and 1 share the upper row, 0 and 2 the left column.
        let leftMaxX = boxes[0].maxX, leftMinX = boxes[0].minX, rightMinX = boxes[1].minX, rightMaxX = boxes[1].maxX
        let topMinY = boxes[0].minY, topMaxY = boxes[0].maxY, bottomMinY = boxes[2].minY, bottomMaxY = boxes[2].maxY
        forEachSegment(of: spans, in: set) { span, segment, ax, ay, bx, by in
            let lo = min(ax, bx), hi = max(ax, bx), top = min(ay, by), bottom = max(ay, by)
            let left = lo <= leftMaxX && hi >= leftMinX
            let right = lo <= rightMaxX && hi >= rightMinX
            let upper = top <= topMaxY && bottom >= topMinY
            let lower = top <= bottomMaxY && bottom >= bottomMinY
            if upper {
                if left { out[0].add(line: span.line, shift: span.shift, segment: segment) }
                if right { out[1].add(line: span.line, shift: span.shift, segment: segment) }
            }
            if lower {
                if left { out[2].add(line: span.line, shift: span.shift, segment: segment) }
                if right { out[3].add(line: span.line, shift: span.shift, segment: segment) }
            }
        }
        return out
    }

    /// Calls `body` with every segment of `spans`: its span, its index in the set's columns, and its ends with the
    /// span's world shift added to the points (never taken from a box), so that `select` and `split` decide every
    /// segment alike.
    @inline(__always)
    private static func forEachSegment<S: Sequence<SegmentSpan>>(
        of spans: S, in set: ProjectedRouteSet,
        _ body: (_ span: SegmentSpan, _ segment: Int32, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Void
    ) {
        set.xs.withUnsafeBufferPointer { xs in
            set.ys.withUnsafeBufferPointer { ys in
                for span in spans {
                    let dx = Double(span.shift) * WebMercator.worldSize
                    var i = Int(span.first)
                    let end = Int(span.end)
                    while i < end {
                        body(span, Int32(i), xs[i] + dx, ys[i], xs[i + 1] + dx, ys[i + 1])
                        i += 1
                    }
                }
            }
        }
    }
}
