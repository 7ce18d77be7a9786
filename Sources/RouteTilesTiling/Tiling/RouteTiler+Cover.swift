@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

extension RouteTiler {
    /// The exact set of tiles a build writes (every tile from `minZoom` to `maxZoom` of the options in which a
    /// route has a feature, with the buffer), found the way the builder finds them, top-down through the spans of
    /// each tile, each tile's feature decided from its segments as the cutter decides it, without cutting
    /// (`hasFeature(in:spans:)`). `zooms` narrows the zooms returned.
    public func cover(zooms: ClosedRange<Int>? = nil) -> Set<TileID> {
        cover(of: rootSpans, zooms: zooms ?? options.minZoom...options.maxZoom)
    }

    /// The tiles in which the segments of `spans` (world-copy spans that meet the root tile) have a feature.
    ///
    /// Top-down: a tile is kept when a route has a feature in it (`hasFeature(in:spans:)`), and only then are its
    /// children looked at. The spans reach a tile's children because their bounding boxes meet it, but a tile
    /// without a feature means no segment meets its buffered box, and its children's boxes lie within it. Without
    /// that, one long diagonal segment (a fix thousands of kilometres from the last, as a client may send) had every
    /// tile of its bounding box looked at, at every zoom.
    func cover(of spans: [SegmentSpan], zooms wanted: ClosedRange<Int>) -> Set<TileID> {
        let deepest = min(options.maxZoom, wanted.upperBound)
        var out = Set<TileID>()
        guard !spans.isEmpty, wanted.lowerBound <= deepest else { return out }
        if let walked = walkedCover(of: spans, zooms: max(wanted.lowerBound, options.minZoom)...deepest) { return walked }
        var stack = [SubtreeTask(tile: TileID(z: 0, x: 0, y: 0), spans: spans)]
        while let task = stack.popLast() {
            let tile = task.tile
            if tile.z >= options.minZoom && wanted.contains(tile.z) {
                guard hasFeature(in: tile, spans: task.spans) else { continue }
                out.insert(tile)
            }
            guard tile.z < deepest else { continue }
            let children = SpanFilter.split(task.spans, of: tile, options: options, in: projected)
            let childTiles = tile.children
            for k in 0..<4 where !children[k].isEmpty {
                stack.append(SubtreeTask(tile: childTiles[k], spans: children[k].spans))
            }
        }
        return out
    }

    /// The cover of a few line segments (a directions route, a flight, a fix far from the last), each walked through
    /// the tiles it crosses (`SegmentTileWalk`): the same tiles as the top-down pass, without splitting spans at
    /// every tile on the way. Nil for many segments (a track, whose segments share their tiles: the top-down pass
    /// looks at each tile once) or for sets of points.
    private func walkedCover(of spans: [SegmentSpan], zooms: ClosedRange<Int>) -> Set<TileID>? {
        var segments = 0
        for span in spans {
            if projected.routeInfos[Int(projected.lineRoute[Int(span.line)])].isPoint { return nil }
            segments += Int(span.end - span.first)
            if segments > Self.walkedSegments { return nil }
        }
        guard zooms.lowerBound <= zooms.upperBound else { return [] }
        var tiles: [TileID] = []
        for z in zooms { walk(spans, zoom: z, into: &tiles) }
        return Set(tiles)
    }

    /// The most segments `walkedCover` walks.
    static let walkedSegments = 64

    /// Whether a route of `spans` has a feature in `tile`, decided as the cutter decides it but without cutting:
    /// a line has one where a segment meets the buffered box (`TileCutter.clip`; a piece too short for two tile
    /// units is kept as a stub), a set of points where one of its points lies in the box. Stops at the first.
    func hasFeature(in tile: TileID, spans: [SegmentSpan]) -> Bool {
        let box = WebMercator.bounds(of: tile, extent: options.extent, buffer: options.buffer)
        return projected.xs.withUnsafeBufferPointer { xs in
            projected.ys.withUnsafeBufferPointer { ys in
                for span in spans {
                    let dx = Double(span.shift) * WebMercator.worldSize
                    let isPoint = projected.routeInfos[Int(projected.lineRoute[Int(span.line)])].isPoint
                    for i in Int(span.first)..<Int(span.end) {
                        let ax = xs[i] + dx, ay = ys[i], bx = xs[i + 1] + dx, by = ys[i + 1]
                        if isPoint {
                            // A point route's points are its zero-length segments; the others join nothing.
                            if ax == bx && ay == by && ax >= box.minX && ax <= box.maxX && ay >= box.minY && ay <= box.maxY {
                                return true
                            }
                        } else if TileCutter.clip(ax, ay, bx, by, to: box) != nil {
                            return true
                        }
                    }
                }
                return false
            }
        }
    }
}
