import Foundation
import RouteTiles
import RouteTilesCoreTestSupport
import Testing

/// The `density` layer (`DensityGrid`): per cell of a 64 × 64 grid over a tile, the route positions in it, at the
/// zooms up to `densityMaxZoom`.
@Suite struct DensityTests {
    /// Tracks over the whole world within ±80°, one across the antimeridian.
    static func worldRoutes(seed: UInt64, count: Int) -> [Route] {
        var rng = SeededGenerator(seed: seed)
        var routes = (0..<count).map { i in
            Route(id: .number(UInt64(i + 1)), properties: [],
                  parts: [Sample.track(count: Int.random(in: 2...400, using: &rng), lon: Double.random(in: -170...170, using: &rng),
                                       lat: Double.random(in: -75...75, using: &rng), step: 0.05, using: &rng)])
        }
        routes.append(Route(id: .number(9_999), properties: [],
                            parts: [(0..<50).map { Coordinate(longitude: 178 + Double($0) * 0.1, latitude: -16 + Double($0) * 0.01) }]))
        return routes
    }

    /// The density counts of a tile, by cell centre.
    static func density(_ mvt: [UInt8]?) throws -> [TilePoint: Int64] {
        guard let mvt, let layer = try VectorTileDecoder.decode(mvt).layer(named: "density") else { return [:] }
        var counts: [TilePoint: Int64] = [:]
        for feature in layer.features {
            #expect(feature.kind == .point && feature.id == nil && feature.geometry.points.count == 1)
            guard case let .int(n)? = feature.properties.first(where: { $0.key == "count" })?.value else {
                Issue.record("a density point without count")
                continue
            }
            counts[feature.geometry.points[0]] = n
        }
        return counts
    }

    /// At every zoom up to the density's, the counts of the zoom's tiles sum to the positions; deeper, no tile has
    /// the layer. The build and the tiler on demand agree.
    @Test(arguments: [1, 2] as [UInt64])
    func theCountsOfEachZoomSumToThePositions(seed: UInt64) throws {
        var options = Sample.options(maxZoom: 5)
        options.densityMaxZoom = 3
        let routes = Self.worldRoutes(seed: seed, count: 60)
        let (tiler, tiles) = try Sample.build(routes, options)
        let positions = routes.reduce(0) { $0 + $1.parts[0].count }
        #expect(tiler.projected.pointCount == positions)
        var sums = [Int: Int64]()
        for (tile, gzip) in tiles {
            let counts = try Self.density(Gzip.decompress(gzip))
            if tile.z > 3 { #expect(counts.isEmpty, "\(tile) has density below its max zoom") }
            sums[tile.z, default: 0] += counts.values.reduce(0, +)
        }
        for z in 0...3 { #expect(sums[z] == Int64(positions), "zoom \(z)") }
        let root = try #require(try tiler.tile(z: 0, x: 0, y: 0))
        #expect(try Self.density(root) == Self.density(Gzip.decompress(try #require(tiles[TileID(z: 0, x: 0, y: 0)]))))
        #expect(try Self.density(root).count > 100)
    }

    /// A cell's count is the positions that lie in it, worked out here from the coordinates alone.
    @Test func aCellCountsThePositionsInIt() throws {
        var options = Sample.options(maxZoom: 8)
        options.densityMaxZoom = 8
        // 30 positions in one cell of tile 8/130/90 and 12 in another, as two routes.
        let tile = TileID(z: 8, x: 130, y: 90)
        let box = WebMercator.bounds(of: tile, extent: 4096, buffer: 0)
        func point(cellX: Int, cellY: Int, k: Int) -> Coordinate {
            let size = (box.maxX - box.minX) / 64
            return WebMercator.unproject(MapPoint(x: box.minX + (Double(cellX) + 0.2 + 0.02 * Double(k)) * size,
                                                  y: box.minY + (Double(cellY) + 0.5) * size))
        }
        let routes = [Route(id: .number(1), properties: [], parts: [(0..<30).map { point(cellX: 10, cellY: 20, k: $0) }]),
                      Route(id: .number(2), properties: [], parts: [(0..<12).map { point(cellX: 40, cellY: 3, k: $0) }])]
        let tiler = RouteTiler(routes: routes, options: options)
        let counts = try Self.density(try tiler.tile(z: 8, x: 130, y: 90))
        #expect(counts == [TilePoint(x: 10 * 64 + 32, y: 20 * 64 + 32): 30, TilePoint(x: 40 * 64 + 32, y: 3 * 64 + 32): 12])
    }

    @Test func windowTilesAndNoneHaveNoDensity() throws {
        var options = Sample.options(maxZoom: 6)
        options.densityMaxZoom = nil
        let routes = Self.worldRoutes(seed: 3, count: 10)
        #expect(try Self.density(RouteTiler(routes: routes, options: options).tile(z: 0, x: 0, y: 0)).isEmpty)
        options.densityMaxZoom = 6
        let timed = [Route(id: .number(1), properties: [], parts: [(0..<20).map { Coordinate(longitude: Double($0), latitude: 10) }],
                           times: (0..<20).map { 1_700_000_000_000 + Int64($0) * 60_000 })]
        let tiler = RouteTiler(routes: timed, options: options)
        #expect(try !Self.density(tiler.tile(z: 0, x: 0, y: 0)).isEmpty)
        let window = TimeWindow(from: 1_700_000_000_000, to: 1_700_000_600_000)
        #expect(try Self.density(tiler.tile(z: 0, x: 0, y: 0, window: window)).isEmpty)
    }

    /// A live set's tile counts what one tiler of the same routes counts, and follows appends.
    @Test func aLiveSetCountsAsOneTilerAndFollowsAppends() throws {
        var options = Sample.options(maxZoom: 6)
        options.densityMaxZoom = 4
        let routes = Self.worldRoutes(seed: 4, count: 30)
        let live = LiveRouteSet(routes: routes, options: options)
        let tiler = RouteTiler(routes: routes, options: options)
        for (z, x, y) in [(0, 0, 0), (1, 1, 0), (2, 3, 1), (4, 9, 5)] {
            #expect(try Self.density(live.snapshot.tile(z: z, x: x, y: y)) == Self.density(tiler.tile(z: z, x: x, y: y)))
        }
        let before = try Self.density(live.snapshot.tile(z: 0, x: 0, y: 0)).values.reduce(0, +)
        _ = live.apply([.append(key: "1", points: [Coordinate(longitude: 10, latitude: 10), Coordinate(longitude: 10.5, latitude: 10)])])
        let after = try Self.density(live.snapshot.tile(z: 0, x: 0, y: 0)).values.reduce(0, +)
        #expect(after == before + 2)
    }
}
