import Foundation
import Testing
@testable import RouteTiles

/// Sharded builds in-process: the plan, what a shard holds, and the tiles of all shards together against a single
/// build, byte for byte.
@Suite struct ShardedBuildTests {
    /// Routes that exercise what a shard must get right: dense tracks in a few places (so the plan splits deep),
    /// long lines across many tiles, a geodesic flight across the antimeridian, and directions whose steps and
    /// maneuvers are other layers (a shard must number the layers as the whole input does), the first of them
    /// appearing only late in the input.
    static func routes(seed: UInt64) -> [Route] {
        var rng = SeededGenerator(seed: seed)
        var routes: [Route] = []
        let places: [(Double, Double)] = [(2.35, 48.85), (13.4, 52.52), (-73.98, 40.75), (151.2, -33.87)]
        for i in 0..<24 {
            let place = places[i % places.count]
            let track = Sample.track(count: Int.random(in: 30...400, using: &rng), lon: place.0, lat: place.1,
                                     step: Double.random(in: 0.0005...0.01, using: &rng), using: &rng)
            routes.append(Route(id: i % 3 == 0 ? .string("track-\(i)") : nil,
                                properties: [Property("name", .string("track \(i)")), Property("n", .int(Int64(i)))],
                                parts: [track]))
        }
        routes.append(Route(properties: [Property("name", .string("a long line"))],
                            parts: [[Coordinate(longitude: -10, latitude: 40), Coordinate(longitude: 30, latitude: 60),
                                     Coordinate(longitude: 100, latitude: 10)]]))
        routes.append(Route(id: .number(7000), properties: [Property("flight", .string("SYD-LAX"))],
                            parts: [[Coordinate(longitude: 151.18, latitude: -33.95),
                                     Coordinate(longitude: -118.41, latitude: 33.94)]], geodesic: true))
        for step in 0..<6 {
            let a = Coordinate(longitude: 8.54 + Double(step) * 0.002, latitude: 47.37)
            let b = Coordinate(longitude: 8.54 + Double(step + 1) * 0.002, latitude: 47.371)
            routes.append(Route(properties: [Property("step", .int(Int64(step)))], parts: [[a, b]], layer: "steps"))
            routes.append(Route(properties: [Property("type", .string("turn"))], parts: [[a]], layer: "maneuvers",
                                kind: .point))
        }
        // A shard far from Zurich meets "maneuvers" first here, and would number the layers the other way round.
        routes.insert(Route(parts: [[Coordinate(longitude: 13.41, latitude: 52.52)]], layer: "maneuvers", kind: .point),
                      at: 3)
        return routes
    }

    /// The shard's tiles, built as `build --shard` builds them: a survey of every route, then a set of only the
    /// routes the shard needs, numbered as in the whole input.
    static func buildShard(_ routes: [Route], options: TilingOptions, index: Int, of count: Int)
        throws -> (shard: PyramidShard, held: Int, tiles: [TileID: [UInt8]], metadata: TilesetMetadata) {
        var survey = ShardSurvey(options: options)
        for route in routes {
            survey.add(route, lines: ProjectedRouteSet.drawnLines(of: route, geodesicTolerance: options.geodesicTolerance))
        }
        let shard = try PyramidShard(plan: try survey.plan(shards: count), index: index)
        var set = ProjectedRouteSet(layers: survey.layers)
        for (i, route) in routes.enumerated() {
            let lines = ProjectedRouteSet.drawnLines(of: route, geodesicTolerance: options.geodesicTolerance)
            if shard.needs(lines, options: options) { set.add(route, index: i, lines: lines) }
        }
        let sink = CollectingSink()
        _ = try PyramidBuilder(tiler: RouteTiler(projected: set, options: options), threads: 2, shard: shard).build(into: sink)
        return (shard, set.routeInfos.count, sink.all, survey.metadata(name: "x"))
    }

    @Test(arguments: [(2, UInt64(1)), (3, UInt64(2)), (4, UInt64(3)), (7, UInt64(4))])
    func theShardsTogetherWriteExactlyTheTilesOfASingleBuild(count: Int, seed: UInt64) throws {
        var options = Sample.options(maxZoom: 11)
        options.lineMetrics = seed == 2
        let routes = Self.routes(seed: seed)
        let (tiler, single) = try Sample.build(routes, options)
        var joined: [TileID: [UInt8]] = [:]
        var plan: ShardPlan?
        var fewestHeld = routes.count
        for index in 0..<count {
            let part = try Self.buildShard(routes, options: options, index: index, of: count)
            if let plan { #expect(part.shard.plan == plan, "every shard finds the same plan") }
            plan = part.shard.plan
            for (id, data) in part.tiles {
                #expect(joined[id] == nil, "tile \(id) written by two shards")
                #expect(part.shard.writes(id), "shard \(index) wrote \(id), which is shard \(part.shard.plan.owner(of: id))'s")
                joined[id] = data
            }
            #expect(part.metadata == TilesetMetadata(name: "x", tiler: tiler), "shard \(index)'s metadata is the whole's")
            if index > 0 { fewestHeld = min(fewestHeld, part.held) }
        }
        #expect(plan?.splitZoom ?? 0 > 0)
        if count >= 4 { #expect(fewestHeld < routes.count / 2, "every shard held at least half of the routes") }
        #expect(Set(joined.keys) == Set(single.keys), "missing \(Set(single.keys).subtracting(joined.keys).sorted().prefix(5)), extra \(Set(joined.keys).subtracting(single.keys).sorted().prefix(5))")
        let differing = single.keys.filter { joined[$0] != single[$0] }.sorted()
        #expect(differing.isEmpty, "\(differing.count) tiles differ, such as \(differing.prefix(5))")
        #expect(single.count > 300)
    }

    /// Along the Hilbert curve of each zoom, a tile's four children are positions 4p … 4p + 3 of its own position
    /// p: the plan relies on this to merge counts into ancestors and to find a tile's owner from its ancestor.
    @Test func aTilesChildrenFollowItOnTheHilbertCurve() {
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<2000 {
            let z = Int.random(in: 0...20, using: &rng)
            let tile = TileID(z: z, x: Int.random(in: 0..<(1 << z), using: &rng), y: Int.random(in: 0..<(1 << z), using: &rng))
            let positions = tile.children.map(\.hilbertIndex).sorted()
            #expect(positions == (0..<4).map { tile.hilbertIndex * 4 + UInt64($0) }, "\(tile)")
        }
    }

    /// Three quarters of the points in one small region and the rest spread over the world still give parts of
    /// about equal points (a split by area would not); a plan survives its label.
    @Test func aPlanBalancesPointsNotAreaAndReadsBackFromItsLabel() throws {
        var options = Sample.options(maxZoom: 14)
        options.minZoom = 0
        var rng = SeededGenerator(seed: 5)
        let lines = (0..<400).map { i in
            i % 4 == 0
                ? Sample.track(count: 250, lon: Double.random(in: -170...170, using: &rng),
                               lat: Double.random(in: -60...60, using: &rng), step: 0.01, using: &rng)
                : Sample.track(count: 250, lon: Double.random(in: 2...3, using: &rng),
                               lat: Double.random(in: 48...49, using: &rng), step: 0.001, using: &rng)
        }
        var survey = ShardSurvey(options: options)
        for line in lines { survey.add(Route(parts: [line]), lines: [line]) }
        let plan = try survey.plan(shards: 5)
        #expect(plan.count == 5 && plan.starts.count == 4)
        var pointsPerShard = [Int](repeating: 0, count: 5)
        for line in lines {
            for c in line { pointsPerShard[plan.owner(of: WebMercator.tile(containing: c, zoom: 14))] += 1 }
        }
        // Split by area, one shard would hold nearly everything. Shard 0 also writes the tiles above the split zoom
        // and holds every route, so it takes fewer.
        let mean = Double(pointsPerShard.dropFirst().reduce(0, +)) / 4
        for points in pointsPerShard.dropFirst() {
            #expect(abs(Double(points) - mean) < 0.1 * mean, "\(pointsPerShard), \(plan)")
        }
        #expect(Double(pointsPerShard[0]) <= mean, "\(pointsPerShard), \(plan)")
        for index in 0..<5 {
            let shard = try PyramidShard(plan: plan, index: index)
            #expect(try PyramidShard(label: shard.label) == shard)
        }
        #expect(throws: ShardPlanError.self) { try PyramidShard(label: "{\"shard\":5,\"of\":5,\"split_zoom\":2,\"starts\":[1,2,3,4]}") }
        #expect(throws: ShardPlanError.self) { try PyramidShard(label: "{\"shard\":0,\"of\":3,\"split_zoom\":2,\"starts\":[9,2]}") }
        #expect(throws: ShardPlanError.self) { try PyramidShard(label: "0/4") }
    }

    /// With one shard, or no zoom to split at, shard 0 is the whole build.
    @Test func oneShardIsTheWholeBuild() throws {
        let routes = Self.routes(seed: 9)
        var options = Sample.options(maxZoom: 0)
        let (_, single) = try Sample.build(routes, options)
        let zeroOfTwo = try Self.buildShard(routes, options: options, index: 0, of: 2)
        #expect(zeroOfTwo.tiles == single)
        #expect(try Self.buildShard(routes, options: options, index: 1, of: 2).tiles.isEmpty)
        options.maxZoom = 6
        #expect(try Self.buildShard(routes, options: options, index: 0, of: 1).tiles == (try Sample.build(routes, options)).1)
    }
}
