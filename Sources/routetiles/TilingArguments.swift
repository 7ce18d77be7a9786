import ArgumentParser
import RouteTiles

/// The options that decide which tiles exist and what they hold, shared by `build`, `serve` and `seed` so that a
/// server answers the tiles a build writes, and a seed job's cover is exactly that set of tiles. The defaults are
/// the library's (`TilingOptions`, `GzipCompressor.defaultLevel`).
struct TilingArguments: ParsableArguments {
    @Option(help: "Lowest zoom.")
    var minzoom = TilingOptions().minZoom

    @Option(help: "Highest zoom.")
    var maxzoom = TilingOptions().maxZoom

    @Option(help: "Tile extent in units.")
    var extent = TilingOptions().extent

    @Option(help: "Buffer around each tile, in tile units.")
    var buffer = TilingOptions().buffer

    @Option(help: "Simplification tolerance in tile units (0: none).")
    var simplify = TilingOptions().simplification

    @Flag(help: "Simplify at the highest zoom too (by default it keeps every vertex).")
    var simplifyAtMaxzoom = TilingOptions().simplifyAtMaxZoom

    @Option(help: "Name of the vector tile layer of the routes.")
    var layer = TilingOptions().layerName

    @Flag(help: "One feature per clipped part, with start_m, end_m, mapbox_clip_start and mapbox_clip_end.")
    var lineMetrics = TilingOptions().lineMetrics

    @Flag(inversion: .prefixedNo,
          help: "Give each line feature length_m, its route's whole length. Default: on, but off for serve --store, where every append would change it in every tile of the route.")
    var routeLength: Bool?

    @Flag(inversion: .prefixedNo,
          help: "Cut the lines of routes with times into pieces of time, each a feature with start_t and end_t (seconds since 1970): a day at zooms 0-3 down to a minute from zoom 12 (Docs/FORMATS.md, \"Time in the tiles\").")
    var timePieces = TilingOptions().timePieces

    @Option(help: "For speed colouring: cut the lines of routes with times where the speed class of their segments changes, each feature with speed, its class in km/h (a multiple of this width, e.g. 10).")
    var speedClasses: Double?

    @Option(help: "gzip level, 0 (store) to 9 (smallest).")
    var compressionLevel = Int(GzipCompressor.defaultLevel)

    @Option(help: ArgumentHelp("The deepest zoom whose tiles carry the density layer (per cell of 8 pixels, the route positions in it, for heatmaps), or none.", valueName: "zoom|none"))
    var densityMaxzoom = "5"

    @Option(help: "The most gzip bytes a tile may take; a larger one is fitted: lines on the same pixels merged into features with count, then less detail, then the least visible left out (0: no bound).")
    var maxTileBytes = TilingOptions().maxTileBytes

    /// The options of a build, or of a server of routes that do not change.
    var tilingOptions: TilingOptions { tilingOptions(liveRoutes: false) }

    /// The options; for `liveRoutes` (routes in a store, which change), without `length_m` unless asked for.
    func tilingOptions(liveRoutes: Bool) -> TilingOptions {
        var o = TilingOptions()
        o.routeLength = routeLength ?? !liveRoutes
        o.minZoom = minzoom
        o.maxZoom = maxzoom
        o.extent = extent
        o.buffer = buffer
        o.simplification = simplify
        o.simplifyAtMaxZoom = simplifyAtMaxzoom
        o.layerName = layer
        o.lineMetrics = lineMetrics
        o.timePieces = timePieces
        o.speedClasses = speedClasses
        o.maxTileBytes = maxTileBytes
        o.densityMaxZoom = densityMaxzoom == "none" ? nil : Int(densityMaxzoom) ?? -1
        o.compressionLevel = Int32(clamping: compressionLevel)
        return o
    }

    func validate() throws {
        if !(0...9).contains(compressionLevel) { throw ValidationError("--compression-level must lie in 0...9") }
        if densityMaxzoom != "none", Int(densityMaxzoom) == nil {
            throw ValidationError("--density-maxzoom must be a zoom or none, not '\(densityMaxzoom)'")
        }
        if let problem = tilingOptions.problem { throw ValidationError(problem) }
    }
}
