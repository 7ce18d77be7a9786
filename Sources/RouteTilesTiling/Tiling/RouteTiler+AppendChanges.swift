@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

/// The tiles an append changed (`RouteTiler.tilesChanged(byAppendingTo:)`).
package struct AppendedTiles: Sendable {
    /// The tiles whose bytes changed, each once.
    package var changed: [TileID]
    /// The tiles the new segments are drawn in, by which the route's cover grows, each once (all in `changed`).
    package var drawn: [TileID]
    /// Where listing the tiles of the new segments would pass `TilingOptions.appendTileLimit`: tiles of the
    /// deepest zoom listed, under which every tile, down to the greatest zoom, counts as changed and drawn.
    /// Usually empty.
    package var subtrees: [TileID] = []
}

extension RouteTiler {
    /// The tiles whose bytes an append changed: this tiler is `old.appending(…)`, extended at the end of its last
    /// line. A tile changes when the new segments are drawn in it, or when a vertex inside it (with the buffer) is
    /// kept at the tile's zoom by one tiler's simplification and dropped by the other's. Only the last block of the
    /// line (`VertexImportance.blockLength` vertices) is simplified again, so only its vertices are compared, and
    /// the answer follows the change, not the length of the route.
    ///
    /// Returns those tiles, and apart the tiles the new segments are drawn in (by which the route's cover grows),
    /// each list without a tile twice, both listed only down to the zoom where they would pass
    /// `options.appendTileLimit` (see `AppendedTiles.subtrees`). Lists, not sets: a few dozen tiles, which the caller adds to sets of its own,
    /// so hashing them here too would double the work of every fix.
    /// With `routeLength` or `lineMetrics`, every feature carries a value of the whole route (`length_m`, or the
    /// clip fractions of it), so every tile of the route changes: the caller adds the route's cover.
    package func tilesChanged(byAppendingTo old: RouteTiler) -> AppendedTiles {
        let line = projected.lineCount - 1
        let oldLast = old.projected.pointCount - 1, newLast = projected.pointCount - 1
        guard line >= 0, oldLast >= 0, newLast > oldLast else { return AppendedTiles(changed: [], drawn: []) }

        let (drawn, subtrees) = drawnTiles(by: spansOfLastLine(from: oldLast), limit: options.appendTileLimit)
        // The tiles of vertices whose fate changed, apart: most fixes have none, and then `changed` is `drawn`.
        var moved: [TileID] = []

        // The vertices of the old last block whose fate at some zoom differs: only a vertex whose importance
        // changed can be kept at one zoom and dropped at another, so the zooms are looked at for those alone.
        let first = ImportanceColumn.lastBlockStart(old.projected)
        let zooms = options.minZoom...options.maxZoom
        withUnsafeTemporaryAllocation(of: Double.self, capacity: zooms.count) { tolerances in
            for (k, z) in zooms.enumerated() { tolerances[k] = options.squaredTolerance(zoom: z) }
            for v in first...oldLast {
                let before = old.importance[v], after = importance[v]
                guard before != after else { continue }
                for (k, z) in zooms.enumerated() {
                    let tolerance = tolerances[k]
                    if tolerance >= 0 && (before > tolerance) != (after > tolerance) { tiles(holding: v, zoom: z, into: &moved) }
                }
            }
        }
        guard !moved.isEmpty else { return AppendedTiles(changed: drawn, drawn: drawn, subtrees: subtrees) }
        var changed: [TileID] = []
        changed.reserveCapacity(drawn.count + moved.count)
        changed += drawn
        // The tiles of changed vertices may repeat each other's and the drawn ones. A fix moves a few: each is
        // looked for in the short list (drawn is already without repeats); many are sorted and kept once.
        if moved.count <= 16 {
            for tile in moved where !changed.contains(tile) { changed.append(tile) }
        } else {
            changed += moved
            Self.keepEachOnce(&changed, from: 0)
        }
        return AppendedTiles(changed: changed, drawn: drawn, subtrees: subtrees)
    }

    /// The segments of the last line from vertex `vertex` on, in every world copy that meets the root tile.
    func spansOfLastLine(from vertex: Int) -> [SegmentSpan] {
        guard projected.lineCount > 0 else { return [] }
        return spans(ofLine: projected.lineCount - 1, from: vertex, through: projected.pointCount - 1)
    }

    /// The tiles in which the segments of `spans` (a few new ones) have a feature, at every zoom of the options:
    /// exactly `cover(of:zooms:)`. At a zoom where every tile whose buffered box meets the segments' box holds that
    /// box whole, those are the tiles: clipping keeps the segments whole in each, and a route that touches a tile is
    /// never simplified away (at worst a stub). At the other zooms each segment is walked through the tiles it
    /// crosses (`SegmentTileWalk`), in time proportional to the tiles found.
    func tilesDrawn(by spans: [SegmentSpan]) -> Set<TileID> { Set(drawnTiles(by: spans).tiles) }

    /// `tilesDrawn(by:)` as a list, each tile once, listed zoom by zoom from the shallowest while the list stays
    /// within `limit` tiles: at the first zoom whose next one would take it past, the tiles of that zoom are also
    /// returned as `subtrees`, and the deeper zooms are not listed. Every tile of a deeper zoom in which the
    /// segments are drawn lies under one of them (a tile's buffered box lies within its parent's), so a caller
    /// that treats each subtree as changed down to the greatest zoom misses no tile. The work is then bounded by
    /// the limit, whatever the segments' length: a fix on the far side of the world at zoom 18 would be drawn in
    /// millions of tiles.
    func drawnTiles(by spans: [SegmentSpan], limit: Int = .max) -> (tiles: [TileID], subtrees: [TileID]) {
        var box = MapRect.empty
        var segments = 0
        projected.xs.withUnsafeBufferPointer { xs in
            projected.ys.withUnsafeBufferPointer { ys in
                for span in spans {
                    let dx = Double(span.shift) * WebMercator.worldSize
                    for i in Int(span.first)...Int(span.end) { box.formUnion(MapPoint(x: xs[i] + dx, y: ys[i])) }
                    segments += Int(span.end - span.first)
                }
            }
        }
        guard !box.isEmpty else { return ([], []) }
        // One to four tiles a zoom, each zoom's own: no tile comes twice. Room for two a zoom, which a fix's
        // segment rarely passes: a buffer small enough for the allocator's per-thread cache.
        var drawn: [TileID] = []
        drawn.reserveCapacity(2 * (options.maxZoom - options.minZoom + 1) + 8)
        for z in options.minZoom...options.maxZoom {
            let zoomStart = drawn.count
            if !appendHoldingTiles(of: box, zoom: z, to: &drawn) {
                walk(spans, zoom: z, into: &drawn)
                if segments > 1 { Self.keepEachOnce(&drawn, from: zoomStart) }
            }
            // The next zoom holds about twice the tiles of this one, a few more at each end of each segment.
            let here = drawn.count - zoomStart
            if z < options.maxZoom, drawn.count + 2 * here + 4 * segments > limit {
                return (drawn, Array(drawn[zoomStart...]))
            }
        }
        return (drawn, [])
    }

    /// At a zoom where the tiles whose buffered box meets `box` each hold it whole, appends them and returns true;
    /// false, appending nothing, where a buffered box's edge crosses `box` and the segments must be walked.
    private func appendHoldingTiles(of box: MapRect, zoom z: Int, to drawn: inout [TileID]) -> Bool {
        let size = WebMercator.tileSize(zoom: z)
        let margin = Double(options.buffer) / Double(options.extent) * size
        let count = 1 << z
        // Per axis, the tiles whose buffered span [k·size − margin, (k+1)·size + margin] meets [low, high], when
        // each holds it whole (strictly inside: a box on an edge is walked), within the world.
        func holding(_ low: Double, _ high: Double) -> ClosedRange<Int>? {
            let first = Int(((low - margin) / size - 1).rounded(.up)), last = Int(((high + margin) / size).rounded(.down))
            guard first >= 0, last < count, first <= last else { return nil }
            for k in [first, last] where !(Double(k) * size - margin < low && high < Double(k + 1) * size + margin) {
                return nil
            }
            return first...last
        }
        // At most two tiles a side: a box held whole by a tile's buffered span cannot reach past its neighbour.
        guard let columns = holding(box.minX, box.maxX), let rows = holding(box.minY, box.maxY) else { return false }
        for x in columns { for y in rows { drawn.append(TileID(z: z, x: x, y: y)) } }
        return true
    }

    /// Sorts `tiles[start...]` and keeps each tile of it once.
    static func keepEachOnce(_ tiles: inout [TileID], from start: Int) {
        guard tiles.count - start > 1 else { return }
        tiles[start...].sort()
        var kept = start + 1
        for i in (start + 1)..<tiles.count where tiles[i] != tiles[kept - 1] {
            tiles[kept] = tiles[i]
            kept += 1
        }
        tiles.removeLast(tiles.count - kept)
    }

    /// Adds the tiles at `zoom` whose buffered box holds vertex `v`, in each world copy.
    private func tiles(holding v: Int, zoom: Int, into out: inout [TileID]) {
        let size = WebMercator.tileSize(zoom: zoom)
        let buffer = Double(options.buffer) / Double(options.extent) * size
        let count = 1 << zoom
        // Tile k's buffered box is [k·size − buffer, (k+1)·size + buffer]: k runs from ⌈(p − buffer)/size − 1⌉ to
        // ⌊(p + buffer)/size⌋.
        func range(_ p: Double) -> (Int, Int) {
            (max(0, Int(((p - buffer) / size - 1).rounded(.up))), min(count - 1, Int(((p + buffer) / size).rounded(.down))))
        }
        let (top, bottom) = range(projected.ys[v])
        guard top <= bottom else { return }
        for shift in [-1.0, 0, 1] {
            let (left, right) = range(projected.xs[v] + shift * WebMercator.worldSize)
            guard left <= right else { continue }
            for column in left...right {
                for row in top...bottom { out.append(TileID(z: zoom, x: column, y: row)) }
            }
        }
    }
}
