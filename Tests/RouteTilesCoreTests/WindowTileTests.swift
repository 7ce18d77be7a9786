import Foundation
import Testing
import RouteTiles
@_spi(Columns) import RouteTilesModel
@_spi(Columns) import RouteTilesGeo
@testable import RouteTilesTiling
@testable import RouteTilesLive
import RouteTilesCoreTestSupport

/// Window tiles (`RouteTiler.tile(z:x:y:window:)`): for random windows on tracks with times, the decoded tile is the
/// track cut to the window, its ends at the positions interpolated at the window's bounds, within the tolerance of the
/// other geometry tests; routes without times are left out.
@Suite struct WindowTileTests {
    /// The decoded lines of a tile, in map points, each with its piece's bounds.
    static func lines(_ bytes: [UInt8]?, tile: TileID, extent: Int) throws -> [[MapPoint]] {
        guard let bytes else { return [] }
        let size = WebMercator.tileSize(zoom: tile.z)
        var lines: [[MapPoint]] = []
        for feature in try VectorTileDecoder.decode(bytes).layer(named: "routes")?.features ?? [] {
            var start = 0
            for end in feature.geometry.partEnds {
                lines.append(feature.geometry.points[start..<end].map { p in
                    MapPoint(x: (Double(tile.x) + Double(p.x) / Double(extent)) * size,
                             y: (Double(tile.y) + Double(p.y) / Double(extent)) * size)
                })
                start = end
            }
        }
        return lines
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aWindowTileIsTheTrackCutToTheWindow(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let options = Sample.options(maxZoom: 14)
        let route = TimePiecesTests.timedTrack(count: 300, lon: 2.3, lat: 48.85, start: 1_795_788_000_000, using: &rng)
        let other = Route(id: .string("untimed"), parts: route.parts)
        let tiler = RouteTiler(routes: [route, other], options: options)
        let times = (route.times ?? []).map { Double($0) / 1000 }
        let span = times[times.count - 1] - times[0]
        let cover = RouteCover.tiles(of: route, options: options)
        for round in 0..<6 {
            // A random window within the track (some open at one end), to the millisecond.
            let a = times[0] + Double.random(in: 0...span, using: &rng)
            let b = min(a + Double.random(in: 30...span / 3, using: &rng), times[times.count - 1] + 60)
            let window = TimeWindow(from: round == 4 ? nil : Int64((a * 1000).rounded()),
                                    to: round == 5 ? nil : Int64((b * 1000).rounded()))
            let from = window.from.map { Double($0) / 1000 } ?? -.infinity
            let to = window.to.map { Double($0) / 1000 } ?? .infinity
            let inside = TimePiecesTests.stretch(of: route, from: from, to: to)
            for zoom in [12, 14] {
                let size = WebMercator.tileSize(zoom: zoom), unit = size / Double(options.extent)
                for tile in cover where tile.z == zoom {
                    let bytes = try tiler.tile(z: tile.z, x: tile.x, y: tile.y, window: window)
                    if let bytes {
                        let features = try VectorTileDecoder.decode(bytes).layer(named: "routes")?.features ?? []
                        #expect(features.allSatisfy { $0.id == 0 || $0.id == FNV1a.hash("van") })
                        #expect(!features.contains { $0.id == FNV1a.hash("untimed") }, "a route without times is in a window")
                    }
                    let drawn = try Self.lines(bytes, tile: tile, extent: options.extent)
                    // Every vertex drawn lies on the track within the window.
                    for p in drawn.joined() {
                        let off = TimePiecesTests.distance(p, toPolyline: inside) / unit
                        #expect(off <= 1.5, "\(tile) \(window): a vertex lies \(off) units off the track in the window")
                    }
                    // Every point of the track within the window and well inside the tile is drawn: sampled every
                    // few units along each stretch of it.
                    let box = WebMercator.bounds(of: tile, extent: options.extent, buffer: -8)
                    for k in stride(from: 0, to: inside.count - 1, by: 2) {
                        let p = inside[k], q = inside[k + 1]
                        let steps = max(1, Int(hypot(q.x - p.x, q.y - p.y) / (4 * unit)))
                        for s in 0...steps {
                            let f = Double(s) / Double(steps)
                            let point = MapPoint(x: p.x + (q.x - p.x) * f, y: p.y + (q.y - p.y) * f)
                            guard point.x > box.minX, point.x < box.maxX, point.y > box.minY, point.y < box.maxY
                            else { continue }
                            let off = drawn.map { TimePiecesTests.distance(point, toPolyline: $0) }.min() ?? .infinity
                            #expect(off / unit <= 2.5, "\(tile) \(window): the track at \(point) is not drawn (\(off / unit) units)")
                        }
                    }
                }
            }
        }
    }

    /// A window bound falls inside a segment: the line ends at the position interpolated at that time, and a
    /// window that holds no position of a route leaves it out.
    @Test func theLineEndsAtThePositionOfTheBound() throws {
        let a = Coordinate(longitude: 2.30, latitude: 48.85), b = Coordinate(longitude: 2.31, latitude: 48.85)
        let route = Route(id: .string("r"), parts: [[a, b]], times: [1_795_788_000_000, 1_795_788_100_000])
        let tiler = RouteTiler(routes: [route], options: Sample.options(maxZoom: 14))
        let tile = WebMercator.tile(containing: WebMercator.project(a), zoom: 14)
        // The middle fifth of the segment in time.
        let window = TimeWindow(from: 1_795_788_040_000, to: 1_795_788_060_000)
        let lines = try Self.lines(try tiler.tile(z: 14, x: tile.x, y: tile.y, window: window), tile: tile, extent: 4096)
        let pa = WebMercator.project(a), pb = WebMercator.project(b)
        let unit = WebMercator.tileSize(zoom: 14) / 4096
        let xs = lines.flatMap { $0 }.map(\.x)
        #expect(abs(try #require(xs.min()) - (pa.x + (pb.x - pa.x) * 0.4)) <= unit)
        #expect(abs(try #require(xs.max()) - (pa.x + (pb.x - pa.x) * 0.6)) <= unit)
        // Before the route's first time, and after its last: nothing.
        #expect(try tiler.tile(z: 14, x: tile.x, y: tile.y, window: TimeWindow(from: nil, to: 1_795_787_999_999)) == nil)
        #expect(try tiler.tile(z: 14, x: tile.x, y: tile.y, window: TimeWindow(from: 1_795_788_100_001, to: nil)) == nil)
        // A window of an instant draws where the route was then, as the stub a piece too short to draw becomes: two
        // points a tile unit apart.
        let instant = try Self.lines(try tiler.tile(z: 14, x: tile.x, y: tile.y,
                                                    window: TimeWindow(from: 1_795_788_050_000, to: 1_795_788_050_000)),
                                     tile: tile, extent: 4096)
        #expect(instant.count == 1 && instant[0].count == 2)
        let middle = MapPoint(x: (pa.x + pb.x) / 2, y: pa.y)
        #expect(instant.joined().allSatisfy { hypot($0.x - middle.x, $0.y - middle.y) <= 1.5 * unit })
    }

    /// Live routes cut window tiles from the same snapshot; no position layer in them.
    @Test func liveRoutesCutWindowTilesWithoutThePositionLayer() throws {
        var rng = SeededGenerator(seed: 8)
        var options = Sample.options(maxZoom: 14)
        options.positionLayer = "positions"
        options.routeLength = false
        let route = TimePiecesTests.timedTrack(count: 100, lon: 2.3, lat: 48.85, start: 1_795_788_000_000, using: &rng)
        let live = LiveRouteSet(routes: [route], options: options)
        let tiler = RouteTiler(routes: [route], options: options)
        let times = try #require(route.times)
        let window = TimeWindow(from: times[20], to: times[60])
        var compared = 0
        for tile in RouteCover.tiles(of: route, options: options) where tile.z >= 10 {
            let fromLive = try live.snapshot.tile(z: tile.z, x: tile.x, y: tile.y, window: window)
            #expect(fromLive == (try tiler.tile(z: tile.z, x: tile.x, y: tile.y, window: window)), "\(tile)")
            if let fromLive {
                compared += 1
                #expect(try VectorTileDecoder.decode(fromLive).layer(named: "positions") == nil)
            }
        }
        #expect(compared > 0)
    }
}
