import RouteTilesBuild
import RouteTilesGeo
import RouteTilesModel
import RouteTilesTiling

/// Tilers of one route each, answering tiles together: the same bytes as one `RouteTiler` over all their routes
/// in the same order, but a change to one route rebuilds only that route's tiler and the chunk that holds it.
///
/// The tilers sit in chunks of at most `TilerChunk.capacity`, in feature order; each chunk has a packed R-tree over
/// its tilers' extents, and the set has one over the chunks' extents. A tile's cost still follows what lies in it,
/// and the next set after a change costs the chunks it touched plus the number of chunks, not the number of routes:
/// a live server with 50,000 routes rebuilds 256 boxes and a tree of 200, not a tree of 50,000, per write.
package struct RouteTilerSet: Sendable {
    let options: TilingOptions
    let chunks: [TilerChunk]
    private let tree: PackedBoxTree
    /// The layers of all tilers, in order of first appearance, the options' layer first (as one tiler over all the
    /// routes names them).
    let layerNames: [String]
    /// Per chunk, the index in `layerNames` of each of the chunk's layers.
    private let chunkLayerMaps: [[Int]]

    /// The set of `tilers`, in chunks.
    init(_ tilers: [RouteTiler], options: TilingOptions) {
        let size = TilerChunk.capacity
        let chunks = stride(from: 0, to: tilers.count, by: size).map { start in
            TilerChunk(Array(tilers[start..<min(start + size, tilers.count)]), options: options)
        }
        self.init(chunks: chunks, options: options)
    }

    /// The set of the tilers of `chunks`, in order: costs the number of chunks and their layers. With `previous`,
    /// the set these chunks replace one for one (the same number, some of them rebuilt, as a round of appends
    /// leaves them), the layer maps are shared when no chunk's layers changed, and the tree over the chunks is
    /// refitted where their extents moved: the next set then costs a comparison per chunk.
    init(chunks: [TilerChunk], options: TilingOptions, previous: RouteTilerSet? = nil) {
        if let previous, previous.chunks.count == chunks.count, previous.options == options,
           zip(previous.chunks, chunks).allSatisfy({ $0 === $1 || $0.layerNames == $1.layerNames }) {
            self.options = options
            self.chunks = chunks
            let moved = chunks.indices.filter { chunks[$0] !== previous.chunks[$0] && chunks[$0].extent != previous.chunks[$0].extent }
            tree = previous.tree.refitting(moved) { chunks[$0].extent }
            layerNames = previous.layerNames
            chunkLayerMaps = previous.chunkLayerMaps
            return
        }
        self.options = options
        self.chunks = chunks
        tree = PackedBoxTree(chunks.map(\.extent))
        var names = [options.layerName]
        chunkLayerMaps = chunks.map { chunk in
            chunk.layerNames.map { name in
                if let known = names.firstIndex(of: name) { return known }
                names.append(name)
                return names.count - 1
            }
        }
        layerNames = names
    }

    /// Every tiler, in feature order.
    var tilers: [RouteTiler] { chunks.flatMap(\.tilers) }

    var routeCount: Int { chunks.reduce(0) { $0 + $1.tilers.reduce(0) { $0 + $1.projected.routeInfos.count } } }
    var pointCount: Int { chunks.reduce(0) { $0 + $1.tilers.reduce(0) { $0 + $1.projected.pointCount } } }

    /// The uncompressed MVT of one tile, or nil when no route has a feature in it. With `window`, the tile of that
    /// span of time (`RouteTiler.tile(z:x:y:window:)`), without the position layer. With `groups`, the tile of the
    /// routes of those groups alone (`RouteGroup`): the features a set of their tilers alone would cut, the others'
    /// features and positions absent (layers without features are left out, as always).
    ///
    /// - Throws: `TileAddressError` when z/x/y names no tile.
    func tile(z: Int, x: Int, y: Int, window: TimeWindow? = nil,
              groups: GroupScope? = nil) throws(TileAddressError) -> [UInt8]? {
        let id = TileID(z: z, x: x, y: y)
        guard id.isValid else { throw TileAddressError(tile: id) }
        return tile(TileFrame(tile: id, options: options), window: window, groups: groups)
    }

    /// The uncompressed MVT of WorldCRS84Quad tile `tile`, as `tile(z:x:y:window:groups:)` gives a Web Mercator
    /// one; nil when no route has a feature in it or `tile` names no tile (`CRS84TileID.isValid`).
    func tile(_ tile: CRS84TileID, window: TimeWindow? = nil, groups: GroupScope? = nil) -> [UInt8]? {
        guard tile.isValid else { return nil }
        return self.tile(TileFrame(tile: tile, options: options), window: window, groups: groups)
    }

    /// The tile `frame` frames, cut from the tilers whose routes meet its box.
    private func tile(_ frame: TileFrame, window: TimeWindow?, groups: GroupScope?) -> [UInt8]? {
        let box = frame.box
        var layers = layerNames.map { VectorLayerBuilder(name: $0, extent: UInt32(options.extent)) }
        var added = 0
        var density = window == nil && options.hasDensity(zoom: frame.detailZoom) && !layerNames.contains(DensityGrid.layerName)
            ? DensityGrid(extent: options.extent) : nil
        for c in tree.search(box) {
            let chunk = chunks[c]
            let global = chunkLayerMaps[c]
            for i in chunk.search(box) where groups?.contains(chunk.groups[i]) ?? true {
                let tiler = chunk.tilers[i]
                let spans = tiler.spans(meeting: box)
                guard !spans.isEmpty else { continue }
                density?.add(spans, of: tiler.projected, frame: frame)
                var cutter = tiler.makeCutter()
                cutter.window = window
                let local = chunk.layerMaps[i]
                if let only = tiler.onlyLayerSlot {
                    // One layer: cut straight into the shared builder.
                    added += cutter.cut(frame, spans: spans, into: &layers[global[local[only]]])
                } else {
                    // Several: lend the tiler the shared builders in its own order, then take them back.
                    let map = local.map { global[$0] }
                    var own = map.map { layers[$0] }
                    for slot in map { layers[slot] = VectorLayerBuilder(name: "", extent: 0) }
                    added += cutter.cut(frame, spans: spans, into: &own)
                    for (k, slot) in map.enumerated() { layers[slot] = own[k] }
                }
            }
        }
        if let density, !density.isEmpty, added > 0 { layers.append(density.layer()) }
        if let name = options.positionLayer, window == nil {
            // Its own layer, last; or, should routes name a layer so, that layer (layer names stay distinct).
            let slot = layerNames.firstIndex(of: name) ?? layers.count
            if slot == layers.count { layers.append(VectorLayerBuilder(name: name, extent: UInt32(options.extent))) }
            var scratch = TileGeometry(kind: .point)
            var properties: [Property] = []
            for c in tree.search(box) {
                let chunk = chunks[c]
                for (i, position) in chunk.positions.enumerated()
                where groups?.contains(chunk.groups[i]) ?? true && position?.add(to: &layers[slot], frame: frame, scratch: &scratch,
                                                                                properties: &properties) == true {
                    added += 1
                }
            }
        }
        guard added > 0 else { return nil }
        return TileFitter.fit(VectorTileBuilder.encode(layers), maxBytes: options.maxTileBytes, level: options.compressionLevel).mvt
    }

    /// The metadata of the tiles of all the routes.
    package func metadata(name: String) -> TilesetMetadata {
        TilesetMetadata(name: name, options: options, routeSets: tilers.map(\.projected))
    }

    /// The metadata of the tiles of the routes of `groups` alone.
    package func metadata(name: String, groups: GroupScope) -> TilesetMetadata {
        var sets: [ProjectedRouteSet] = []
        for chunk in chunks {
            for (tiler, group) in zip(chunk.tilers, chunk.groups) where groups.contains(group) { sets.append(tiler.projected) }
        }
        return TilesetMetadata(name: name, options: options, routeSets: sets)
    }
}

/// Up to `capacity` consecutive tilers of a `RouteTilerSet`, with an R-tree over their extents and their layers:
/// built once, shared by every set that holds the chunk unchanged.
final class TilerChunk: Sendable {
    /// How many tilers a chunk holds at most: a change rebuilds a tree of this many boxes.
    static let capacity = 256

    let tilers: [RouteTiler]
    /// Beside each tiler, its route's current position, when the options name a position layer and the route is a
    /// line.
    let positions: [LivePosition?]
    private let tree: PackedBoxTree
    /// The chunk's layers in order of first appearance, the options' layer first.
    let layerNames: [String]
    /// Per tiler, the index in `layerNames` of each of its own layers.
    let layerMaps: [[Int]]
    /// Per tiler, its route's group (`RouteGroup`), which group-limited tiles filter by.
    let groups: [String]

    /// The chunk of `tilers`, with `positions` beside them (or none).
    convenience init(_ tilers: [RouteTiler], positions: [LivePosition?] = [], options: TilingOptions) {
        var names = [options.layerName]
        let maps = tilers.map { tiler in
            tiler.layerNames.map { name in
                if let known = names.firstIndex(of: name) { return known }
                names.append(name)
                return names.count - 1
            }
        }
        self.init(tilers, positions: positions, tree: PackedBoxTree(tilers.map(\.extent)), layerNames: names, layerMaps: maps,
                  groups: tilers.map(Self.group))
    }

    /// The chunk of `tilers` in place of `old`, where only the tilers in `slots` changed, each extended by an append
    /// (`RouteTiler.appending`) or trimmed, so naming the same layers and groups: `old`'s layer maps and groups are
    /// shared, and its tree keeps its shape with the boxes of those slots and their ancestors grown. A live append
    /// then costs the depth of the tree, not the chunk's size.
    convenience init(_ tilers: [RouteTiler], positions: [LivePosition?], refitting old: TilerChunk, slots: [Int]) {
        let tree = old.tree.refitting(slots) { tilers[$0].extent }
        // An append or a trim keeps a route's properties, so its group too.
        self.init(tilers, positions: positions, tree: tree, layerNames: old.layerNames, layerMaps: old.layerMaps,
                  groups: old.groups)
    }

    private init(_ tilers: [RouteTiler], positions: [LivePosition?], tree: PackedBoxTree, layerNames: [String],
                 layerMaps: [[Int]], groups: [String]) {
        self.tilers = tilers
        self.positions = positions
        self.tree = tree
        self.layerNames = layerNames
        self.layerMaps = layerMaps
        self.groups = groups
    }

    /// The group of a tiler's route (a tiler holds one route).
    static func group(of tiler: RouteTiler) -> String {
        RouteGroup.of(tiler.projected.routeInfos.first?.properties ?? [])
    }

    /// The union of the tilers' extents.
    var extent: MapRect { tree.bounds }

    /// The indexes of the tilers whose extent meets `box`, ascending.
    func search(_ box: MapRect) -> [Int] { tree.search(box) }
}
