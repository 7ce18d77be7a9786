@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

/// The tiles of one zoom in which a line segment is drawn: those whose buffered box the segment meets, which are
/// exactly the tiles where the cutter gives the line a feature (it keeps any clipped piece, at worst as a two-point
/// stub), decided by the cutter's own clip (`TileCutter.clip`) against the box the cutter uses.
///
/// Walked column by column: in each column the rows the segment's piece can reach, one row more on each side for
/// rounding, each tested. The work is proportional to the tiles found (plus a few per column), whatever the
/// segment's length: a fix thousands of kilometres from the last costs the tiles it is drawn in, not a cut of each.
enum SegmentTileWalk {
    /// Appends to `out` the tiles of `zoom`, within the world, whose buffered box the segment a→b meets; each once.
    static func tiles(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, zoom: Int, extent: Int, buffer: Int,
                      into out: inout [TileID]) {
        let size = WebMercator.tileSize(zoom: zoom)
        let pad = size * Double(buffer) / Double(extent)
        let count = 1 << zoom
        let lowX = min(ax, bx), highX = max(ax, bx)
        let first = max(0, Int(((lowX - pad) / size).rounded(.down)) - 1)
        let last = min(count - 1, Int(((highX + pad) / size).rounded(.down)) + 1)
        guard first <= last else { return }
        let dx = bx - ax, dy = by - ay
        for column in first...last {
            // The part of the segment within the column's buffered x range, and the rows it can reach.
            let left = max(lowX, Double(column) * size - pad), right = min(highX, Double(column + 1) * size + pad)
            guard left <= right else { continue }
            var top = min(ay, by), bottom = max(ay, by)
            if dx != 0 {
                let y0 = ay + dy * ((left - ax) / dx), y1 = ay + dy * ((right - ax) / dx)
                top = max(top, min(y0, y1))
                bottom = min(bottom, max(y0, y1))
            }
            let firstRow = max(0, Int(((top - pad) / size).rounded(.down)) - 1)
            let lastRow = min(count - 1, Int(((bottom + pad) / size).rounded(.down)) + 1)
            guard firstRow <= lastRow else { continue }
            for row in firstRow...lastRow {
                let tile = TileID(z: zoom, x: column, y: row)
                if TileCutter.clip(ax, ay, bx, by, to: WebMercator.bounds(of: tile, extent: extent, buffer: buffer)) != nil {
                    out.append(tile)
                }
            }
        }
    }
}

extension RouteTiler {
    /// Appends the tiles of zoom `z` in which each segment of `spans` is drawn (a tile may come once a segment).
    func walk(_ spans: [SegmentSpan], zoom z: Int, into drawn: inout [TileID]) {
        projected.xs.withUnsafeBufferPointer { xs in
            projected.ys.withUnsafeBufferPointer { ys in
                for span in spans {
                    let dx = Double(span.shift) * WebMercator.worldSize
                    for i in Int(span.first)..<Int(span.end) {
                        SegmentTileWalk.tiles(xs[i] + dx, ys[i], xs[i + 1] + dx, ys[i + 1], zoom: z,
                                              extent: options.extent, buffer: options.buffer, into: &drawn)
                    }
                }
            }
        }
    }
}
