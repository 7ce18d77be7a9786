@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

extension RouteTiler {
    /// What a trim changed, when this tiler is `old`'s one line without some of its leading vertices, the same
    /// vertices at the same map points after them, with the same features' properties (neither `length_m` nor line
    /// metrics, which are values of the whole line), and with its simplification blocks where they were: its
    /// `Route.trimmed` grown by the number of vertices cut, modulo `VertexImportance.blockLength` (a track trimmed by
    /// `TrackRetention`, by count or by time). Nil otherwise, and the caller treats the new route as any other.
    ///
    /// A vertex's importance depends on its block alone, and the blocks after the one the cut falls in are the same
    /// vertices as before; so a tile changes only if a dropped segment, or a segment of that block, had a feature in
    /// it. Returns those tiles (`changed`), and among them the ones this tiler has no feature in (`left`: they leave
    /// the route's cover). The work follows the dropped segments and that block, plus one pass over the kept
    /// vertices to compare them.
    package func tilesChanged(byTrimming old: RouteTiler) -> (changed: [TileID], left: [TileID])? {
        guard projected.lineCount == 1, old.projected.lineCount == 1, projected.routeInfos.count == 1,
              old.projected.routeInfos.count == 1, !options.routeLength, !options.lineMetrics,
              options == old.options, featureProperties == old.featureProperties, layerNames == old.layerNames,
              layerSlots == old.layerSlots, projected.routeInfos[0].featureID == old.projected.routeInfos[0].featureID,
              projected.routeInfos[0].layer == old.projected.routeInfos[0].layer
        else { return nil }
        let count = projected.pointCount, cut = old.projected.pointCount - count
        let length = VertexImportance.blockLength
        let phase = old.projected.routeInfos[0].trimmed % length
        guard count >= 2, cut > 0, (phase + cut) % length == projected.routeInfos[0].trimmed % length
        else { return nil }
        let same = projected.xs.withUnsafeBufferPointer { xs in
            projected.ys.withUnsafeBufferPointer { ys in
                old.projected.xs.withUnsafeBufferPointer { oldXs in
                    old.projected.ys.withUnsafeBufferPointer { oldYs in
                        for i in 0..<count where xs[i] != oldXs[cut + i] || ys[i] != oldYs[cut + i] { return false }
                        return true
                    }
                }
            }
        }
        guard same else { return nil }
        // The old block the cut falls in ends at the first block boundary at or after the cut: its kept vertices
        // are now a partial first block, simplified afresh.
        let blockEnd = min((phase + cut + length - 1) / length * length - phase, old.projected.pointCount - 1)
        let changed = old.drawnTiles(by: old.spans(ofLine: 0, from: 0, through: blockEnd)).tiles
        let kept = projected.bounds
        var left: [TileID] = []
        for tile in changed {
            let box = WebMercator.bounds(of: tile, extent: options.extent, buffer: options.buffer)
            // A line wholly inside a tile's buffered box has a feature there; otherwise its segments are looked at.
            if box.minX < kept.minX && kept.maxX < box.maxX && box.minY < kept.minY && kept.maxY < box.maxY { continue }
            let spans = spans(for: tile)
            if spans.isEmpty || !hasFeature(in: tile, spans: spans) { left.append(tile) }
        }
        return (changed, left)
    }
}
