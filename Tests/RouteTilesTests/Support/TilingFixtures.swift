import Foundation
import Synchronization
import RouteTiles

/// Keeps every tile a build writes, in memory.
final class CollectingSink: TileSink {
    let tiles = Mutex([TileID: [UInt8]]())
    func put(_ tile: TileID, gzipData: [UInt8]) throws {
        tiles.withLock { $0[tile] = gzipData }
    }
    var all: [TileID: [UInt8]] { tiles.withLock { $0 } }
}

enum Sample {
    /// A wandering GPS-like track of `count` points starting at (lon, lat), steps of about `step` degrees.
    static func track(count: Int, lon: Double, lat: Double, step: Double, using rng: inout SeededGenerator) -> [Coordinate] {
        var points: [Coordinate] = []
        var x = lon, y = lat, heading = Double.random(in: 0..<(2 * .pi), using: &rng)
        for _ in 0..<count {
            points.append(Coordinate(longitude: x, latitude: y))
            heading += Double.random(in: -0.6...0.6, using: &rng)
            x += cos(heading) * step
            y = min(max(y + sin(heading) * step, -84), 84)
        }
        return points
    }

    /// Decodes a gzip-compressed tile.
    static func decode(_ gzip: [UInt8]) throws -> DecodedTile {
        try VectorTileDecoder.decode(try Gzip.decompress(gzip))
    }

    /// Builds a pyramid in memory.
    static func build(_ routes: [Route], _ options: TilingOptions, threads: Int = 2) throws -> (RouteTiler, [TileID: [UInt8]]) {
        let tiler = RouteTiler(routes: routes, options: options)
        let sink = CollectingSink()
        _ = try PyramidBuilder(tiler: tiler, threads: threads).build(into: sink)
        return (tiler, sink.all)
    }

    static func options(minZoom: Int = 0, maxZoom: Int) -> TilingOptions {
        var o = TilingOptions()
        o.minZoom = minZoom
        o.maxZoom = maxZoom
        return o
    }
}
