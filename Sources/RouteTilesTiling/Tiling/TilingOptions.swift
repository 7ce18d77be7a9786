import RouteTilesGeo
import RouteTilesModel

/// How routes are cut into tiles.
public struct TilingOptions: Sendable, Equatable {
    /// The shallowest zoom a pyramid build writes and a server serves.
    public var minZoom: Int = 0
    /// The deepest zoom a pyramid build writes and a server serves, at most ``TileID/maxZoom``.
    public var maxZoom: Int = 14
    /// Tile coordinates run over `0..<extent`.
    public var extent: Int = 4096
    /// Units beyond each tile edge that a tile also holds, so that lines meet across tile edges.
    public var buffer: Int = 64
    /// Douglas–Peucker tolerance in tile units (at `extent`). 0 turns simplification off.
    public var simplification: Double = 1
    /// Simplify at `maxZoom` too (by default the deepest zoom keeps every vertex).
    public var simplifyAtMaxZoom: Bool = false
    /// One feature per clipped part, with `start_m`, `end_m`, `mapbox_clip_start` and `mapbox_clip_end`.
    public var lineMetrics: Bool = false
    /// Cut the lines of routes with times into pieces of time (``TimePieces``), each a feature with `start_t` and
    /// `end_t`, so that clients filter tracks by time from the tiles alone. Routes without times are cut as they
    /// would be without it (`--time-pieces off` turns it off for all).
    public var timePieces: Bool = true
    /// For speed colouring: with a width in km/h, the lines of routes with times are also cut where the speed class
    /// of their segments changes (a segment's geodesic length over its duration, rounded down to a multiple of the
    /// width), and each feature carries `speed`, its class in km/h. Nil (the default): no `speed`.
    public var speedClasses: Double?
    /// The vector tile layer of routes that do not name one (``Route/layer``).
    public var layerName: String = "routes"
    /// Each line feature carries `length_m`, its route's whole length. A value of the whole route changes with
    /// every append, in every tile of the route, so a live server (`serve --store`) leaves it out by default:
    /// then an append changes only the tiles near its new segments, and clients read the length from the route
    /// list (`GET /routes`).
    public var routeLength: Bool = true
    /// The layer of live routes' current positions: one point per line route at its last position, with
    /// `bearing` and `fix_time`, for maps that show where each vehicle is now. Written by live route sets only
    /// (`LiveRouteSet`, `serve --store`); nil for none, and `build` writes none.
    public var positionLayer: String?
    /// The most tiles a live append lists as changed for its new segments (`serve --max-append-tiles`). A segment
    /// drawn in more (a fix on the far side of the world, at deep zooms) has its tiles listed zoom by zoom while
    /// they fit, and below that zoom whole subtrees count as changed: the cost of one fix stays bounded, and no
    /// changed tile is missed. Builds do not use it.
    public var appendTileLimit: Int = 16_384
    /// The most bytes a tile may take, gzip-compressed at `compressionLevel` as it is written and served
    /// (`--max-tile-bytes`). A tile cut larger is fitted to it by `TileFitter`: lines on the same pixels merged
    /// into features with `count`, then less detail, then the least visible left out (`TileReduction`). 0: no
    /// bound, every tile as cut.
    public var maxTileBytes: Int = 500_000
    /// The deepest zoom whose tiles carry the `density` layer (`DensityGrid`: per cell of 8 pixels, the positions in
    /// it, for heatmaps), or nil for none (`--density-maxzoom`, `none`). Window tiles carry none.
    public var densityMaxZoom: Int? = 5
    /// The gzip level tiles are written and served at, which `maxTileBytes` is measured at.
    public var compressionLevel: Int32 = GzipCompressor.defaultLevel

    /// The defaults: zooms 0 to 14, extent 4096, buffer 64, simplification 1, one layer called `routes`.
    public init() {}

    /// What is wrong with these options, or nil when they can be used.
    public var problem: String? {
        if minZoom < 0 || maxZoom > TileID.maxZoom { return "zooms must lie in 0...\(TileID.maxZoom)" }
        if minZoom > maxZoom { return "minzoom \(minZoom) is greater than maxzoom \(maxZoom)" }
        if extent < 256 || extent > 16384 { return "extent \(extent) must lie in 256...16384" }
        if buffer < 0 || buffer > extent / 2 { return "buffer \(buffer) must lie in 0...\(extent / 2) (half the extent)" }
        if extent + buffer > Int(Int16.max) { return "extent + buffer must stay within the 15-bit range renderers accept" }
        if !(simplification >= 0) || !simplification.isFinite { return "simplification must be a finite number ≥ 0" }
        if layerName.isEmpty { return "the layer name must not be empty" }
        if appendTileLimit < 64 { return "the append tile limit \(appendTileLimit) must be at least 64" }
        if let width = speedClasses, !(width > 0 && width.isFinite) { return "speed classes must be a width in km/h above 0" }
        if speedClasses != nil, !timePieces { return "speed classes cut time pieces: they need time pieces on" }
        if let zoom = densityMaxZoom, !(0...TileID.maxZoom).contains(zoom) {
            return "the density max zoom \(zoom) must lie in 0...\(TileID.maxZoom)"
        }
        if maxTileBytes != 0, maxTileBytes < 4096 { return "the tile byte budget \(maxTileBytes) must be 0 (none) or at least 4096" }
        if !(0...9).contains(compressionLevel) { return "the compression level \(compressionLevel) must lie in 0...9" }
        return nil
    }

    /// Half a tile unit at `maxZoom`, in map points: how far a densified geodesic may depart from the true one.
    public var geodesicTolerance: Double {
        0.5 * WebMercator.tileSize(zoom: maxZoom) / Double(extent)
    }

    /// Whether a tile drawn with the detail of `zoom` carries the density layer.
    package func hasDensity(zoom: Int) -> Bool {
        densityMaxZoom.map { zoom <= $0 } ?? false
    }

    /// The squared Douglas–Peucker tolerance at zoom z in map points², or −1 where nothing is simplified.
    package func squaredTolerance(zoom: Int) -> Double {
        if simplification == 0 || (zoom >= maxZoom && !simplifyAtMaxZoom) { return -1 }
        let units = simplification * WebMercator.tileSize(zoom: zoom) / Double(extent)
        return units * units
    }
}
