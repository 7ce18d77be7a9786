import Foundation
import Testing
import RouteTiles
@_spi(Columns) import RouteTilesModel
@_spi(Columns) import RouteTilesGeo
@testable import RouteTilesTiling
@testable import RouteTilesLive
import RouteTilesCoreTestSupport

/// The live-route engine: per-route tilers answering tiles together, and tilers extended point by point, must give
/// the bytes of an engine built from scratch over the same routes.
@Suite struct LiveTilingTests {
    /// Wraps longitudes into ±180°, as APIs write them (a track that crosses the antimeridian then jumps by 360°).
    static func wrapped(_ line: [Coordinate]) -> [Coordinate] {
        line.map { c in
            var lon = c.longitude.truncatingRemainder(dividingBy: 360)
            if lon >= 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            return Coordinate(longitude: lon, latitude: c.latitude)
        }
    }

    /// A route of one to three parts; the last one starts near `lon`.
    static func route(id: UInt64, lon: Double, lat: Double, lastPart: Int, step: Double,
                      using rng: inout SeededGenerator) -> Route {
        var parts: [[Coordinate]] = []
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            parts.append(Sample.track(count: Int.random(in: 2...60, using: &rng), lon: lon - 0.5, lat: lat - 0.3,
                                      step: step, using: &rng))
        }
        parts.append(Sample.track(count: lastPart, lon: lon, lat: lat, step: step, using: &rng))
        return Route(id: .number(id), properties: [Property("name", .string("route \(id)"))], parts: parts)
    }

    /// Every tile the routes touch at the zooms of `options`.
    /// Every (line, world copy, segment) of `runs`, in order.
    static func segments(_ runs: [SegmentSpan]) -> [[Int32]] {
        runs.flatMap { run in (run.first..<run.end).map { [run.line, run.shift, $0] } }
    }

    static func cover(_ routes: [Route], _ options: TilingOptions) -> [TileID] {
        var tiles = Set<TileID>()
        for route in routes { tiles.formUnion(RouteCover.tiles(of: route, options: options)) }
        return tiles.sorted()
    }

    @Test(arguments: 1...12)
    func appendingToATilerEqualsRebuildingIt(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var options = Sample.options(maxZoom: 11)
        options.lineMetrics = seed % 3 == 0
        // Some routes cross the antimeridian (wrapped or not); some cross a simplification block boundary.
        let nearAntimeridian = seed % 4 == 1
        let lon = nearAntimeridian ? 179.97 : Double.random(in: -120...120, using: &rng)
        let step = nearAntimeridian ? 0.004 : 0.0008
        let start = seed % 2 == 0 ? VertexImportance.blockLength - Int.random(in: 2...40, using: &rng)
                                  : Int.random(in: 2...300, using: &rng)
        var route = Self.route(id: seed, lon: lon, lat: 40, lastPart: start, step: step, using: &rng)
        if seed % 8 == 1 { route.parts = route.parts.map(Self.wrapped) }
        var tiler = RouteTiler(routes: [route], options: options)

        for _ in 0..<4 {
            let last = try #require(route.parts.last?.last)
            var more = Sample.track(count: Int.random(in: 1...80, using: &rng) + 1, lon: last.longitude,
                                    lat: last.latitude, step: step, using: &rng)
            more.removeFirst()
            if seed % 8 == 1 { more = Self.wrapped(more) }
            tiler = try #require(tiler.appending(more, after: last))
            route.parts[route.parts.count - 1].append(contentsOf: more)
            let fresh = RouteTiler(routes: [route], options: options)

            #expect(tiler.projected.xs == fresh.projected.xs)
            #expect(tiler.projected.ys == fresh.projected.ys)
            #expect(tiler.projected.distances == fresh.projected.distances)
            #expect(tiler.projected.lineStarts == fresh.projected.lineStarts)
            #expect(tiler.projected.bounds == fresh.projected.bounds)
            #expect(tiler.projected.routeInfos.last?.lengthMetres == fresh.projected.routeInfos.last?.lengthMetres)
            #expect(tiler.importance.elementsEqual(fresh.importance) { $0 == $1 || ($0.isNaN && $1.isNaN) })
            #expect(tiler.rootSpans == fresh.rootSpans)
            // The index holds the same segments, each once, though appended runs may be cut elsewhere.
            #expect(Self.segments(tiler.index.allRuns) == Self.segments(fresh.index.allRuns))
            #expect(tiler.index.bounds == fresh.index.bounds)
        }
        // And so the tiles are the same bytes.
        let fresh = RouteTiler(routes: [route], options: options)
        let tiles = Self.cover([route], options)
        #expect(!tiles.isEmpty)
        for t in tiles {
            #expect(try tiler.tile(z: t.z, x: t.x, y: t.y) == fresh.tile(z: t.z, x: t.x, y: t.y), "tile \(t)")
        }
        if nearAntimeridian {
            // Drawn on both sides of the map at z ≥ 1.
            #expect(tiles.contains { $0.z == 3 && $0.x == 0 } && tiles.contains { $0.z == 3 && $0.x == 7 })
        }
    }

    /// Many appends to one track: the index keeps the appended runs in a second tree and folds them into the first
    /// from time to time (`SegmentIndex.appending`). At every step it holds the segments a rebuilt tiler holds, and
    /// at the end every tile is the same bytes.
    @Test func manyAppendsFoldTheIndexAndKeepTheTiles() throws {
        var rng = SeededGenerator(seed: 77)
        let options = Sample.options(maxZoom: 12)
        var route = Self.route(id: 1, lon: 8.5, lat: 47.3, lastPart: 600, step: 0.0006, using: &rng)
        var tiler = RouteTiler(routes: [route], options: options)
        var sawRecent = false, sawFold = false
        for _ in 0..<60 {
            let last = try #require(route.parts.last?.last)
            var more = Sample.track(count: Int.random(in: 2...120, using: &rng), lon: last.longitude,
                                    lat: last.latitude, step: 0.0006, using: &rng)
            more.removeFirst()
            let hadRecent = tiler.index.recent != nil
            tiler = try #require(tiler.appending(more, after: last))
            route.parts[route.parts.count - 1].append(contentsOf: more)
            sawRecent = sawRecent || tiler.index.recent != nil
            sawFold = sawFold || (hadRecent && tiler.index.recent == nil)
            let fresh = RouteTiler(routes: [route], options: options)
            #expect(Self.segments(tiler.index.allRuns) == Self.segments(fresh.index.allRuns))
        }
        #expect(sawRecent && sawFold)
        let fresh = RouteTiler(routes: [route], options: options)
        for t in Self.cover([route], options) {
            #expect(try tiler.tile(z: t.z, x: t.x, y: t.y) == fresh.tile(z: t.z, x: t.x, y: t.y), "tile \(t)")
        }
    }

    /// One fix at a time, as a fleet sends them (across the antimeridian too): each adds a run of one segment,
    /// which joins the run before it, so the index holds about as many runs as a rebuilt one (not one per fix), no
    /// run longer than `runLength`, the same segments, and the tiles are the same bytes.
    @Test(arguments: [false, true])
    func oneFixAppendsJoinTheirRuns(acrossTheAntimeridian: Bool) throws {
        var rng = SeededGenerator(seed: acrossTheAntimeridian ? 91 : 90)
        let options = Sample.options(maxZoom: 12)
        let step = acrossTheAntimeridian ? 0.002 : 0.0006
        var route = Self.route(id: 1, lon: acrossTheAntimeridian ? 179.9 : 8.5, lat: 47.3, lastPart: 300, step: step,
                               using: &rng)
        var tiler = RouteTiler(routes: [route], options: options)
        for _ in 0..<400 {
            let last = try #require(route.parts.last?.last)
            let fix = Coordinate(longitude: last.longitude + step * Double.random(in: 0.3...1, using: &rng),
                                 latitude: last.latitude + step * Double.random(in: -0.5...0.5, using: &rng))
            tiler = try #require(tiler.appending([fix], after: last))
            route.parts[route.parts.count - 1].append(fix)
        }
        let fresh = RouteTiler(routes: [route], options: options)
        let runs = tiler.index.allRuns
        #expect(Self.segments(runs) == Self.segments(fresh.index.allRuns))
        #expect(runs.allSatisfy { $0.end - $0.first <= Int32(SegmentIndex.runLength) })
        // A rebuilt index cuts each line and world copy into full runs; this one leaves at most one short run at
        // each fold (one fold per quarter of the runs at least).
        #expect(runs.count <= fresh.index.allRuns.count + 12, "\(runs.count) runs, \(fresh.index.allRuns.count) rebuilt")
        for t in Self.cover([route], options) {
            #expect(try tiler.tile(z: t.z, x: t.x, y: t.y) == fresh.tile(z: t.z, x: t.x, y: t.y), "tile \(t)")
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func perRouteTilersGiveTheTilesOfOneTilerOverAllRoutes(seed: UInt64) throws {
        var rng = SeededGenerator(seed: 100 + seed)
        let options = Sample.options(maxZoom: 10)
        var routes: [Route] = []
        for i in 0..<Int.random(in: 5...25, using: &rng) {
            // Clustered so that tiles hold several routes, with shared and differing property keys.
            var route = Self.route(id: UInt64(i * 7), lon: 2.3 + Double.random(in: 0...0.2, using: &rng), lat: 48.85,
                                   lastPart: Int.random(in: 2...200, using: &rng), step: 0.001, using: &rng)
            if i % 3 == 0 { route.id = .string("bus-\(i)") }
            if i % 2 == 0 { route.properties.append(Property("color", .string("#ff00\(i % 10)0"))) }
            // Some routes in other layers, as directions give steps (lines) and maneuvers (points).
            if i % 4 == 1 { route.layer = "steps" }
            if i % 5 == 2 {
                route.layer = "maneuvers"
                route.kind = .point
                route.parts = route.parts.flatMap { $0.prefix(3).map { [$0] } }
            }
            routes.append(route)
        }
        let set = RouteTilerSet(routes.map { RouteTiler(routes: [$0], options: options) }, options: options)
        let whole = RouteTiler(routes: routes, options: options)
        let tiles = Self.cover(routes, options)
        #expect(tiles.count > 10)
        var most = 0
        for t in tiles {
            let bytes = try set.tile(z: t.z, x: t.x, y: t.y)
            #expect(try bytes == whole.tile(z: t.z, x: t.x, y: t.y), "tile \(t)")
            if let bytes, let decoded = try? VectorTileDecoder.decode(bytes) {
                most = max(most, decoded.layers.first?.features.count ?? 0)
            }
        }
        // Tiles hold several routes, so features from several tilers meet in one layer.
        #expect(most >= 3)
        #expect(set.layerNames == whole.layerNames)
        #expect(set.layerNames.count == 3)
        // A tile far away holds nothing.
        #expect(try set.tile(z: 10, x: 10, y: 10) == nil)
        #expect(set.metadata(name: "m") == TilesetMetadata(name: "m", tiler: whole))
    }

    @Test func blockBoundariesAndLineEndsAreAlwaysKept() {
        // A straight line: Douglas–Peucker keeps only its ends, the blocks add their boundaries, and the last,
        // open block (99 segments) those of its pieces.
        let block = VertexImportance.blockLength, piece = VertexImportance.pieceLength
        let count = 2 * block + 100
        let line = (0..<count).map { Coordinate(longitude: 10 + Double($0) * 1e-4, latitude: 5) }
        let tiler = RouteTiler(routes: [Route(parts: [line])], options: Sample.options(maxZoom: 14))
        let kept = tiler.importance.indices.filter { tiler.importance[$0] == .infinity }
        let pieces = stride(from: 2 * block, to: count - 1, by: piece)
        #expect(kept == [0, block] + pieces + [count - 1])
        #expect(tiler.importance.filter { $0 > 0 && $0 != .infinity }.isEmpty)
        // Once the block is complete, its pieces' ends are no longer kept.
        let whole = (0...(3 * block)).map { Coordinate(longitude: 10 + Double($0) * 1e-4, latitude: 5) }
        let complete = RouteTiler(routes: [Route(parts: [whole])], options: Sample.options(maxZoom: 14))
        #expect(complete.importance.indices.filter { complete.importance[$0] == .infinity } == [0, block, 2 * block, 3 * block])
    }

    @Test func appendsOneAtATimeGiveTheImportanceOfALineBuiltWhole() throws {
        // Through pieces and blocks completed one position at a time, and appends that span several pieces.
        var rng = SeededGenerator(seed: 5)
        var points = (0..<3).map { Coordinate(longitude: 13.4 + Double($0) * 1e-3, latitude: 52.5) }
        let options = Sample.options(maxZoom: 14)
        var tiler = RouteTiler(routes: [Route(parts: [points])], options: options)
        while points.count < 2 * VertexImportance.blockLength + 80 {
            let k = Int.random(in: 0..<10, using: &rng) == 0 ? Int.random(in: 2...70, using: &rng) : 1
            let last = try #require(points.last)
            let added = (1...k).map { j in
                Coordinate(longitude: last.longitude + Double(j) * 1e-3,
                           latitude: last.latitude + Double.random(in: -5e-4...5e-4, using: &rng))
            }
            tiler = try #require(tiler.appending(added, after: last))
            points += added
            let whole = RouteTiler(routes: [Route(parts: [points])], options: options)
            #expect(Array(tiler.importance) == Array(whole.importance), "after \(points.count) positions")
        }
    }

    @Test func liveAppendsGiveTheTilesOfAFreshEngine() throws {
        var rng = SeededGenerator(seed: 77)
        let options = Sample.options(maxZoom: 12)
        var routes = (0..<4).map { i in
            Self.route(id: UInt64(i), lon: 13.4 + Double(i) * 0.01, lat: 52.5, lastPart: 50 + i * 30, step: 0.0007,
                       using: &rng)
        }
        let live = LiveRouteSet(routes: routes, options: options)
        for step in 0..<6 {
            let which = step % routes.count
            let last = try #require(routes[which].parts.last?.last)
            var more = Sample.track(count: 12, lon: last.longitude, lat: last.latitude, step: 0.0007, using: &rng)
            more.removeFirst()
            let change = live.apply([.append(key: String(which), points: more)])
            routes[which].parts[routes[which].parts.count - 1].append(contentsOf: more)
            #expect(change.keys == [String(which)])
            let fresh = RouteTiler(routes: routes, options: options)
            for t in Self.cover(routes, options) {
                #expect(try live.snapshot.tile(z: t.z, x: t.x, y: t.y) == fresh.tile(z: t.z, x: t.x, y: t.y), "tile \(t)")
            }
            #expect(live.snapshot.pointCount == routes.reduce(0) { $0 + $1.pointCount })
        }
    }
}

/// Covers found after start-up: a set loaded with routes serves at once and finds their covers later
/// (`fillCovers`), and a write to a route whose cover is not found yet invalidates exactly what it would otherwise.
@Suite struct LiveCoverTests {
    static func routes() -> [Route] {
        var rng = SeededGenerator(seed: 17)
        return (0..<6).map { i in
            Route(id: .number(UInt64(i)), properties: [Property("name", .string("r\(i)"))],
                  parts: [Sample.track(count: 400, lon: 8.5 + Double(i) * 0.02, lat: 47.3, step: 0.0005, using: &rng)])
        }
    }

    @Test func writesBeforeTheCoversAreFoundInvalidateTheSameTiles() throws {
        let options = Sample.options(maxZoom: 12)
        let lazy = LiveRouteSet(routes: Self.routes(), options: options)
        let filled = LiveRouteSet(routes: Self.routes(), options: options)
        #expect(lazy.routesWithoutCover == 6 && filled.routesWithoutCover == 6)
        #expect(filled.fillCovers() == 6 && filled.routesWithoutCover == 0)
        #expect(filled.fillCovers() == 0, "nothing is found twice")

        var rng = SeededGenerator(seed: 4)
        let replacement = Route(id: .number(1), parts: [Sample.track(count: 300, lon: 8.6, lat: 47.31, step: 0.0005, using: &rng)])
        let appended = Sample.track(count: 50, lon: 8.56, lat: 47.3, step: 0.0005, using: &rng)
        let edits: [[LiveRouteSet.Edit]] = [[.remove(key: "0")], [.put(replacement)], [.append(key: "2", points: appended)]]
        for edit in edits {
            let a = lazy.apply(edit), b = filled.apply(edit)
            #expect(a.invalidated == b.invalidated && !a.invalidated.isEmpty, "\(edit)")
        }
        // A route put has its cover; an append leaves a cover not found yet to be found later, from the longer
        // route (so that an append does not cut the whole route at every zoom); the others are still to be found.
        #expect(lazy.routesWithoutCover == 4, "routes 2, 3, 4 and 5")
        #expect(lazy.fillCovers(while: { false }) == 0, "stops when told to")
        #expect(lazy.fillCovers() == 4 && lazy.routesWithoutCover == 0)
        // The cover found after the append holds the appended segments' tiles: removing the route invalidates
        // what removing it from the set whose cover grew with the append does.
        #expect(lazy.apply([.remove(key: "2")]).invalidated == filled.apply([.remove(key: "2")]).invalidated)
        for key in lazy.keys {
            #expect(lazy.pointCount(of: key) == filled.pointCount(of: key))
        }
        // The covers found later are the covers: a remove now invalidates the tiles a build of the route writes.
        let removed = lazy.apply([.remove(key: "4")])
        let expected = RouteCover.tiles(of: Self.routes()[4], options: options)
        #expect(Set(removed.invalidated) == expected && !expected.isEmpty)

        // One fix at a time into tiles the route was never in: a cover grows by each fix's tiles (those of the fix
        // before are skipped, being in it already), so a remove invalidates every tile of the longer route.
        var grown = Self.routes()[3]
        let end = try #require(grown.parts.last?.last)
        let far = (1...40).map { Coordinate(longitude: end.longitude + 0.01 * Double($0), latitude: end.latitude + 0.004 * Double($0)) }
        for fix in far { _ = filled.apply([.append(key: "3", points: [fix])]) }
        grown.parts[grown.parts.count - 1] += far
        let removedGrown = filled.apply([.remove(key: "3")])
        let grownCover = RouteCover.tiles(of: grown, options: options)
        #expect(Set(removedGrown.invalidated) == grownCover)
        #expect(!grownCover.isSubset(of: RouteCover.tiles(of: Self.routes()[3], options: options)))
    }
}

/// A live set of many chunks (`TilerChunk.capacity` routes each) under random puts, replacements, removals (enough
/// to repack the chunks) and appends: its tiles are those of one tiler over its routes in creation order, its keys
/// keep that order, and every tile whose bytes a change altered is among the tiles the change invalidated.
/// Serialized: each case is tens of seconds of CPU (in debug), and side by side they held both of the test run's
/// threads long enough for server tests elsewhere to pass their time limits.
@Suite(.serialized) struct LiveChunkTests {
    static func line(near lon: Double, _ lat: Double, count: Int, using rng: inout SeededGenerator) -> [Coordinate] {
        Sample.track(count: count, lon: lon, lat: lat, step: 0.002, using: &rng)
    }

    /// With the default budget, and with one so small that the low zooms are fitted (lines merged with `count`,
    /// the density layer summed over the chunks): every tile that changes is invalidated, and the live tiles are a
    /// fresh tiler's.
    @Test(arguments: [(1, 500_000, 2_400), (2, 500_000, 2_400), (3, 4_096, 700)] as [(UInt64, Int, Int)])
    func chunkedSetsGiveTheTilesOfOneTilerAndInvalidateEveryChangedTile(seed: UInt64, budget: Int, routes: Int) async throws {
        try await offThePool { try Self.checkChunkedSets(seed: seed, budget: budget, routes: routes) }
    }

    static func checkChunkedSets(seed: UInt64, budget: Int, routes: Int) throws {
        var rng = SeededGenerator(seed: 300 + seed)
        var options = Sample.options(maxZoom: 9)
        options.maxTileBytes = budget
        func randomRoute(_ key: String) -> Route {
            var route = Route(id: .string(key), properties: [Property("name", .string(key))],
                              parts: [Self.line(near: 2.2 + .random(in: 0...0.4, using: &rng), 48.8 + .random(in: 0...0.2, using: &rng),
                                                count: .random(in: 2...6, using: &rng), using: &rng)])
            if Int.random(in: 0..<10, using: &rng) == 0 { route.layer = "other" }
            return route
        }
        var model: [(key: String, route: Route)] = (0..<routes).map { i in ("r\(i)", randomRoute("r\(i)")) }
        let live = LiveRouteSet(routes: model.map(\.route), options: options)
        var made = model.count
        var fittedSeen = 0

        /// Every tile of the routes' covers: its bytes from the live set.
        func tiles(_ routes: [Route]) throws -> [TileID: [UInt8]] {
            var ids = Set<TileID>()
            for route in routes { ids.formUnion(RouteCover.tiles(of: route, options: options)) }
            var out: [TileID: [UInt8]] = [:]
            for id in ids { out[id] = try live.snapshot.tile(z: id.z, x: id.x, y: id.y) ?? [] }
            return out
        }

        for step in 0..<14 {
            var edits: [LiveRouteSet.Edit] = []
            var touched: [Route] = []
            let roll = step == 5 ? -1 : Int.random(in: 0..<4, using: &rng)
            switch roll {
            case -1:
                // Most routes go at once: the chunks are packed again.
                let gone = model.indices.filter { $0 % 7 != 0 }
                for i in gone { edits.append(.remove(key: model[i].key)); touched.append(model[i].route) }
                model = model.indices.filter { $0 % 7 == 0 }.map { model[$0] }
            case 0:
                for _ in 0..<3 {
                    let key = "r\(made)"
                    made += 1
                    let route = randomRoute(key)
                    model.append((key, route))
                    edits.append(.put(route))
                    touched.append(route)
                }
            case 1:
                let i = Int.random(in: 0..<model.count, using: &rng)
                touched.append(model[i].route)
                model[i].route = randomRoute(model[i].key)
                edits.append(.put(model[i].route))
                touched.append(model[i].route)
            case 2:
                let i = Int.random(in: 0..<model.count, using: &rng)
                edits.append(.remove(key: model[i].key))
                touched.append(model.remove(at: i).route)
            default:
                let i = Int.random(in: 0..<model.count, using: &rng)
                let last = model[i].route.parts[0].last ?? Coordinate(longitude: 2.3, latitude: 48.8)
                let more = Array(Self.line(near: last.longitude, last.latitude, count: 3, using: &rng).dropFirst())
                touched.append(model[i].route)
                model[i].route.parts[0] += more
                edits.append(.append(key: model[i].key, points: more))
                touched.append(model[i].route)
            }
            let before = try tiles(touched)
            let change = live.apply(edits)
            let after = try tiles(touched)
            // With a small budget, the low zooms are fitted: each within it, its lines with count.
            for (id, bytes) in after where budget < 500_000 && id.z <= 4 && !bytes.isEmpty {
                #expect(try Gzip.compress(bytes).count <= budget, "step \(step): tile \(id)")
                let layer = try VectorTileDecoder.decode(bytes).layer(named: "routes")
                if layer?.features.contains(where: { $0.properties.contains { $0.key == "count" } }) == true { fittedSeen += 1 }
            }
            let invalidated = Set(change.invalidated)
            for (id, bytes) in after where before[id] != bytes {
                #expect(invalidated.contains(id), "step \(step): tile \(id) changed but was not invalidated")
            }
            #expect(live.keys == model.map(\.key), "step \(step): feature order")
        }
        let whole = RouteTiler(routes: model.map(\.route), options: options)
        var compared = 0
        for (id, bytes) in try tiles(model.map(\.route)) {
            #expect(bytes == (try whole.tile(z: id.z, x: id.x, y: id.y) ?? []), "tile \(id)")
            compared += 1
        }
        #expect(compared > 10)
        if budget < 500_000 { #expect(fittedSeen > 0, "no tile was fitted to \(budget) B") }
        #expect(live.snapshot.routeCount == model.count)
        #expect(live.snapshot.pointCount == model.reduce(0) { $0 + $1.route.pointCount })
        #expect(live.snapshot.tilers.layerNames == whole.layerNames)
    }
}

/// A batch of edits applied at once (its appends to distinct routes extended on every core) changes the routes as
/// the same edits applied one at a time do: the same tiles, and the same tiles invalidated in all.
@Suite struct LiveBatchTests {
    @Test(arguments: [UInt64(1), 2])
    func aBatchEqualsItsEditsOneByOne(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var options = Sample.options(maxZoom: 11)
        options.routeLength = false
        options.positionLayer = "positions"
        let routes = (0..<40).map { i in
            Route(id: .string("v\(i)"), parts: [Sample.track(count: 60, lon: 2.3 + Double(i % 8) * 0.01,
                                                              lat: 48.85 + Double(i / 8) * 0.01, step: 0.0004, using: &rng)])
        }
        let batched = LiveRouteSet(routes: routes, options: options)
        let single = LiveRouteSet(routes: routes, options: options)
        var ends = Dictionary(uniqueKeysWithValues: routes.map { ($0.id.map(LiveRouteSet.key) ?? "", $0.parts[0].last) })
        for round in 0..<3 {
            var edits: [LiveRouteSet.Edit] = []
            // Appends to 30 routes, two of them twice; a replaced route and a removed one among them.
            for k in 0..<32 {
                let key = "v\(k < 30 ? k : k - 30)"
                guard let end = ends[key] ?? nil else { continue }
                let fixes = Array(Sample.track(count: 3, lon: end.longitude, lat: end.latitude, step: 0.0004, using: &rng).dropFirst())
                ends[key] = fixes.last
                edits.append(.append(key: key, points: fixes, time: Double(round * 100 + k)))
            }
            let replaced = Route(id: .string("v31"), parts: [Sample.track(count: 30, lon: 2.31, lat: 48.86, step: 0.0004, using: &rng)])
            edits.insert(.put(replaced), at: 10)
            ends["v31"] = replaced.parts[0].last
            edits.insert(.remove(key: "v\(35 + round)"), at: 20)
            ends["v\(35 + round)"] = .some(nil)

            let before = batched.snapshot
            let change = batched.apply(edits)
            var invalidated = Set<TileID>()
            for edit in edits { invalidated.formUnion(single.apply([edit]).invalidated) }
            // The batch extends a route that appends twice once, by both appends: it invalidates what changed
            // between before and after the batch, which the edits one by one invalidate too (they may add a tile
            // that one append changed and the next changed back).
            let batchInvalidated = Set(change.invalidated)
            #expect(batchInvalidated.isSubset(of: invalidated), "round \(round)")
            #expect(batched.keys == single.keys)
            // Every tile either set invalidated, and so every tile the edits changed, is the same in both; and
            // each one whose bytes the batch changed, the batch invalidated.
            for tile in invalidated {
                let after = try batched.snapshot.tile(z: tile.z, x: tile.x, y: tile.y)
                #expect(try after == single.snapshot.tile(z: tile.z, x: tile.x, y: tile.y), "round \(round), tile \(tile)")
                if try before.tile(z: tile.z, x: tile.x, y: tile.y) != after {
                    #expect(batchInvalidated.contains(tile), "round \(round): \(tile) changed but was not invalidated")
                }
            }
            #expect(!batchInvalidated.isEmpty)
        }
    }
}

/// The tiles an append's new segments are drawn in, found from their box where it lies inside one tile
/// (`RouteTiler.tilesDrawn(by:)`), are exactly those a cut of them at every zoom finds: for short and long steps,
/// near tile edges (steps on a grid of tile corners) and across the antimeridian.
@Suite struct AppendedSegmentCoverTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func drawnTilesEqualACut(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 7919)
        var options = Sample.options(maxZoom: 14)
        options.routeLength = false
        // Around Paris, around a z10 tile corner (2.8125°E, 48.92°N is near one), and across the antimeridian.
        let (lon, lat) = [(2.3, 48.85), (2.8125, 48.9225), (179.999, -16.5)][seed % 3]
        let step = [0.00002, 0.0003, 0.01][seed % 3 == 1 ? 0 : seed % 3]
        var route = Route(id: .string("t"), parts: [Sample.track(count: 40, lon: lon, lat: lat, step: step, using: &rng)])
        var tiler = RouteTiler(routes: [route], options: options)
        var tested = 0
        for round in 0..<40 {
            let last = try #require(route.parts[0].last)
            let points = Array(Sample.track(count: 1 + round % 3 + 1, lon: last.longitude, lat: last.latitude,
                                            step: step * Double(1 + round % 4), using: &rng).dropFirst())
            let oldLast = tiler.projected.pointCount - 1
            guard let grown = tiler.appending(points, after: last) else { Issue.record("no line to extend"); return }
            let spans = grown.spansOfLastLine(from: oldLast)
            let cut = grown.cover(of: spans, zooms: options.minZoom...options.maxZoom)
            #expect(grown.tilesDrawn(by: spans) == cut, "seed \(seed), round \(round)")
            tested += cut.isEmpty ? 0 : 1
            route.parts[0] += points
            tiler = grown
        }
        #expect(tested == 40)
    }
}

/// Appends to live tracks whose tiles carry no whole-route value (`routeLength` off, as `serve --store` tiles):
/// every tile whose bytes changed is invalidated, nothing beyond the tiles the last simplification block and the
/// new segments are drawn in, and few tiles per fix.
@Suite struct LiveAppendInvalidationTests {
    @Test(arguments: [500, 6_000])
    func oneFixInvalidatesTheTilesItChanged(points: Int) throws {
        var rng = SeededGenerator(seed: UInt64(points))
        var options = Sample.options(maxZoom: 14)
        options.routeLength = false
        options.positionLayer = "positions"
        var track = Route(id: .string("van"), properties: [Property("name", .string("van"))],
                          parts: [Sample.track(count: points, lon: 2.3, lat: 48.85, step: 0.0003, using: &rng)])
        let neighbour = Route(id: .string("bus"), parts: [Sample.track(count: 300, lon: 2.3, lat: 48.85, step: 0.0003, using: &rng)])
        let live = LiveRouteSet(routes: [neighbour, track], options: options)
        var counts: [Int] = []
        for step in 0..<10 {
            let last = try #require(track.parts[0].last)
            let fixes = Array(Sample.track(count: step % 3 == 2 ? 4 : 2, lon: last.longitude, lat: last.latitude, step: 0.0003,
                                           using: &rng).dropFirst())
            let old = RouteTiler(routes: [track], options: options)
            var grown = track
            grown.parts[0] += fixes
            let new = RouteTiler(routes: [grown], options: options)
            let candidates = old.cover().union(new.cover())
            var before: [TileID: [UInt8]] = [:]
            for t in candidates { before[t] = try live.snapshot.tile(z: t.z, x: t.x, y: t.y) ?? [] }
            let change = live.apply([.append(key: "van", points: fixes, time: 1_790_000_000 + Double(step))])
            let invalidated = Set(change.invalidated)
            var changed = 0
            for t in candidates where (try live.snapshot.tile(z: t.z, x: t.x, y: t.y) ?? []) != before[t] {
                changed += 1
                #expect(invalidated.contains(t), "step \(step): tile \(t) changed but was not invalidated")
            }
            // The bound: the tiles in which the old last block and the new segments are drawn.
            let blockStart = ImportanceColumn.lastBlockStart(old.projected)
            let bound = RouteTiler(routes: [Route(parts: [Array(grown.parts[0][blockStart...])])], options: options).cover()
            #expect(invalidated.isSubset(of: bound), "step \(step): \(invalidated.subtracting(bound).prefix(3)) beyond the bound")
            #expect(changed > 0)
            counts.append(invalidated.count)
            track = grown
        }
        counts.sort()
        let median = counts[counts.count / 2]
        // At least one tile a zoom holds the new segment (15 at z0–14); the goal is 20.
        #expect(median <= 20, "median \(median) tiles per fix: \(counts)")
        // What every fix invalidated while features carried length_m: the whole cover.
        let whole = RouteTiler(routes: [track], options: options).cover().count
        if points > 1_000 { #expect(whole > 4 * median, "the whole cover is \(whole) tiles, a fix invalidates \(median)") }
    }
}

/// The position layer of live routes (`TilingOptions.positionLayer`): one point per line route at its last
/// position, with the route's feature id, the bearing of its last segment and the time of its last fix; it moves
/// with every append, and the tiles it leaves and enters are invalidated.
@Suite struct LivePositionTests {
    static func positions(_ live: LiveRouteSet, at c: Coordinate, zoom: Int) throws -> [DecodedFeature] {
        let tile = WebMercator.tile(containing: WebMercator.project(c), zoom: zoom)
        guard let bytes = try live.snapshot.tile(z: tile.z, x: tile.x, y: tile.y) else { return [] }
        return try VectorTileDecoder.decode(bytes).layer(named: "positions")?.features ?? []
    }

    /// A route with times shows the device's time of its last fix, not when the store committed it: after a put,
    /// and after an append of fixes with times.
    @Test func thePositionOfARouteWithTimesHasTheDevicesTime() async throws {
        var rng = SeededGenerator(seed: 3509)
        var options = Sample.options(maxZoom: 14)
        options.routeLength = false
        options.positionLayer = "positions"
        let track = Sample.track(count: 10, lon: 2.3, lat: 48.85, step: 0.0004, using: &rng)
        let times = (0..<10).map { 1_795_788_300_000 + Int64($0) * 5_250 }
        let (sync, _) = try await LiveRouteSync.open(store: MemoryRouteStore(), options: options)
        _ = try await sync.write(.put([Route(id: .string("van"), parts: [track], times: times)]))
        let here = try #require(try Self.positions(sync.routes, at: track[9], zoom: 14).first)
        #expect(here.properties.first { $0.key == "fix_time" } == Property("fix_time", .double(Double(times[9]) / 1000)))
        // Its speed: the last segment over the 5.25 s between its fixes, in m/s to 0.1.
        let speed = (GeodesicDistance.metres(track[8], track[9]) / 5.25 * 10).rounded() / 10
        #expect(here.properties.last == Property("speed", .double(speed)))
        let fix = Coordinate(longitude: track[9].longitude + 0.001, latitude: track[9].latitude)
        _ = try await sync.write(.appendTimed(key: "van", points: [fix], times: [1_795_788_400_500]))
        let moved = try #require(try Self.positions(sync.routes, at: fix, zoom: 14).first)
        #expect(moved.properties.first { $0.key == "fix_time" } == Property("fix_time", .double(1_795_788_400.5)))
        let travelled = GeodesicDistance.metres(track[9], fix) / (1_795_788_400.5 - Double(times[9]) / 1000)
        #expect(moved.properties.last == Property("speed", .double((travelled * 10).rounded() / 10)))
        // Two fixes in one append: the speed of the segment between them.
        let next = [Coordinate(longitude: fix.longitude + 0.002, latitude: fix.latitude),
                    Coordinate(longitude: fix.longitude + 0.003, latitude: fix.latitude)]
        _ = try await sync.write(.appendTimed(key: "van", points: next, times: [1_795_788_410_500, 1_795_788_412_500]))
        let last = try #require(try Self.positions(sync.routes, at: next[1], zoom: 14).first)
        #expect(last.properties.last == Property("speed", .double((GeodesicDistance.metres(next[0], next[1]) / 2 * 10).rounded() / 10)))
    }

    @Test func eachLineRouteHasItsPointAtItsLastPosition() throws {
        var rng = SeededGenerator(seed: 41)
        var options = Sample.options(maxZoom: 14)
        options.routeLength = false
        options.positionLayer = "positions"
        let track = Sample.track(count: 40, lon: 2.3, lat: 48.85, step: 0.0004, using: &rng)
        let stops = Route(id: .string("stops"), parts: [[track[0]], [track[1]]], kind: .point)
        let live = LiveRouteSet(routes: [Route(id: .string("van"), parts: [track]), stops], options: options,
                                lastFixes: ["van": 1_790_000_000.25])
        let vanID = ProjectedRouteSet.featureID(for: .string("van"), index: 0)
        let here = try Self.positions(live, at: track[39], zoom: 14)
        #expect(here.count == 1)
        let feature = try #require(here.first)
        #expect(feature.id == vanID && feature.kind == .point)
        let bearing = (Bearing.initial(track[38], track[39]) * 10).rounded() / 10
        #expect(feature.properties == [Property("bearing", .double(bearing)), Property("fix_time", .double(1_790_000_000.25))])
        // The point is where the line ends, in tile units.
        let tile = WebMercator.tile(containing: WebMercator.project(track[39]), zoom: 14)
        let size = WebMercator.tileSize(zoom: 14)
        let p = WebMercator.project(track[39])
        let expected = TilePoint(x: Int32(((p.x - Double(tile.x) * size) / size * 4096).rounded()),
                                 y: Int32(((p.y - Double(tile.y) * size) / size * 4096).rounded()))
        #expect(feature.geometry.points == [expected])
        // Every zoom shows it, once; a set of points has none.
        for z in 0...14 { #expect(try Self.positions(live, at: track[39], zoom: z).count == 1, "zoom \(z)") }
        #expect(try Self.positions(live, at: track[0], zoom: 14).allSatisfy { $0.id == vanID } )

        // An append moves it, with the new bearing and time; the tiles it left and entered are invalidated.
        let fix = Coordinate(longitude: track[39].longitude + 0.02, latitude: track[39].latitude + 0.01)
        let change = live.apply([.append(key: "van", points: [fix], time: 1_790_000_005)])
        #expect(try Self.positions(live, at: track[39], zoom: 14).isEmpty)
        let moved = try #require(try Self.positions(live, at: fix, zoom: 14).first)
        #expect(moved.properties == [Property("bearing", .double((Bearing.initial(track[39], fix) * 10).rounded() / 10)),
                                     Property("fix_time", .double(1_790_000_005))])
        for c in [track[39], fix] {
            for z in 0...14 {
                #expect(change.invalidated.contains(WebMercator.tile(containing: WebMercator.project(c), zoom: z)))
            }
        }
        // Without the option, no position layer.
        var plain = options
        plain.positionLayer = nil
        let none = LiveRouteSet(routes: [Route(id: .string("van"), parts: [track])], options: plain)
        let bytes = try #require(try none.snapshot.tile(z: tile.z, x: tile.x, y: tile.y))
        #expect(try VectorTileDecoder.decode(bytes).layer(named: "positions") == nil)
    }

    /// A flight's last position east of the antimeridian, its line unwrapped past x = 2^28: the point shows in the
    /// tile of its real longitude.
    @Test func aPositionAcrossTheAntimeridianIsInItsTile() throws {
        var options = Sample.options(maxZoom: 6)
        options.positionLayer = "positions"
        let flight = [Coordinate(longitude: 170, latitude: 40), Coordinate(longitude: 179.5, latitude: 41),
                      Coordinate(longitude: -175, latitude: 42)]
        let live = LiveRouteSet(routes: [Route(id: .number(7), parts: [flight])], options: options)
        for z in 1...6 {
            let found = try Self.positions(live, at: flight[2], zoom: z)
            #expect(found.count == 1 && found.first?.id == 7, "zoom \(z)")
        }
    }
}
