import RouteTilesModel

extension RouteTiler {
    /// The exact set of tiles a build writes (every tile from `minZoom` to `maxZoom` of the options in which a
    /// route has a feature, with the buffer), found the way the builder finds them, top-down through the spans of
    /// each tile, and cut but neither encoded as MVT nor compressed. `zooms` narrows the zooms returned.
    public func cover(zooms: ClosedRange<Int>? = nil) -> Set<TileID> {
        cover(of: rootSpans, zooms: zooms ?? options.minZoom...options.maxZoom)
    }

    /// A cutter that writes no properties, for finding whether a tile has a feature, which depends on its geometry
    /// alone.
    func makeGeometryCutter() -> TileCutter {
        TileCutter(set: projected, importance: importance, options: options,
                   featureProperties: featureProperties.map { _ in [] }, layerSlots: layerSlots)
    }

    /// The tiles in which the segments of `spans` (world-copy spans that meet the root tile) have a feature.
    ///
    /// A tile the spans are cut in without a feature is not descended into: the spans reach a tile's children
    /// because their bounding boxes meet it, but a cut without a feature means no segment meets its buffered box
    /// (a route that touches a tile always has a feature there), and its children's boxes lie within it. Without
    /// that, one long diagonal segment (a fix thousands of kilometres from the last, as a client may send) had
    /// every tile of its bounding box cut, at every zoom: hours, with the live set's lock held.
    func cover(of spans: [SegmentSpan], zooms wanted: ClosedRange<Int>) -> Set<TileID> {
        let deepest = min(options.maxZoom, wanted.upperBound)
        var out = Set<TileID>()
        guard !spans.isEmpty, wanted.lowerBound <= deepest else { return out }
        // One layer takes the features of many tiles, made anew only now and then to bound its size.
        var cutter = makeGeometryCutter()
        var layer = VectorLayerBuilder(name: options.layerName, extent: UInt32(options.extent))
        var stack = [SubtreeTask(tile: TileID(z: 0, x: 0, y: 0), spans: spans)]
        while let task = stack.popLast() {
            let tile = task.tile
            if tile.z >= options.minZoom && wanted.contains(tile.z) {
                if layer.featureCount >= 256 { layer = VectorLayerBuilder(name: options.layerName, extent: UInt32(options.extent)) }
                guard cutter.cut(tile, spans: task.spans, into: &layer) > 0 else { continue }
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
}
