import Testing
import RouteTiles
import RouteTilesCoreTestSupport
@_spi(Columns) import RouteTilesModel
@_spi(Columns) import RouteTilesGeo

@Suite struct PyramidTests {
    static func randomRoutes(seed: UInt64, count: Int, points: Int, step: Double) -> [Route] {
        var rng = SeededGenerator(seed: seed)
        var routes: [Route] = []
        for i in 0..<count {
            let id: RouteID? = i % 3 == 0 ? .string("route-\(i)") : (i % 3 == 1 ? .number(UInt64(1000 + i)) : nil)
            let lon = Double.random(in: -10...10, using: &rng), lat = Double.random(in: 40...50, using: &rng)
            let track = Sample.track(count: points, lon: lon, lat: lat, step: step, using: &rng)
            let properties = [Property("name", .string("r\(i)")), Property("rank", .int(Int64(i) - 5))]
            routes.append(Route(id: id, properties: properties, parts: [track]))
        }
        return routes
    }

    /// Every tile the pyramid writes, at every zoom, holds for each route what an independent clip of the route to
    /// the buffered tile gives (within a unit), with the route's stable id, and no tile the clip reaches is missing.
    /// Simplification is off, so that every vertex is kept. A route shorter than a unit at low zooms is a stub there.
    @Test func everyTileMatchesAnIndependentClip() throws {
        let tiny = Route(id: .string("tiny"), parts: [[Coordinate(longitude: 5, latitude: 45),
                                                       Coordinate(longitude: 5.0001, latitude: 45.0001)]])
        let routes = Self.randomRoutes(seed: 1, count: 12, points: 400, step: 0.02) + [tiny]
        var options = Sample.options(maxZoom: 12)
        options.simplification = 0
        let (tiler, tiles) = try Sample.build(routes, options)
        #expect(tiles.count > 50)
        let ids = routes.enumerated().map { ProjectedRouteSet.featureID(for: $0.element.id, index: $0.offset) }
        #expect(tiler.projected.routeInfos.map(\.featureID) == ids)
        let reference = ReferenceClip(extent: options.extent, buffer: options.buffer)
        for z in 0...options.maxZoom {
            let expected = reference.cut(tiler.projected, zoom: z)
            let written = tiles.keys.filter { $0.z == z }
            var problems: [String] = []
            for tile in Set(written).union(expected.keys) {
                var layer: DecodedLayer?
                if let data = tiles[tile] {
                    let decoded = try #require(try Sample.decode(data).layers.first)
                    #expect(decoded.name == "routes" && decoded.extent == 4096 && decoded.version == 2)
                    layer = decoded
                }
                problems += ReferenceClip.differences(in: tile, layer: layer, expected: expected[tile] ?? [:], featureIDs: ids)
            }
            #expect(problems.isEmpty, "z\(z): \(problems.count) differences, first \(problems.prefix(3))")
        }
    }

    /// The maxzoom tiles together reconstruct each route: every input vertex appears, within one unit, in the
    /// feature of its route in the tile that holds it.
    @Test func maxZoomTilesReconstructTheRoutes() throws {
        let routes = Self.randomRoutes(seed: 2, count: 6, points: 300, step: 0.01)
        let maxZoom = 13
        let (_, tiles) = try Sample.build(routes, Sample.options(minZoom: maxZoom, maxZoom: maxZoom))
        var decoded: [TileID: DecodedTile] = [:]
        for (index, route) in routes.enumerated() {
            let id = ProjectedRouteSet.featureID(for: route.id, index: index)
            for c in route.parts[0] {
                let tile = WebMercator.tile(containing: c, zoom: maxZoom)
                if decoded[tile] == nil { decoded[tile] = try Sample.decode(try #require(tiles[tile])) }
                let feature = try #require(decoded[tile]?.layers.first?.features.first { $0.id == id })
                let p = WebMercator.project(c)
                let size = WebMercator.tileSize(zoom: maxZoom)
                let tx = (p.x - Double(tile.x) * size) / size * 4096, ty = (p.y - Double(tile.y) * size) / size * 4096
                let near = feature.geometry.points.contains { abs(Double($0.x) - tx) <= 1 && abs(Double($0.y) - ty) <= 1 }
                #expect(near, "vertex \(c) of route \(index) missing from \(tile)")
            }
        }
    }

    /// The index answers any tile with exactly the bytes the top-down pyramid wrote, and nothing where the
    /// pyramid wrote nothing.
    @Test func onDemandTilesEqualPyramidTiles() throws {
        let routes = Self.randomRoutes(seed: 3, count: 10, points: 300, step: 0.03)
        let (tiler, tiles) = try Sample.build(routes, Sample.options(maxZoom: 11))
        for (tile, data) in tiles {
            let onDemand = try #require(try tiler.tile(z: tile.z, x: tile.x, y: tile.y))
            #expect(try Gzip.decompress(data) == onDemand, "\(tile)")
        }
        // Neighbours of written tiles that the pyramid left empty are empty on demand too.
        for tile in tiles.keys where tile.z == 11 {
            for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                let n = TileID(z: 11, x: tile.x + dx, y: tile.y + dy)
                if n.isValid && tiles[n] == nil { #expect(try tiler.tile(z: n.z, x: n.x, y: n.y) == nil) }
            }
        }
    }

    @Test func outputIsIdenticalAtAnyThreadCount() throws {
        let routes = Self.randomRoutes(seed: 4, count: 8, points: 500, step: 0.02)
        let options = Sample.options(maxZoom: 12)
        let (_, one) = try Sample.build(routes, options, threads: 1)
        let (_, two) = try Sample.build(routes, options, threads: 2)
        let (_, five) = try Sample.build(routes, options, threads: 5)
        #expect(one == two)
        #expect(one == five)
    }

    @Test func featureIDsAreStableAcrossZooms() throws {
        let routes = [Route(id: .number(42), parts: [[Coordinate(longitude: 2, latitude: 48), Coordinate(longitude: 2.5, latitude: 48.5)]]),
                      Route(id: .string("tgv"), parts: [[Coordinate(longitude: 3, latitude: 47), Coordinate(longitude: 3.2, latitude: 46)]]),
                      Route(parts: [[Coordinate(longitude: 1, latitude: 45), Coordinate(longitude: 1.1, latitude: 45.2)]])]
        let (_, tiles) = try Sample.build(routes, Sample.options(maxZoom: 8))
        var idsPerZoom: [Int: Set<UInt64>] = [:]
        for (tile, data) in tiles {
            for f in try Sample.decode(data).layers[0].features { idsPerZoom[tile.z, default: []].insert(try #require(f.id)) }
        }
        let expected: Set<UInt64> = [42, FNV1a.hash("tgv"), 2]
        for z in 0...8 { #expect(idsPerZoom[z] == expected) }
        #expect(FNV1a.hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash("a") == 0xaf63_dc4c_8601_ec8c)
    }

    @Test func propertiesAndLengthAreWritten() throws {
        let route = Route(id: .number(7), properties: [Property("name", .string("Loop")), Property("length_m", .string("theirs"))],
                          parts: [[Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: 0, latitude: 1)]])
        let tiler = RouteTiler(routes: [route], options: Sample.options(maxZoom: 3))
        let mvt = try #require(try tiler.tile(z: 0, x: 0, y: 0))
        let feature = try #require(try VectorTileDecoder.decode(mvt).layers[0].features.first)
        #expect(feature.properties.first == Property("name", .string("Loop")))
        let length = try #require(feature.properties.first { $0.key == "length_m" })
        // One degree of latitude at the equator: 110,574.39 m on WGS84.
        guard case let .double(metres) = length.value else { Issue.record("length_m is not a double"); return }
        #expect(abs(metres - 110_574.39) < 0.5)
        #expect(feature.properties.filter { $0.key == "length_m" }.count == 1)
    }

    /// A route too short to span a unit at low zooms is never lost: it becomes a two-point stub.
    @Test func tinyRouteNeverVanishes() throws {
        let route = Route(parts: [[Coordinate(longitude: 5, latitude: 45), Coordinate(longitude: 5.0001, latitude: 45.0001)]])
        let (_, tiles) = try Sample.build([route], Sample.options(maxZoom: 14))
        for z in 0...14 {
            let tile = WebMercator.tile(containing: Coordinate(longitude: 5, latitude: 45), zoom: z)
            let data = try #require(tiles[tile], "z\(z)")
            let feature = try #require(try Sample.decode(data).layers[0].features.first)
            #expect(feature.geometry.parts.count == 1)
            #expect(Set(feature.geometry.parts[0]).count == 2)
        }
    }

    @Test func lineMetricsGiveDistancesAlongTheRoute() throws {
        var options = Sample.options(maxZoom: 4)
        options.lineMetrics = true
        let route = Route(id: .number(1), parts: [[Coordinate(longitude: -100, latitude: 0), Coordinate(longitude: 100, latitude: 0)]])
        let (tiler, tiles) = try Sample.build([route], options)
        let length = tiler.projected.routeInfos[0].lengthMetres
        var covered = 0.0
        for (tile, data) in tiles where tile.z == 4 {
            for f in try Sample.decode(data).layers[0].features {
                func number(_ key: String) -> Double? {
                    if case let .double(v)? = f.properties.first(where: { $0.key == key })?.value { return v }
                    return nil
                }
                let start = try #require(number("start_m")), end = try #require(number("end_m"))
                let clipStart = try #require(number("mapbox_clip_start")), clipEnd = try #require(number("mapbox_clip_end"))
                #expect(start < end)
                #expect(abs(clipStart - start / length) < 1e-6 && abs(clipEnd - end / length) < 1e-6)
                covered += end - start
            }
        }
        // Tiles overlap by their buffers, so the parts cover at least the whole route.
        #expect(covered >= length * 0.999)
    }

    /// A route from (179.5, 0) to (−179.5, 0) is drawn on both sides of the antimeridian at every zoom, and no
    /// segment in any tile spans more than the tile and its buffer.
    @Test func antimeridianCrossingIsDrawnOnBothSides() throws {
        let route = Route(parts: [[Coordinate(longitude: 179.5, latitude: 0), Coordinate(longitude: -179.5, latitude: 0)]])
        let (_, tiles) = try Sample.build([route], Sample.options(maxZoom: 8))
        for z in 1...8 {
            let n = 1 << z
            let east = tiles.keys.filter { $0.z == z && $0.x == n - 1 }
            let west = tiles.keys.filter { $0.z == z && $0.x == 0 }
            #expect(!east.isEmpty && !west.isEmpty, "z\(z)")
            #expect(tiles.keys.filter { $0.z == z }.allSatisfy { $0.x == 0 || $0.x == n - 1 }, "z\(z) has a tile mid-world")
        }
        for (tile, data) in tiles {
            for f in try Sample.decode(data).layers[0].features {
                for part in f.geometry.parts {
                    for (a, b) in zip(part, part.dropFirst()) { #expect(abs(Int(a.x) - Int(b.x)) <= 4096 + 128, "\(tile)") }
                }
            }
        }
        // At z0, one feature whose parts reach both the east and the west edge.
        let root = try #require(tiles[TileID(z: 0, x: 0, y: 0)])
        let world = try Sample.decode(root).layers[0].features
        #expect(world.count == 1)
        let xs = world[0].geometry.points.map(\.x)
        #expect(xs.contains { $0 <= 0 } && xs.contains { $0 >= 4096 })
    }

    @Test func emptyInputBuildsNothing() throws {
        let (_, tiles) = try Sample.build([], Sample.options(maxZoom: 5))
        #expect(tiles.isEmpty)
    }
}
