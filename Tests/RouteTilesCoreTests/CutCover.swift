@testable import RouteTilesTiling
import RouteTiles

/// The cover as the cutter sees it, for checking `RouteTiler.cover`, which decides each tile's feature from its
/// segments without cutting: every tile from the root down, kept where a cut of it gives a feature, its children
/// looked at only then.
package enum CutCover {
    package static func tiles(of tiler: RouteTiler) -> Set<TileID> {
        let options = tiler.options
        var cutter = TileCutter(set: tiler.projected, importance: tiler.importance, options: options,
                                featureProperties: tiler.projected.routeInfos.map { _ in [] }, layerSlots: tiler.layerSlots)
        var out = Set<TileID>()
        var stack = [SubtreeTask(tile: TileID(z: 0, x: 0, y: 0), spans: tiler.rootSpans)]
        while let task = stack.popLast() {
            if task.tile.z >= options.minZoom {
                var layer = VectorLayerBuilder(name: options.layerName, extent: UInt32(options.extent))
                guard cutter.cut(task.tile, spans: task.spans, into: &layer) > 0 else { continue }
                out.insert(task.tile)
            }
            guard task.tile.z < options.maxZoom else { continue }
            let children = SpanFilter.split(task.spans, of: task.tile, options: options, in: tiler.projected)
            for (k, child) in task.tile.children.enumerated() where !children[k].isEmpty {
                stack.append(SubtreeTask(tile: child, spans: children[k].spans))
            }
        }
        return out
    }
}
