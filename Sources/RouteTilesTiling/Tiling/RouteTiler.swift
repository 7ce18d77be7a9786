@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

/// The tiling engine over one set of routes: answers any tile on demand through its index, and hands the
/// pyramid builder its root spans. Immutable once built, so one instance serves any number of threads.
public final class RouteTiler: Sendable {
    /// How this tiler cuts tiles.
    public let options: TilingOptions
    /// The routes, projected: every vertex in columns, and per route its id, properties and length.
    public let projected: ProjectedRouteSet
    let importance: ImportanceColumn
    /// Every segment of every line, once per world copy it is drawn in (see `SegmentSpan.shift`).
    package let rootSpans: [SegmentSpan]
    let index: SegmentIndex
    let featureProperties: [[Property]]
    /// The names of the layers this tiler writes, distinct, the options' layer first.
    public let layerNames: [String]
    /// For each of `projected.layers`, its index in `layerNames`.
    let layerSlots: [Int]

    /// Projects and indexes routes. `options.problem` must be nil.
    public convenience init(routes: [Route], options: TilingOptions) {
        self.init(projected: ProjectedRouteSet(routes: routes, geodesicTolerance: options.geodesicTolerance),
                  options: options)
    }

    /// Indexes routes already projected. `options.problem` must be nil, and `projected` must have been projected
    /// with `options.geodesicTolerance` for geodesic routes to be drawn as the options say.
    public init(projected: ProjectedRouteSet, options: TilingOptions) {
        self.options = options
        self.projected = projected
        importance = ImportanceColumn(computing: projected, floor: Self.importanceFloor(options))
        rootSpans = Self.rootSpans(projected, options: options)
        index = SegmentIndex(spans: rootSpans, set: projected)
        featureProperties = projected.routeInfos.map { Self.featureProperties($0, options: options) }
        (layerNames, layerSlots) = Self.layerSlots(projected, options: options)
    }

    /// Distinct layer names (a route layer named like the options' layer joins it) and each set layer's slot.
    static func layerSlots(_ set: ProjectedRouteSet, options: TilingOptions) -> ([String], [Int]) {
        var names: [String] = []
        var slots: [Int] = []
        for layer in set.layers {
            let name = layer ?? options.layerName
            if let known = names.firstIndex(of: name) {
                slots.append(known)
            } else {
                slots.append(names.count)
                names.append(name)
            }
        }
        return (names, slots)
    }

    /// A tiler from parts already computed (see `appending`).
    init(options: TilingOptions, projected: ProjectedRouteSet, importance: ImportanceColumn, rootSpans: [SegmentSpan],
         index: SegmentIndex, featureProperties: [[Property]]) {
        self.options = options
        self.projected = projected
        self.importance = importance
        self.rootSpans = rootSpans
        self.index = index
        self.featureProperties = featureProperties
        (layerNames, layerSlots) = Self.layerSlots(projected, options: options)
    }

    /// The smallest squared tolerance any simplified zoom asks for; detail below it is never needed.
    static func importanceFloor(_ options: TilingOptions) -> Double {
        let deepest = options.simplifyAtMaxZoom ? options.maxZoom : max(options.maxZoom - 1, 0)
        return max(options.squaredTolerance(zoom: deepest), 0)
    }

    /// A route's properties as its features carry them: its own, less the reserved keys, then `length_m` (unless
    /// `options.routeLength` is off).
    ///
    /// Keys are made distinct here, once per route (a repeated key keeps its first place and its last value, as the
    /// GeoJSON reader does), so that the cutter adds features with `appendFeature`, which does not check them again
    /// in every tile. MVT 2.1 (4.4) wants keys unique within a feature; the readers never repeat one, but a `Route`
    /// built by a program may.
    static func featureProperties(_ info: ProjectedRouteSet.RouteInfo, options: TilingOptions) -> [Property] {
        var properties: [Property] = []
        properties.reserveCapacity(info.properties.count + 1)
        var keys = IndexTable<ExactString>()
        // With speed classes, a route with times has `speed` of RouteTiles' own.
        let ownSpeed = options.speedClasses != nil && options.timePieces && info.hasTimes && !info.isPoint
        for property in info.properties where !reservedKeys.contains(property.key) && !(ownSpeed && property.key == "speed") {
            let (index, inserted) = keys.index(of: ExactString(property.key))
            if inserted { properties.append(property) } else { properties[Int(index)].value = property.value }
        }
        if info.isPoint || !options.routeLength { return properties }
        properties.append(Property("length_m", TileCutter.metres(info.lengthMetres)))
        return properties
    }

    /// The union of the boxes of every segment, in every world copy it is drawn in: no tile outside it holds
    /// anything.
    public var extent: MapRect { index.bounds }

    /// Keys RouteTiles writes itself; a route property of the same name gives way.
    public static let reservedKeys: Set<String> = ["length_m", "start_m", "end_m", "mapbox_clip_start", "mapbox_clip_end",
                                                   "start_t", "end_t"]

    /// The root tile's spans: every segment that meets the buffered world, for each world copy (one to the west,
    /// the world itself, one to the east) that a line reaches.
    static func rootSpans(_ set: ProjectedRouteSet, options: TilingOptions) -> [SegmentSpan] {
        let root = WebMercator.bounds(of: TileID(z: 0, x: 0, y: 0), extent: options.extent, buffer: options.buffer)
        var all = SpanList()
        for line in 0..<set.lineCount {
            let first = set.lineStarts[line], last = set.lineStarts[line + 1] - 1
            guard last > first else { continue }
            var minX = Double.infinity, maxX = -Double.infinity
            for v in first...last {
                minX = min(minX, set.xs[v])
                maxX = max(maxX, set.xs[v])
            }
            for shift in worldCopies(minX: minX, maxX: maxX, root: root) {
                let whole = [SegmentSpan(line: Int32(line), shift: shift, first: Int32(first), end: Int32(last))]
                SpanFilter.select(whole, meeting: root, in: set, into: &all)
            }
        }
        return all.spans
    }

    /// The world copies (−1: one world to the west, 0, 1: one to the east) in which points from `minX` to `maxX`
    /// meet the buffered root tile.
    static func worldCopies(minX: Double, maxX: Double, root: MapRect) -> [Int32] {
        [Int32(-1), 0, 1].filter { shift in
            let dx = Double(shift) * WebMercator.worldSize
            return minX + dx <= root.maxX && maxX + dx >= root.minX
        }
    }

    /// The spans of one tile, found through the index.
    package func spans(for tile: TileID) -> [SegmentSpan] {
        spans(meeting: WebMercator.bounds(of: tile, extent: options.extent, buffer: options.buffer))
    }

    /// The spans that meet `box` (a tile's buffered box in map points), found through the index.
    package func spans(meeting box: MapRect) -> [SegmentSpan] {
        var out = SpanList()
        for run in index.runs(meeting: box) {
            SpanFilter.select(CollectionOfOne(run), meeting: box, in: projected, into: &out)
        }
        return out.spans
    }

    /// The segments of line `line` from vertex `first` through vertex `end` (indices in the set's columns), in every
    /// world copy that meets the root tile: a piece of a line that changed (appended or dropped segments).
    func spans(ofLine line: Int, from first: Int, through end: Int) -> [SegmentSpan] {
        guard first < end else { return [] }
        let root = WebMercator.bounds(of: TileID(z: 0, x: 0, y: 0), extent: options.extent, buffer: options.buffer)
        var piece = SpanList()
        for shift in [Int32(-1), 0, 1] {
            let span = SegmentSpan(line: Int32(line), shift: shift, first: Int32(first), end: Int32(end))
            SpanFilter.select([span], meeting: root, in: projected, into: &piece)
        }
        return piece.spans
    }

    /// The slot in `layerNames` that all routes share, or nil when they use several.
    package var onlyLayerSlot: Int? {
        guard let first = projected.routeInfos.first else { return 0 }
        let slot = layerSlots[first.layer]
        return projected.routeInfos.allSatisfy({ layerSlots[$0.layer] == slot }) ? slot : nil
    }

    /// A cutter with its own scratch space, for one thread.
    package func makeCutter() -> TileCutter {
        TileCutter(set: projected, importance: importance, options: options, featureProperties: featureProperties,
                   layerSlots: layerSlots)
    }

    /// The uncompressed MVT of one tile, or nil when no route touches it. The work is proportional to what lies in
    /// the tile, not to the size of the route set. Gives the same bytes as the pyramid builder.
    ///
    /// - Throws: `TileAddressError` when z/x/y names no tile, so that it is not mistaken for an empty one.
    public func tile(z: Int, x: Int, y: Int) throws(TileAddressError) -> [UInt8]? {
        let id = TileID(z: z, x: x, y: y)
        guard id.isValid else { throw TileAddressError(tile: id) }
        return tile(id)
    }

    /// The uncompressed MVT of one tile of the time window `window`: the lines of the routes with times, cut to the
    /// positions recorded in it and ending at those interpolated at its bounds; nil when none is in the tile then.
    ///
    /// - Throws: `TileAddressError` when z/x/y names no tile.
    public func tile(z: Int, x: Int, y: Int, window: TimeWindow) throws(TileAddressError) -> [UInt8]? {
        let id = TileID(z: z, x: x, y: y)
        guard id.isValid else { throw TileAddressError(tile: id) }
        var cutter = makeCutter()
        cutter.window = window
        return encode(id, spans: spans(for: id), cutter: &cutter)
    }

    /// The uncompressed MVT of WorldCRS84Quad tile `tile` (`TileFrame`), cut to `window` when one is given; nil
    /// when no route has a feature in it, or when `tile` names no tile (`CRS84TileID.isValid`).
    public func tile(_ tile: CRS84TileID, window: TimeWindow? = nil) -> [UInt8]? {
        guard tile.isValid else { return nil }
        let frame = TileFrame(tile: tile, options: options)
        var cutter = makeCutter()
        cutter.window = window
        return encode(frame, spans: spans(meeting: frame.box), cutter: &cutter)
    }

    /// `tile(z:x:y:)` of a tile known to be valid.
    func tile(_ id: TileID) -> [UInt8]? {
        var cutter = makeCutter()
        return encode(id, spans: spans(for: id), cutter: &cutter)
    }

    /// Cuts and encodes one tile from its spans; nil when it holds no feature.
    package func encode(_ tile: TileID, spans: [SegmentSpan], cutter: inout TileCutter) -> [UInt8]? {
        encode(TileFrame(tile: tile, options: options), spans: spans, cutter: &cutter)
    }

    /// Cuts and encodes the tile `frame` frames from its spans, within the options' byte budget; nil when it holds
    /// no feature.
    package func encode(_ frame: TileFrame, spans: [SegmentSpan], cutter: inout TileCutter) -> [UInt8]? {
        fittedTile(frame, spans: spans, cutter: &cutter)?.mvt
    }

    /// `encode(_:spans:cutter:)` with what fitting the budget did to the tile (nil when it fitted as cut).
    package func fittedTile(_ tile: TileID, spans: [SegmentSpan],
                            cutter: inout TileCutter) -> (mvt: [UInt8], reduction: TileReduction?)? {
        fittedTile(TileFrame(tile: tile, options: options), spans: spans, cutter: &cutter)
    }

    package func fittedTile(_ frame: TileFrame, spans: [SegmentSpan],
                            cutter: inout TileCutter) -> (mvt: [UInt8], reduction: TileReduction?)? {
        guard !spans.isEmpty else { return nil }
        var layers: [VectorLayerBuilder]
        if layerNames.count > 1 {
            layers = layerNames.map { VectorLayerBuilder(name: $0, extent: UInt32(options.extent)) }
            guard cutter.cut(frame, spans: spans, into: &layers) > 0 else { return nil }
        } else {
            var layer = VectorLayerBuilder(name: options.layerName, extent: UInt32(options.extent))
            guard cutter.cut(frame, spans: spans, into: &layer) > 0 else { return nil }
            layers = [layer]
        }
        if cutter.window == nil, options.hasDensity(zoom: frame.detailZoom), !layerNames.contains(DensityGrid.layerName) {
            var density = DensityGrid(extent: options.extent)
            density.add(spans, of: projected, frame: frame)
            if !density.isEmpty { layers.append(density.layer()) }
        }
        return TileFitter.fit(VectorTileBuilder.encode(layers), maxBytes: options.maxTileBytes, level: options.compressionLevel)
    }
}
