import Foundation
import Synchronization
import RouteTiles

/// Keeps every tile a build writes, in memory.
package final class CollectingSink: TileSink {
    package init() {}
    package let tiles = Mutex([TileID: [UInt8]]())
    package func put(_ tile: TileID, gzipData: [UInt8]) throws {
        tiles.withLock { $0[tile] = gzipData }
    }
    package var all: [TileID: [UInt8]] { tiles.withLock { $0 } }
}

package enum Sample {
    /// A wandering GPS-like track of `count` points starting at (lon, lat), steps of about `step` degrees.
    package static func track(count: Int, lon: Double, lat: Double, step: Double, using rng: inout SeededGenerator) -> [Coordinate] {
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
    package static func decode(_ gzip: [UInt8]) throws -> DecodedTile {
        try VectorTileDecoder.decode(try Gzip.decompress(gzip))
    }

    /// Builds a pyramid in memory.
    package static func build(_ routes: [Route], _ options: TilingOptions, threads: Int = 2) throws -> (RouteTiler, [TileID: [UInt8]]) {
        let tiler = RouteTiler(routes: routes, options: options)
        let sink = CollectingSink()
        _ = try PyramidBuilder(tiler: tiler, threads: threads).build(into: sink)
        return (tiler, sink.all)
    }

    package static func options(minZoom: Int = 0, maxZoom: Int) -> TilingOptions {
        var o = TilingOptions()
        o.minZoom = minZoom
        o.maxZoom = maxZoom
        return o
    }

    /// Routes for the live and server tests: a few tracks around Paris, with ids.
    package static func parisRoutes(count: Int = 6, points: Int = 400, seed: UInt64 = 5) -> [Route] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { i in
            let line = Sample.track(count: points, lon: 2.3 + Double(i) * 0.01, lat: 48.85, step: 0.0004, using: &rng)
            return Route(id: .number(UInt64(100 + i)), properties: [Property("name", .string("track \(i)"))], parts: [line])
        }
    }

    /// Inputs of several sizes and kinds: empty, tiny, a tile, repetitive text, incompressible noise.
    package static func gzipInputs() throws -> [[UInt8]] {
        var random = SeededGenerator(seed: 5)
        var tiles = RandomTiles(seed: 5)
        let noise = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let text = Array(String(repeating: "route tiles gzip ", count: 20_000).utf8)
        return [[], [0x42], try tiles.tile(layerCount: 2, maximumFeatures: 10), text, noise]
    }
}
