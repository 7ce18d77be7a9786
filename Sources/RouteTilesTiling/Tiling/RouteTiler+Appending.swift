@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

extension RouteTiler {
    /// The tiler with `points` added to the end of the last line of its last route: the same tiles, byte for byte,
    /// as a tiler built from scratch over the longer route. `previous` is that line's last position as read.
    /// Nil when the tiler holds no line.
    ///
    /// The work follows the new points: they are projected and filtered alone; simplification recomputes only the
    /// last piece of the line's open block, or the whole block when the append completes it (`VertexImportance`);
    /// the index keeps the boxes of every unchanged run. What
    /// grows with the route is copying: the point arrays, and the index's boxes (one per 32 segments) and tree.
    /// `times` are the points' times in seconds since 1970, for a route with times (see
    /// `ProjectedRouteSet.appending(_:times:after:)`).
    package func appending(_ points: [Coordinate], times: [Double]? = nil, after previous: Coordinate) -> RouteTiler? {
        guard !points.isEmpty else { return self }
        guard let set = projected.appending(points, times: times, after: previous) else { return nil }
        let line = set.lineCount - 1
        let oldCount = projected.pointCount, oldLast = oldCount - 1, newLast = set.pointCount - 1

        let importance = self.importance.appending(for: set, floor: Self.importanceFloor(options))

        // Root spans: the earlier lines' as they were; for the last line, per world copy, its old spans and then
        // those of the new segments. The new piece (from the old last vertex on) is contiguous with the old line,
        // so a world copy the whole line newly reaches is one the new piece reaches: only its segments can meet it.
        let root = WebMercator.bounds(of: TileID(z: 0, x: 0, y: 0), extent: options.extent, buffer: options.buffer)
        var minX = Double.infinity, maxX = -Double.infinity
        for v in oldLast...newLast {
            minX = min(minX, set.xs[v])
            maxX = max(maxX, set.xs[v])
        }
        let newCopies = Self.worldCopies(minX: minX, maxX: maxX, root: root)
        var spans = SpanList()
        // The new segments alone, for the index: each follows every indexed segment of its world copy.
        var added = SpanList()
        for span in rootSpans where span.line != Int32(line) { spans.add(span) }
        for shift in [Int32(-1), 0, 1] {
            for span in rootSpans where span.line == Int32(line) && span.shift == shift { spans.add(span) }
            if newCopies.contains(shift) {
                let piece = [SegmentSpan(line: Int32(line), shift: shift, first: Int32(oldLast), end: Int32(newLast))]
                var selected = SpanList()
                SpanFilter.select(piece, meeting: root, in: set, into: &selected)
                for span in selected.spans {
                    spans.add(span)
                    added.add(span)
                }
            }
        }
        let index = self.index.appending(added.spans, set: set)

        // A feature's properties change with an append only through `length_m`; without it they are the route's own.
        var featureProperties = self.featureProperties
        if options.routeLength, let info = set.routeInfos.last {
            featureProperties[featureProperties.count - 1] = Self.featureProperties(info, options: options)
        }
        return RouteTiler(options: options, projected: set, importance: importance, rootSpans: spans.spans,
                          index: index, featureProperties: featureProperties)
    }
}
