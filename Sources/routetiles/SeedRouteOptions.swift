import ArgumentParser
import RouteTiles

/// The route and tiling options of `seed`: the same meaning and defaults as `build`'s, so that the cover is the set
/// of tiles a build with the same options writes.
struct SeedRouteOptions: ParsableArguments {
    @Option(help: "Input format, instead of detecting it from the name and content (geojson, csv).")
    var format: String?

    @Option(help: "CSV: the latitude column, instead of lat or latitude.")
    var latColumn: String?

    @Option(help: "CSV: the longitude column, instead of lon, lng, long or longitude.")
    var lonColumn: String?

    @Option(help: "CSV: the column that groups rows into routes, instead of route or id.")
    var routeColumn: String?

    @Flag(help: "Skip invalid routes (reporting how many) instead of stopping at the first one.")
    var skipInvalid = false

    @Option(help: "Lowest zoom seeded.")
    var minzoom = 0

    @Option(help: "Highest zoom seeded.")
    var maxzoom = 14

    @Option(help: "Tile extent in units (as for build).")
    var extent = 4096

    @Option(help: "Buffer around each tile, in tile units (as for build).")
    var buffer = 64

    @Option(help: "Simplification tolerance in tile units (as for build; --output only).")
    var simplify = 1.0

    @Option(help: "Name of the vector tile layer (--output only).")
    var layer = "routes"

    @Flag(help: "One feature per clipped part with line metrics (as for build; --output only).")
    var lineMetrics = false

    var tilingOptions: TilingOptions {
        var o = TilingOptions()
        o.minZoom = minzoom
        o.maxZoom = maxzoom
        o.extent = extent
        o.buffer = buffer
        o.simplification = simplify
        o.layerName = layer
        o.lineMetrics = lineMetrics
        return o
    }

    var readOptions: ReadOptions {
        ReadOptions(skipInvalid: skipInvalid, latColumn: latColumn, lonColumn: lonColumn, routeColumn: routeColumn)
    }

    var inputFormat: InputFormat? { format.flatMap { InputFormat(rawValue: $0.lowercased()) } }

    func validate() throws {
        if let problem = tilingOptions.problem { throw ValidationError(problem) }
        if let format, InputFormat(rawValue: format.lowercased()) == nil {
            throw ValidationError("unknown --format '\(format)'")
        }
    }
}
