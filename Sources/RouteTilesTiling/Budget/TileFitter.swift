import RouteTilesModel

/// Brings a cut tile within its byte budget (`TilingOptions.maxTileBytes`, gzip bytes at the options' level) by
/// drawing the same pixels with fewer bytes, then, only if that is not enough, with less detail, and last by
/// leaving out what is least visible (`TileReduction` lists the steps).
///
/// A tile within the budget is left as it is, byte for byte: the work is one size check for most tiles and one
/// gzip for the few large ones. A tile over it is read back (`VectorTileDecoder`), its lines drawn on a grid of
/// one-pixel cells (`PixelEdges`, 512 pixels a tile), and every step between cells that several routes take is
/// written once, in a feature with `count`, the number of routes through it. Steps one route takes alone stay in
/// a feature of that route, with its id and properties and `count` 1, so the route can still be picked where it
/// runs alone. Points and the other layers pass through unchanged.
package enum TileFitter {
    /// Merging grids tried in turn, in pixels of a 512-pixel tile.
    static let gridPixels = [1, 2, 4, 8, 16, 32]
    /// Keys of a part of a route (a clipped piece, a piece of time, a speed class) that mean nothing once the
    /// route's lines are merged on a grid.
    static let partKeys: Set<String> = ["start_m", "end_m", "mapbox_clip_start", "mapbox_clip_end", "start_t", "end_t",
                                        "speed"]

    /// `mvt` itself when it fits `maxBytes` gzip bytes at `level` (or `maxBytes` is 0), else a tile that does,
    /// with what was done to it.
    package static func fit(_ mvt: [UInt8], maxBytes: Int, level: Int32) -> (mvt: [UInt8], reduction: TileReduction?) {
        // Deflate never grows its input by more than 5 bytes a 16 kB block, plus gzip's 18 of header and trailer.
        guard maxBytes > 0, mvt.count + 18 + 5 * (mvt.count / 16_384 + 1) > maxBytes,
              let compressor = try? GzipCompressor(level: level),
              let compressed = try? compressor.compress(mvt), compressed.count > maxBytes,
              let decoded = try? VectorTileDecoder.decode(mvt)
        else { return (mvt, nil) }
        var fitting = Fitting(tile: decoded, compressor: compressor, maxBytes: maxBytes)
        return fitting.run()
    }

    /// One tile's fitting: its layers read back, and the attempts made on them.
    struct Fitting {
        let tile: DecodedTile
        let compressor: GzipCompressor
        let maxBytes: Int
        let linesBefore: Int
        /// Per layer: its routes (features of the same id are one route) and each route's properties.
        var routes: [LayerRoutes]

        struct LayerRoutes {
            var ids: [UInt64?] = []
            var properties: [[Property]] = []
            /// For each line feature of the layer, its route's index.
            var routeOfFeature: [Int32] = []
        }

        init(tile: DecodedTile, compressor: GzipCompressor, maxBytes: Int) {
            self.tile = tile
            self.compressor = compressor
            self.maxBytes = maxBytes
            linesBefore = tile.layers.reduce(0) { $0 + $1.features.count(where: { $0.kind == .lineString }) }
            routes = tile.layers.map(Self.routes)
        }

        static func routes(of layer: DecodedLayer) -> LayerRoutes {
            var routes = LayerRoutes()
            var byID: [UInt64: Int32] = [:]
            for feature in layer.features {
                guard feature.kind == .lineString else { routes.routeOfFeature.append(-1); continue }
                if let id = feature.id, let known = byID[id] {
                    routes.routeOfFeature.append(known)
                    continue
                }
                let index = Int32(routes.ids.count)
                if let id = feature.id { byID[id] = index }
                routes.ids.append(feature.id)
                routes.properties.append(feature.properties.filter { !TileFitter.partKeys.contains($0.key) && $0.key != "count" })
                routes.routeOfFeature.append(index)
            }
            return routes
        }

        /// The layers' lines merged on a grid of `pixels` pixels: per layer, its chains.
        func merge(pixels: Int) -> [[EdgeChain]] {
            tile.layers.enumerated().map { l, layer in
                guard !routes[l].ids.isEmpty else { return [] }
                let extent = Int32(clamping: layer.extent)
                let cell = max(1, extent * Int32(pixels) / 512)
                var edges = PixelEdges(cellUnits: cell, extent: extent, buffer: max(cell, extent / 16))
                for (f, feature) in layer.features.enumerated() where feature.kind == .lineString {
                    edges.draw(feature.geometry, route: routes[l].routeOfFeature[f])
                }
                return edges.chains(tolerance: Double(cell) / 2)
            }
        }

        /// The tile with `chains` in place of each layer's lines, less the chains `dropped` marks (by layer and
        /// index) and keeping only the points `keepPoint` accepts (by their order in the tile).
        func encode(_ chains: [[EdgeChain]], dropped: (Int, Int) -> Bool = { _, _ in false },
                    keepPoint: (Int) -> Bool = { _ in true }) -> [UInt8] {
            var builders: [VectorLayerBuilder] = []
            var pointIndex = 0
            var geometry = TileGeometry()
            for (l, layer) in tile.layers.enumerated() {
                var builder = VectorLayerBuilder(name: layer.name, extent: layer.extent)
                for feature in layer.features where feature.kind != .lineString {
                    defer { pointIndex += 1 }
                    guard keepPoint(pointIndex) else { continue }
                    builder.appendFeature(id: feature.id, geometry: feature.geometry, properties: feature.properties)
                }
                // One feature per kind: each merged count, then each route's own steps.
                let order = chains[l].indices.filter { !dropped(l, $0) }.sorted {
                    (chains[l][$0].kind, $0) < (chains[l][$1].kind, $1)
                }
                var k = 0
                while k < order.count {
                    let kind = chains[l][order[k]].kind
                    geometry.removeAll()
                    while k < order.count, chains[l][order[k]].kind == kind {
                        geometry.appendPart(chains[l][order[k]].points)
                        k += 1
                    }
                    if kind < 0 {
                        builder.appendFeature(id: nil, geometry: geometry, properties: [Property("count", .int(-kind))])
                    } else {
                        let r = Int(kind)
                        builder.appendFeature(id: routes[l].ids[r], geometry: geometry,
                                              properties: routes[l].properties[r] + [Property("count", .int(1))])
                    }
                }
                builders.append(builder)
            }
            return VectorTileBuilder.encode(builders)
        }

        func fits(_ mvt: [UInt8]) -> Bool {
            guard let compressed = try? compressor.compress(mvt) else { return false }
            return compressed.count <= maxBytes
        }

        static func lines(_ chains: [[EdgeChain]]) -> Int {
            chains.reduce(0) { total, layer in total + Set(layer.map(\.kind)).count }
        }

        mutating func run() -> (mvt: [UInt8], reduction: TileReduction?) {
            var chains: [[EdgeChain]] = []
            for pixels in TileFitter.gridPixels {
                chains = merge(pixels: pixels)
                let mvt = encode(chains)
                if fits(mvt) {
                    return (mvt, TileReduction(gridPixels: pixels, linesBefore: linesBefore, linesAfter: Self.lines(chains)))
                }
            }
            return drop(chains)
        }

        /// The coarsest merge with the least visible chains left out (fewest routes times fewest steps first), and
        /// the points thinned evenly should the points alone take more than half the budget.
        func drop(_ chains: [[EdgeChain]]) -> (mvt: [UInt8], reduction: TileReduction?) {
            let pointCount = tile.layers.reduce(0) { $0 + $1.features.count(where: { $0.kind != .lineString }) }
            let none: [[EdgeChain]] = chains.map { _ in [] }
            // Points: the most, evenly spaced, whose tile without lines fits half the budget.
            var keptPoints = pointCount
            if !fitsHalf(encode(none)) {
                keptPoints = largest(in: 0...pointCount) { n in fitsHalf(encode(none, keepPoint: Self.evenly(n, of: pointCount))) }
            }
            let keepPoint = Self.evenly(keptPoints, of: pointCount)
            // Lines: ranked from least visible; the most visible that fit.
            var ranked: [(layer: Int, chain: Int, weight: Int)] = []
            for (l, layer) in chains.enumerated() {
                for (c, chain) in layer.enumerated() { ranked.append((l, c, chain.count * chain.steps)) }
            }
            ranked.sort { ($0.weight, $0.layer, $0.chain) < ($1.weight, $1.layer, $1.chain) }
            var rank = chains.map { [Int](repeating: 0, count: $0.count) }
            for (r, entry) in ranked.enumerated() { rank[entry.layer][entry.chain] = r }
            let kept = largest(in: 0...ranked.count) { n in
                fits(encode(chains, dropped: { rank[$0][$1] < ranked.count - n }, keepPoint: keepPoint))
            }
            let cut = ranked.count - kept
            let mvt = encode(chains, dropped: { rank[$0][$1] < cut }, keepPoint: keepPoint)
            let remaining = chains.enumerated().map { l, layer in layer.enumerated().filter { rank[l][$0.offset] >= cut }.map(\.element) }
            return (mvt, TileReduction(gridPixels: TileFitter.gridPixels.last ?? 1, linesBefore: linesBefore,
                                       linesAfter: Self.lines(remaining), droppedLines: cut,
                                       droppedPoints: pointCount - keptPoints))
        }

        func fitsHalf(_ mvt: [UInt8]) -> Bool {
            guard let compressed = try? compressor.compress(mvt) else { return false }
            return compressed.count <= maxBytes / 2
        }

        /// Keeps `n` of `total` items, evenly spaced.
        static func evenly(_ n: Int, of total: Int) -> (Int) -> Bool {
            guard n < total else { return { _ in true } }
            guard n > 0 else { return { _ in false } }
            return { i in (i * n) / total != ((i + 1) * n) / total }
        }

        /// The largest value in `range` for which `test` holds, `test` being monotone (true up to some value);
        /// the range's lower bound when it holds nowhere.
        func largest(in range: ClosedRange<Int>, _ test: (Int) -> Bool) -> Int {
            var low = range.lowerBound, high = range.upperBound
            while low < high {
                let middle = (low + high + 1) / 2
                if test(middle) { low = middle } else { high = middle - 1 }
            }
            return low
        }
    }
}
