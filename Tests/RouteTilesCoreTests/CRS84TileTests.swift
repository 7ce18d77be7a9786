import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport

/// Tiles of WorldCRS84Quad (`CRS84TileID`): rectangles of longitude and latitude, cut from the same projected routes
/// and index as the Web Mercator tiles, with x by longitude and y by latitude.
@Suite struct CRS84TileTests {
    /// The tile of WorldCRS84Quad that holds a position at zoom `z`.
    static func tile(containing c: Coordinate, zoom z: Int) -> CRS84TileID {
        let side = 180 / Double(1 << z)
        return CRS84TileID(z: z, row: min(Int(((90 - c.latitude) / side).rounded(.down)), (1 << z) - 1),
                           column: min(Int(((c.longitude + 180) / side).rounded(.down)), (2 << z) - 1))
    }

    @Test func addressesFollowTheMatrixOfTwoColumnsByOneRowAtZoomZero() {
        #expect(CRS84TileID(z: 0, row: 0, column: 1).isValid)
        #expect(!CRS84TileID(z: 0, row: 1, column: 0).isValid)
        #expect(!CRS84TileID(z: 0, row: 0, column: 2).isValid)
        #expect(CRS84TileID(z: 3, row: 7, column: 15).isValid && !CRS84TileID(z: 3, row: 8, column: 15).isValid)
        #expect(!CRS84TileID(z: CRS84TileID.maxZoom + 1, row: 0, column: 0).isValid && !CRS84TileID(z: -1, row: 0, column: 0).isValid)
        let tile = CRS84TileID(z: 2, row: 1, column: 5)
        #expect(tile.side == 45 && tile.west == 45 && tile.north == 45)
    }

    /// Property: at every zoom, the first vertex of each of 300 short lines scattered over the Mercator world lands
    /// within a unit of where its longitude and latitude put it in its tile (linear in both, which Mercator's y is
    /// not: at 60° a position lies 2.8 units of a z0 tile away from where Mercator's rows would put it, and more
    /// deeper).
    @Test func verticesLandWhereTheirLongitudeAndLatitudePutThem() throws {
        var rng = SeededGenerator(seed: 84)
        var options = TilingOptions()
        options.maxZoom = 14
        options.simplification = 0
        let starts = (0..<300).map { _ in
            Coordinate(longitude: Double.random(in: -179.9...179.9, using: &rng), latitude: Double.random(in: -84...84, using: &rng))
        }
        let routes = starts.enumerated().map { i, c in
            Route(id: .number(UInt64(i)), parts: [[c, Coordinate(longitude: c.longitude + 0.000_3, latitude: c.latitude - 0.000_2)]])
        }
        let tiler = RouteTiler(routes: routes, options: options)
        let ids = tiler.projected.routeInfos.map(\.featureID)
        var checked = 0
        for z in [0, 2, 5, 9, 13] {
            for (i, start) in starts.enumerated() {
                let tile = Self.tile(containing: start, zoom: z)
                let bytes = try #require(tiler.tile(tile), "tile \(tile) holds route \(i)")
                let layer = try #require(try VectorTileDecoder.decode(bytes).layer(named: "routes"))
                let feature = try #require(layer.features.first { $0.id == ids[i] }, "route \(i) in \(tile)")
                let first = try #require(feature.geometry.points.first)
                let ux = (start.longitude - tile.west) / tile.side * 4096, uy = (tile.north - start.latitude) / tile.side * 4096
                #expect(abs(Double(first.x) - ux) <= 1 && abs(Double(first.y) - uy) <= 1,
                        "route \(i) at \(start) in \(tile): (\(first.x), \(first.y)) against (\(ux), \(uy))")
                checked += 1
            }
        }
        #expect(checked == 1500)
    }

    /// Beyond the latitudes Web Mercator reaches (±85.05°) no route lies: such tiles are empty, the tile that reaches
    /// across that latitude holds the route.
    @Test func tilesBeyondMercatorsLatitudesAreEmpty() throws {
        var options = TilingOptions()
        options.maxZoom = 10
        let route = Route(parts: [[Coordinate(longitude: 10, latitude: 84.9), Coordinate(longitude: 10.5, latitude: 84.95)]])
        let tiler = RouteTiler(routes: [route], options: options)
        // z5: rows of 5.625°, row 0 from 90° to 84.375°; z6: row 0 from 90° to 87.1875°, row 1 below it.
        #expect(tiler.tile(Self.tile(containing: Coordinate(longitude: 10, latitude: 84.9), zoom: 5)) != nil)
        #expect(tiler.tile(CRS84TileID(z: 6, row: 0, column: Self.tile(containing: Coordinate(longitude: 10, latitude: 0), zoom: 6).column)) == nil)
        #expect(tiler.tile(CRS84TileID(z: 6, row: 1, column: Self.tile(containing: Coordinate(longitude: 10, latitude: 0), zoom: 6).column)) != nil)
        #expect(tiler.tile(CRS84TileID(z: 6, row: 64, column: 0)) == nil, "an address outside the matrix is no tile")
    }

    /// A route across the antimeridian lies in the first and the last column, never in between.
    @Test func aRouteAcrossTheAntimeridianLiesInTheEdgeColumns() throws {
        let route = Route(parts: [[Coordinate(longitude: 179.5, latitude: 10), Coordinate(longitude: -179.5, latitude: 10.2)]])
        let tiler = RouteTiler(routes: [route], options: TilingOptions())
        for z in [0, 3, 8] {
            let row = Self.tile(containing: Coordinate(longitude: 0, latitude: 10.1), zoom: z).row
            let columns = 2 << z
            let west = try #require(tiler.tile(CRS84TileID(z: z, row: row, column: 0)), "z\(z) first column")
            let east = try #require(tiler.tile(CRS84TileID(z: z, row: row, column: columns - 1)), "z\(z) last column")
            for bytes in [west, east] {
                let points = try #require(try VectorTileDecoder.decode(bytes).layer(named: "routes")).features.flatMap(\.geometry.points)
                // The line crosses the tile's edge: one end lies outside (the buffer), the other inside.
                #expect(points.contains { $0.x < 0 || $0.x > 4096 } && points.contains { $0.x >= 0 && $0.x <= 4096 }, "z\(z) \(points)")
            }
            if z > 0 { #expect(tiler.tile(CRS84TileID(z: z, row: row, column: columns / 2)) == nil) }
        }
    }

    /// The tiles of a live set (one tiler per route, with groups) are those of one tiler over all the routes; a
    /// group's tile holds its routes alone.
    @Test func liveRoutesCutTheSameTilesAndKeepGroupsApart() throws {
        var rng = SeededGenerator(seed: 9)
        let routes = ["a", "b", "a"].enumerated().map { i, group in
            Route(id: .number(UInt64(i)), properties: [Property("group", .string(group))],
                  parts: [Sample.track(count: 60, lon: 2.3 + Double(i) * 0.01, lat: 48.85, step: 0.0004, using: &rng)])
        }
        var options = Sample.options(minZoom: 0, maxZoom: 14)
        options.routeLength = true
        let sync = LiveRouteSync.inMemory(routes: routes, options: options)
        let tiler = RouteTiler(routes: routes, options: options)
        let groupA = GroupScope(claim: ["a"])
        for z in [0, 6, 12] {
            let tile = Self.tile(containing: routes[1].parts[0][30], zoom: z)
            #expect(sync.routes.snapshot.tile(tile) == tiler.tile(tile), "z\(z)")
            let bytes = try #require(sync.routes.snapshot.tile(tile, groups: groupA))
            let ids = try VectorTileDecoder.decode(bytes).layers.flatMap { $0.features.compactMap(\.id) }
            let b = tiler.projected.routeInfos[1].featureID
            #expect(!ids.isEmpty && !ids.contains(b), "z\(z): \(ids)")
        }
    }
}
