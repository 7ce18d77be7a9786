/// Tilers of one route each, answering tiles together: the same bytes as one `RouteTiler` over all their routes
/// in the same order, but a change to one route rebuilds only that route's tiler.
///
/// A packed R-tree over the tilers' extents finds the routes a tile may hold, so a tile's cost still follows what
/// lies in it; building the set costs the number of routes, not their points.
struct RouteTilerSet: Sendable {
    let options: TilingOptions
    let tilers: [RouteTiler]
    private let tree: PackedBoxTree
    /// The layers of all tilers, in order of first appearance, the options' layer first (as one tiler over all the
    /// routes names them).
    let layerNames: [String]
    /// Per tiler, the index in `layerNames` of each of its own layers.
    private let layerMaps: [[Int]]

    init(_ tilers: [RouteTiler], options: TilingOptions) {
        self.options = options
        self.tilers = tilers
        tree = PackedBoxTree(tilers.map(\.extent))
        var names = [options.layerName]
        layerMaps = tilers.map { tiler in
            tiler.layerNames.map { name in
                if let known = names.firstIndex(of: name) { return known }
                names.append(name)
                return names.count - 1
            }
        }
        layerNames = names
    }

    var routeCount: Int { tilers.reduce(0) { $0 + $1.projected.routeInfos.count } }
    var pointCount: Int { tilers.reduce(0) { $0 + $1.projected.pointCount } }

    /// The uncompressed MVT of one tile, or nil when no route has a feature in it.
    ///
    /// - Throws: `TileAddressError` when z/x/y names no tile.
    func tile(z: Int, x: Int, y: Int) throws(TileAddressError) -> [UInt8]? {
        let id = TileID(z: z, x: x, y: y)
        guard id.isValid else { throw TileAddressError(tile: id) }
        let box = WebMercator.bounds(of: id, extent: options.extent, buffer: options.buffer)
        var layers = layerNames.map { VectorLayerBuilder(name: $0, extent: UInt32(options.extent)) }
        var added = 0
        for i in tree.search(box) {
            let tiler = tilers[i]
            let spans = tiler.spans(for: id)
            guard !spans.isEmpty else { continue }
            var cutter = tiler.makeCutter()
            let map = layerMaps[i]
            if let only = tiler.onlyLayerSlot {
                // One layer: cut straight into the shared builder.
                added += cutter.cut(id, spans: spans, into: &layers[map[only]])
            } else {
                // Several: lend the tiler the shared builders in its own order, then take them back.
                var own = map.map { layers[$0] }
                for slot in map { layers[slot] = VectorLayerBuilder(name: "", extent: 0) }
                added += cutter.cut(id, spans: spans, into: &own)
                for (k, slot) in map.enumerated() { layers[slot] = own[k] }
            }
        }
        guard added > 0 else { return nil }
        return VectorTileBuilder.encode(layers)
    }

    /// The metadata of the tiles of all the routes.
    func metadata(name: String) -> TilesetMetadata {
        TilesetMetadata(name: name, options: options, routeSets: tilers.map(\.projected))
    }
}
