import Benchmark
import Foundation
import RouteTiles

/// A seeded generator (SplitMix64): every run measures the same data.
struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A GPS-like track: `count` points about 10 m apart from (lon, lat).
func track(count: Int, lon: Double, lat: Double, rng: inout Seeded) -> [Coordinate] {
    var x = lon, y = lat, heading = Double.random(in: 0..<(2 * .pi), using: &rng)
    var out: [Coordinate] = []
    out.reserveCapacity(count)
    for _ in 0..<count {
        out.append(Coordinate(longitude: x, latitude: y))
        heading += Double.random(in: -0.15...0.15, using: &rng)
        x += cos(heading) * 0.0001 / cos(y * .pi / 180)
        y += sin(heading) * 0.0001
    }
    return out
}

/// One route through Manhattan, plus `others` routes of 200 points elsewhere in the world (never near it).
func cullingScene(others: Int) -> RouteTiler {
    var rng = Seeded(state: 42)
    var routes = [Route(id: .number(1), parts: [track(count: 2000, lon: -73.9857, lat: 40.7484, rng: &rng)])]
    for i in 0..<others {
        let lon = Double.random(in: -170...170, using: &rng)
        let lat = Double.random(in: -60...60, using: &rng)
        if abs(lon + 74) < 5 && abs(lat - 40.7) < 5 { continue }
        routes.append(Route(id: .number(UInt64(i + 2)), parts: [track(count: 200, lon: lon, lat: lat, rng: &rng)]))
    }
    return RouteTiler(routes: routes, options: TilingOptions())
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
                                           maxDuration: .seconds(5), maxIterations: 100_000)
    let tile = WebMercator.tile(containing: Coordinate(longitude: -73.9857, latitude: 40.7484), zoom: 14)

    // Culling: the cost of one z14 tile must not grow with the routes elsewhere (goal: ratio < 1.5).
    for others in [100, 10_000] {
        Benchmark("Tile on demand z14 with \(others) routes elsewhere") { benchmark, tiler in
            for _ in benchmark.scaledIterations {
                blackHole(tiler.tile(z: tile.z, x: tile.x, y: tile.y))
            }
        } setup: {
            cullingScene(others: others)
        }
    }

    // The whole pyramid z0–14 of 200,000 GPS points (20 tracks), into memory: input points/s.
    Benchmark("Build z0-14, 200k points (points/s)",
              configuration: .init(metrics: [.wallClock, .throughput, .peakMemoryResident], maxDuration: .seconds(20),
                                   maxIterations: 5, thresholds: nil)) { benchmark, routes in
        for _ in benchmark.scaledIterations {
            let tiler = RouteTiler(routes: routes, options: TilingOptions())
            let stats = try PyramidBuilder(tiler: tiler).build(into: DiscardingSink())
            blackHole(stats)
        }
    } setup: {
        var rng = Seeded(state: 7)
        return (0..<20).map { _ in
            Route(parts: [track(count: 10_000, lon: .random(in: -10...30, using: &rng), lat: .random(in: 40...55, using: &rng), rng: &rng)])
        }
    }

    // Reading GeoJSON: 200,000 positions.
    Benchmark("Read GeoJSON, 200k points",
              configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 50)) { benchmark, bytes in
        for _ in benchmark.scaledIterations {
            blackHole(try GeoJSONReader.read(bytes, file: "bench.geojson", options: ReadOptions()))
        }
    } setup: {
        var rng = Seeded(state: 9)
        var text = #"{"type":"FeatureCollection","features":["#
        for i in 0..<20 {
            if i > 0 { text += "," }
            let coords = track(count: 10_000, lon: 2.35, lat: 48.86, rng: &rng)
                .map { String(format: "[%.7f,%.7f]", $0.longitude, $0.latitude) }.joined(separator: ",")
            text += #"{"type":"Feature","id":\#(i),"properties":{"name":"t\#(i)"},"geometry":{"type":"LineString","coordinates":[\#(coords)]}}"#
        }
        text += "]}"
        return Array(text.utf8)
    }
}

/// Counts and drops tiles.
struct DiscardingSink: TileSink {
    func put(_ tile: TileID, gzipData: [UInt8]) throws {}
}
