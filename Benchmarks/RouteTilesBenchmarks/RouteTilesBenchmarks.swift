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
                blackHole(try tiler.tile(z: tile.z, x: tile.x, y: tile.y))
            }
        } setup: {
            cullingScene(others: others)
        }
    }

    // The whole pyramid z0–14 of 200,000 GPS points (20 tracks), into memory: input points/s.
    Benchmark("Build z0-14, 200k points (points/s)",
              configuration: .init(metrics: [.wallClock, .throughput, .peakMemoryResident], maxDuration: .seconds(20),
                                   maxIterations: 5, thresholds: nil)) { (benchmark: Benchmark, routes: [Route]) in
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

    // What a PUT of a 100,000-point track costs on the server, part by part: the tiler (projection, lengths,
    // simplification importance, index), then the cover at z0–14.
    let putRoute: @Sendable () -> Route = {
        var points: [Coordinate] = []
        var lon = 13.4, lat = 52.5, heading = 0.0
        for i in 0..<100_000 {
            // Rounded to 7 decimals, as the JSON body of Benchmarks/scripts/live_append.sh writes them.
            points.append(Coordinate(longitude: (lon * 1e7).rounded() / 1e7, latitude: (lat * 1e7).rounded() / 1e7))
            heading += sin(Double(i) * 0.37) * 0.5
            lon += cos(heading) * 0.0001
            lat += sin(heading) * 0.00007
        }
        return Route(id: .string("long"), parts: [points])
    }
    Benchmark("PUT 100k points: tiler",
              configuration: .init(metrics: [.wallClock], maxDuration: .seconds(10), maxIterations: 20)) { (benchmark: Benchmark, route: Route) in
        for _ in benchmark.scaledIterations {
            blackHole(RouteTiler(routes: [route], options: TilingOptions()))
        }
    } setup: { () -> Route in putRoute() }
    Benchmark("PUT 100k points: cover z0-14",
              configuration: .init(metrics: [.wallClock], maxDuration: .seconds(10), maxIterations: 20)) { (benchmark: Benchmark, tiler: RouteTiler) in
        for _ in benchmark.scaledIterations {
            blackHole(tiler.cover())
        }
    } setup: { () -> RouteTiler in RouteTiler(routes: [putRoute()], options: TilingOptions()) }

    // What an append to a live track costs in the tiler: 10 points at a time, each append extending the tiler the
    // previous one made (as the server does), on a 100,000-point and a 1,000,000-point track. With the columns
    // shared between snapshots and the appended runs in a small second tree, the two should cost the same.
    for length in [100_000, 1_000_000] {
        Benchmark("Append 10 points to a \(length / 1000)k-point tiler",
                  configuration: .init(metrics: [.wallClock], maxDuration: .seconds(10), maxIterations: 2_000)) {
            (benchmark: Benchmark, track: GrowingTrack) in
            // The track carries over between runs of this closure: every append extends the newest tiler, as the
            // server's do. (An append to an older tiler copies the columns: not what this measures.)
            for _ in benchmark.scaledIterations { track.append10() }
            blackHole(track.tiler)
        } setup: { () -> GrowingTrack in
            // The 100,000-point track, repeated eastwards to the length wanted.
            let base = putRoute().parts[0]
            var points: [Coordinate] = []
            points.reserveCapacity(length)
            while points.count < length {
                let shift = 0.5 * Double(points.count / base.count)
                points += base.prefix(length - points.count).map { Coordinate(longitude: $0.longitude + shift, latitude: $0.latitude) }
            }
            let tiler = RouteTiler(routes: [Route(id: .string("long"), parts: [points])], options: TilingOptions())
            return GrowingTrack(tiler: tiler, last: points[points.count - 1])
        }
    }

    // What a round of group commit costs the live set under a fleet's batched load (Docs/BENCHMARKS.md, "Live
    // tracking for a fleet"): 3,200 fixes to random vehicles among 10,000 tracks of 500 positions in Paris, one
    // `LiveRouteSet.apply` (a route drawn twice appends twice), as `serve --store` tiles them. Throughput is in
    // rounds per second: fixes/s = 3,200 × that.
    Benchmark("Fleet round: 3,200 fixes to 10,000 tracks",
              configuration: .init(metrics: [.wallClock, .throughput, .cpuTotal, .mallocCountTotal],
                                   maxDuration: .seconds(20), maxIterations: 200)) { (benchmark: Benchmark, fleet: GrowingFleet) in
        for _ in benchmark.scaledIterations { blackHole(fleet.round(fixes: 3_200)) }
    } setup: { () -> GrowingFleet in GrowingFleet(vehicles: 10_000, points: 500) }

    // Reading every other format: the same 200,000 positions (20 tracks of 10,000), so that MB/s and points/s
    // compare. Throughput is in reads per second; points/s = 200,000 × that, MB/s = the input's size × that
    // (sizes: swift package benchmark prints them in the setup's log line).
    for format in BenchmarkFormat.allCases {
        Benchmark("Read \(format.rawValue), 200k points",
                  configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 50)) { (benchmark: Benchmark, input: BenchmarkFormat.Input) in
            for _ in benchmark.scaledIterations {
                blackHole(try RouteReader.read(bytes: input.bytes, name: input.name, format: input.format, options: input.options))
            }
        } setup: { () -> BenchmarkFormat.Input in
            let input = format.input(benchmarkTracks())
            print("Read \(format.rawValue): \(input.bytes.count) bytes")
            return input
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

/// The 20 tracks of 10,000 points the read benchmarks share.
func benchmarkTracks() -> [[Coordinate]] {
    var rng = Seeded(state: 9)
    return (0..<20).map { _ in track(count: 10_000, lon: 2.35, lat: 48.86, rng: &rng) }
}

/// One input format of the read benchmarks, written from the same tracks.
enum BenchmarkFormat: String, CaseIterable {
    case csv = "CSV"
    case polyline5 = "polylines (precision 5)"
    case polyline6 = "polylines (precision 6)"
    case ndjson = "NDJSON"
    case gpx = "GPX"
    case google = "Google directions"
    case osrm = "OSRM directions"
    case valhalla = "Valhalla directions"

    struct Input {
        var bytes: [UInt8]
        var name: String
        var format: InputFormat
        var options = ReadOptions()
    }

    func input(_ tracks: [[Coordinate]]) -> Input {
        func coordinate(_ c: Coordinate) -> String { String(format: "%.7f,%.7f", c.latitude, c.longitude) }
        var text = ""
        switch self {
        case .csv:
            text = "route,lat,lon\n"
            for (i, t) in tracks.enumerated() { for c in t { text += "\(i),\(coordinate(c))\n" } }
            return Input(bytes: Array(text.utf8), name: "bench.csv", format: .csv)
        case .polyline5, .polyline6:
            let precision = self == .polyline5 ? 5 : 6
            for (i, t) in tracks.enumerated() { text += "t\(i)\t" + PolylineCodec.encode(t, precision: precision) + "\n" }
            return Input(bytes: Array(text.utf8), name: "bench.polyline", format: .polyline, options: ReadOptions(precision: precision))
        case .ndjson:
            for (i, t) in tracks.enumerated() {
                let coords = t.map { String(format: "[%.7f,%.7f]", $0.longitude, $0.latitude) }.joined(separator: ",")
                text += #"{"type":"Feature","id":\#(i),"properties":{},"geometry":{"type":"LineString","coordinates":[\#(coords)]}}"# + "\n"
            }
            return Input(bytes: Array(text.utf8), name: "bench.ndjson", format: .geojsonseq)
        case .gpx:
            text = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="bench">"# + "\n"
            for (i, t) in tracks.enumerated() {
                text += "<trk><name>t\(i)</name><trkseg>\n"
                for (k, c) in t.enumerated() {
                    text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>2026-06-01T%02d:%02d:%02dZ</time></trkpt>\n",
                                   c.latitude, c.longitude, k / 3600 % 24, k / 60 % 60, k % 60)
                }
                text += "</trkseg></trk>\n"
            }
            text += "</gpx>\n"
            return Input(bytes: Array(text.utf8), name: "bench.gpx", format: .gpx)
        case .google, .osrm, .valhalla:
            // Each track one route, cut into 20 steps.
            var routes: [String] = []
            for t in tracks {
                let steps = stride(from: 0, to: t.count - 1, by: t.count / 20).map { Array(t[$0...min($0 + t.count / 20, t.count - 1)]) }
                switch self {
                case .google:
                    let stepText = steps.map { s in
                        #"{"html_instructions":"Turn <b>left</b>","distance":{"value":500},"duration":{"value":60},"maneuver":"turn-left","start_location":{"lat":\#(s[0].latitude),"lng":\#(s[0].longitude)},"polyline":{"points":"\#(PolylineCodec.encode(s).replacingOccurrences(of: "\\", with: "\\\\"))"}}"#
                    }.joined(separator: ",")
                    routes.append(#"{"summary":"A1","overview_polyline":{"points":"\#(PolylineCodec.encode(t).replacingOccurrences(of: "\\", with: "\\\\"))"},"legs":[{"distance":{"value":10000},"duration":{"value":1200},"steps":[\#(stepText)]}]}"#)
                case .osrm:
                    let stepText = steps.map { s in
                        #"{"name":"Main","distance":500,"duration":60,"geometry":"\#(PolylineCodec.encode(s, precision: 6).replacingOccurrences(of: "\\", with: "\\\\"))","maneuver":{"location":[\#(s[0].longitude),\#(s[0].latitude)],"bearing_before":0,"bearing_after":90,"type":"turn","modifier":"left"}}"#
                    }.joined(separator: ",")
                    routes.append(#"{"distance":10000,"duration":1200,"geometry":"\#(PolylineCodec.encode(t, precision: 6).replacingOccurrences(of: "\\", with: "\\\\"))","legs":[{"summary":"Main","steps":[\#(stepText)]}]}"#)
                default:
                    let step = t.count / 20
                    let maneuvers = (0..<20).map { k in
                        #"{"type":15,"instruction":"Turn left.","street_names":["Main"],"length":0.5,"time":60,"begin_shape_index":\#(k * step),"end_shape_index":\#(min((k + 1) * step, t.count - 1))}"#
                    }.joined(separator: ",")
                    routes.append(#"{"units":"kilometers","summary":{"length":10,"time":1200},"legs":[{"shape":"\#(PolylineCodec.encode(t, precision: 6).replacingOccurrences(of: "\\", with: "\\\\"))","maneuvers":[\#(maneuvers)]}]}"#)
                }
            }
            switch self {
            case .google: text = #"{"status":"OK","routes":[\#(routes.joined(separator: ","))]}"#
            case .osrm:
                let first = tracks[0][0]
                text = #"{"code":"Ok","waypoints":[{"location":[\#(first.longitude),\#(first.latitude)]}],"routes":[\#(routes.joined(separator: ","))]}"#
            default:
                text = #"{"trip":\#(routes[0]),"alternates":[\#(routes.dropFirst().map { #"{"trip":\#($0)}"# }.joined(separator: ","))]}"#
            }
            return Input(bytes: Array(text.utf8), name: "bench.json", format: .directions)
        }
    }
}

/// A live track for the append benchmark: its newest tiler and last position, extended 10 points at a time.
final class GrowingTrack: @unchecked Sendable {
    // @unchecked: used by one benchmark at a time, on one thread.
    var tiler: RouteTiler
    var last: Coordinate

    init(tiler: RouteTiler, last: Coordinate) {
        self.tiler = tiler
        self.last = last
    }

    func append10() {
        let points = (1...10).map { k in Coordinate(longitude: last.longitude + 0.00001 * Double(k), latitude: last.latitude) }
        guard let next = tiler.appending(points, after: last) else { return }
        tiler = next
        last = points[9]
    }
}

/// A fleet of live tracks in a `LiveRouteSet`, each going on ~30 m a fix from where it ends.
final class GrowingFleet: @unchecked Sendable {
    // @unchecked: used by one benchmark at a time, on one thread.
    let set: LiveRouteSet
    var ends: [(last: Coordinate, heading: Double)]
    var rng = Seeded(state: 7)

    init(vehicles: Int, points: Int) {
        var routes: [Route] = []
        ends = []
        for i in 0..<vehicles {
            let lon = Double.random(in: 2.25...2.45, using: &rng), lat = Double.random(in: 48.80...48.92, using: &rng)
            let line = track(count: points, lon: lon, lat: lat, rng: &rng)
            routes.append(Route(id: .string("veh-\(i)"), parts: [line]))
            ends.append((line[line.count - 1], Double.random(in: 0..<(2 * .pi), using: &rng)))
        }
        var options = TilingOptions()
        options.maxZoom = 14
        options.routeLength = false
        options.positionLayer = "positions"
        set = LiveRouteSet(routes: routes, options: options)
        _ = set.fillCovers()
    }

    /// One batch of `fixes` appends of one position each, to vehicles drawn at random.
    func round(fixes: Int) -> Int {
        var edits: [LiveRouteSet.Edit] = []
        edits.reserveCapacity(fixes)
        for _ in 0..<fixes {
            let k = Int.random(in: 0..<ends.count, using: &rng)
            var (last, heading) = ends[k]
            heading += Double.random(in: -0.3...0.3, using: &rng)
            let next = Coordinate(longitude: last.longitude + cos(heading) * 0.0004, latitude: last.latitude + sin(heading) * 0.00027)
            ends[k] = (next, heading)
            last = next
            edits.append(.append(key: "veh-\(k)", points: [next], time: 1_790_000_000))
        }
        return set.apply(edits).invalidated.count
    }
}
