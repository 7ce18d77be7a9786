import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport

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
        let survey = Self.survey(routes, options: options)
        let shard = try PyramidShard(plan: try survey.plan(shards: count), index: index)
        let (held, tiles) = try build(routes, shard: shard, survey: survey)
        return (shard, held, tiles, survey.metadata(name: "x"))
    }

    static func survey(_ routes: [Route], options: TilingOptions) -> ShardSurvey {
        var survey = ShardSurvey(options: options)
        for route in routes {
            survey.add(route, lines: ProjectedRouteSet.drawnLines(of: route, geodesicTolerance: options.geodesicTolerance))
        }
        return survey
    }

    /// The tiles of `shard` from the routes it keeps of `routes`, and how many it kept.
    static func build(_ routes: [Route], shard: PyramidShard, survey: ShardSurvey) throws -> (Int, [TileID: [UInt8]]) {
        var kept = ShardRoutes(shard: shard, survey: survey)
        for route in routes { kept.offer(route) }
        let sink = CollectingSink()
        _ = try PyramidBuilder(tiler: RouteTiler(projected: kept.projected, options: survey.options), threads: 2,
                               shard: shard).build(into: sink)
        return (kept.projected.routeInfos.count, sink.all)
    }

    /// Describes how two pyramids differ, or nil when they are the same.
    static func difference(_ joined: [TileID: [UInt8]], _ single: [TileID: [UInt8]]) -> String? {
        let missing = Set(single.keys).subtracting(joined.keys), extra = Set(joined.keys).subtracting(single.keys)
        let differing = single.keys.filter { joined[$0] != nil && joined[$0] != single[$0] }
        guard !missing.isEmpty || !extra.isEmpty || !differing.isEmpty else { return nil }
        return "\(missing.count) missing (such as \(missing.sorted().prefix(3))), \(extra.count) extra, "
            + "\(differing.count) differing (such as \(differing.sorted().prefix(3)))"
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
        #expect(Self.difference(joined, single) == nil, "\(Self.difference(joined, single) ?? "")")
        #expect(single.count > 300)
    }

    /// A route that lies in one part's tile but within the buffer of another part's tile is held, and drawn, by
    /// both; a route far from a part's tiles is not held by it. Two parts split at zoom 1 between the tiles west
    /// and east of the prime meridian (north of the equator).
    @Test func aRouteWithinTheBufferOfAnotherPartsTileIsHeldByThatPart() throws {
        var options = Sample.options(minZoom: 1, maxZoom: 6)
        options.buffer = 256
        let west = TileID(z: 1, x: 0, y: 0), east = TileID(z: 1, x: 1, y: 0)
        let start = max(west.hilbertIndex, east.hilbertIndex)
        let plan = try ShardPlan(count: 2, splitZoom: 1, starts: [start])
        let westShard = try PyramidShard(plan: plan, index: plan.owner(of: west))
        let eastShard = try PyramidShard(plan: plan, index: plan.owner(of: east))
        #expect(westShard.index != eastShard.index)
        // East of the meridian by 1–3°, inside the eastern tile; the buffer of 256 units at zoom 1 reaches 11.25°.
        let nearTheEdge = Route(id: .number(1), parts: [[Coordinate(longitude: 1, latitude: 40), Coordinate(longitude: 3, latitude: 42)]])
        let farEast = Route(id: .number(2), parts: [[Coordinate(longitude: 100, latitude: 40), Coordinate(longitude: 101, latitude: 41)]])
        func lines(_ route: Route) -> [[Coordinate]] {
            ProjectedRouteSet.drawnLines(of: route, geodesicTolerance: options.geodesicTolerance)
        }
        #expect(westShard.needs(lines(nearTheEdge), options: options))
        #expect(eastShard.needs(lines(nearTheEdge), options: options))
        #expect(!westShard.needs(lines(farEast), options: options))
        #expect(eastShard.needs(lines(farEast), options: options))
        // And the parts built from what they hold write the single build's tiles.
        let routes = [nearTheEdge, farEast]
        let (_, single) = try Sample.build(routes, options)
        var joined: [TileID: [UInt8]] = [:]
        for shard in [westShard, eastShard] {
            joined.merge(try Self.build(routes, shard: shard, survey: Self.survey(routes, options: options)).1) { a, _ in a }
        }
        #expect(single[west] != nil, "the western tile holds the route near its edge, in its buffer")
        #expect(Self.difference(joined, single) == nil, "\(Self.difference(joined, single) ?? "")")
    }

    /// A part that meets a layer only after others numbers the layers as the whole input does, so its tiles hold
    /// them in the same order: the first maneuver is in Sydney, in one part; the steps and maneuvers of Zurich,
    /// steps first, in the other.
    @Test func aPartNumbersTheLayersAsTheWholeInputDoes() throws {
        let options = Sample.options(minZoom: 1, maxZoom: 8)
        let north = TileID(z: 1, x: 1, y: 0), south = TileID(z: 1, x: 1, y: 1)
        let plan = try ShardPlan(count: 2, splitZoom: 1, starts: [max(north.hilbertIndex, south.hilbertIndex)])
        #expect(plan.owner(of: north) != plan.owner(of: south))
        var routes = [Route(parts: [[Coordinate(longitude: 151.2, latitude: -33.87)]], layer: "maneuvers", kind: .point)]
        for step in 0..<3 {
            let a = Coordinate(longitude: 8.54 + Double(step) * 0.01, latitude: 47.37)
            let b = Coordinate(longitude: 8.55 + Double(step) * 0.01, latitude: 47.371)
            routes.append(Route(properties: [Property("step", .int(Int64(step)))], parts: [[a, b]], layer: "steps"))
            routes.append(Route(parts: [[a]], layer: "maneuvers", kind: .point))
        }
        routes.append(Route(parts: [[Coordinate(longitude: 8.5, latitude: 47.3), Coordinate(longitude: 8.6, latitude: 47.4)]]))
        let (_, single) = try Sample.build(routes, options)
        let survey = Self.survey(routes, options: options)
        var joined: [TileID: [UInt8]] = [:]
        for index in 0..<2 {
            joined.merge(try Self.build(routes, shard: PyramidShard(plan: plan, index: index), survey: survey).1) { a, _ in a }
        }
        #expect(Self.difference(joined, single) == nil, "\(Self.difference(joined, single) ?? "")")
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
