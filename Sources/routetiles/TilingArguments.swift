import ArgumentParser
import RouteTiles

/// The options that decide which tiles exist and what they hold, shared by `build`, `serve` and `seed` so that a
/// server answers the tiles a build writes, and a seed job's cover is exactly that set of tiles.
struct TilingArguments: ParsableArguments {
    @Option(help: "Lowest zoom.")
    var minzoom = 0

    @Option(help: "Highest zoom.")
    var maxzoom = 14

    @Option(help: "Tile extent in units.")
    var extent = 4096

    @Option(help: "Buffer around each tile, in tile units.")
    var buffer = 64

    @Option(help: "Simplification tolerance in tile units (0: none).")
    var simplify = 1.0

    @Flag(help: "Simplify at the highest zoom too (by default it keeps every vertex).")
    var simplifyAtMaxzoom = false

    @Option(help: "Name of the vector tile layer of the routes.")
    var layer = "routes"

    @Flag(help: "One feature per clipped part, with start_m, end_m, mapbox_clip_start and mapbox_clip_end.")
    var lineMetrics = false

    @Option(help: "gzip level, 0 (store) to 9 (smallest).")
    var compressionLevel = 6

    var tilingOptions: TilingOptions {
        var o = TilingOptions()
        o.minZoom = minzoom
        o.maxZoom = maxzoom
        o.extent = extent
        o.buffer = buffer
        o.simplification = simplify
        o.simplifyAtMaxZoom = simplifyAtMaxzoom
        o.layerName = layer
        o.lineMetrics = lineMetrics
        return o
    }

    func validate() throws {
        if let problem = tilingOptions.problem { throw ValidationError(problem) }
        if !(0...9).contains(compressionLevel) { throw ValidationError("--compression-level must lie in 0...9") }
    }
}
