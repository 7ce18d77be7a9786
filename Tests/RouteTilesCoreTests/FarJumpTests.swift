import Foundation
import RouteTiles
@testable import RouteTilesLive
@testable import RouteTilesTiling
import Testing
import RouteTilesCoreTestSupport

/// Fixes far from the last (a GPS glitch at (0, 0), a vehicle off a ferry, a flight's next position): the new
/// segment is drawn in thousands of tiles, which an append finds in time proportional to their number
/// (`SegmentTileWalk`), lists down to `TilingOptions.appendTileLimit`, and covers below that by subtrees.
@Suite struct FarJumpTests {
    /// Far points: both corners of the world, the null island, both sides of the antimeridian, and random ones.
    static func farPoints(seed: Int, count: Int) -> [Coordinate] {
        var rng = SeededGenerator(seed: UInt64(seed) &* 104_729)
        let fixed = [Coordinate(longitude: -120, latitude: -60), Coordinate(longitude: 150, latitude: 70),
                     Coordinate(longitude: -170, latitude: -80), Coordinate(longitude: 170, latitude: 80),
                     Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: 179.9, latitude: 10),
                     Coordinate(longitude: -179.9, latitude: 12)]
        return (0..<count).map { k in
            k % 2 == 0 ? fixed[(k / 2 + seed) % fixed.count]
                : Coordinate(longitude: Double.random(in: -180...180, using: &rng), latitude: Double.random(in: -84...84, using: &rng))
        }
    }

    /// The tiles a far segment is drawn in, walked, are exactly those a cut of every tile finds, at every zoom
    /// (and from a minimum zoom above 0), for one far fix and for a few at once.
    @Test(arguments: [1, 2, 3, 4])
    func aFarSegmentIsDrawnInTheTilesACutFinds(seed: Int) throws {
        var options = Sample.options(minZoom: seed == 4 ? 3 : 0, maxZoom: 9)
        options.routeLength = false
        var rng = SeededGenerator(seed: UInt64(seed))
        var route = Route(id: .string("van"), parts: [Sample.track(count: 20, lon: 2.35, lat: 48.85, step: 0.0003, using: &rng)])
        var tiler = RouteTiler(routes: [route], options: options)
        let far = Self.farPoints(seed: seed, count: 12)
        var k = 0, long = 0
        while k < far.count {
            let points = seed == 3 ? Array(far[k..<min(k + 3, far.count)]) : [far[k]]
            k += points.count
            let last = try #require(route.parts[0].last)
            let oldLast = tiler.projected.pointCount - 1
            let grown = try #require(tiler.appending(points, after: last))
            let spans = grown.spansOfLastLine(from: oldLast)
            let cut = grown.cover(of: spans, zooms: options.minZoom...options.maxZoom)
            let walked = grown.drawnTiles(by: spans)
            #expect(walked.subtrees.isEmpty)
            #expect(walked.tiles.count == Set(walked.tiles).count, "a tile listed twice")
            #expect(Set(walked.tiles) == cut, "seed \(seed), to \(points): \(cut.subtracting(walked.tiles).prefix(3)) missed, \(Set(walked.tiles).subtracting(cut).prefix(3)) extra")
            if cut.count > 100 { long += 1 }
            route.parts[0] += points
            tiler = grown
        }
        // Most are far (from 179.9°E to 179.9°W is a short step across the antimeridian).
        #expect(long >= 3, "\(long) long segments")
    }

    /// With a limit, the tiles are listed zoom by zoom while they fit; the deeper ones all lie under the subtrees,
    /// which are the tiles of the deepest zoom listed.
    @Test(arguments: [64, 500, 2_000])
    func beyondTheLimitSubtreesHoldTheDeeperTiles(limit: Int) throws {
        var options = Sample.options(maxZoom: 12)
        options.routeLength = false
        let route = Route(id: .string("van"), parts: [[Coordinate(longitude: 2.35, latitude: 48.85), Coordinate(longitude: 2.36, latitude: 48.86)]])
        let tiler = RouteTiler(routes: [route], options: options)
        let grown = try #require(tiler.appending([Coordinate(longitude: -120, latitude: -60)], after: Coordinate(longitude: 2.36, latitude: 48.86)))
        let spans = grown.spansOfLastLine(from: 1)
        let cut = grown.cover(of: spans, zooms: 0...12)
        let (tiles, subtrees) = grown.drawnTiles(by: spans, limit: limit)
        #expect(tiles.count <= limit, "\(tiles.count) tiles listed, limit \(limit)")
        let deepest = try #require(tiles.map(\.z).max())
        #expect(deepest < 12 && !subtrees.isEmpty)
        #expect(subtrees.allSatisfy { $0.z == deepest })
        #expect(Set(tiles) == cut.filter { $0.z <= deepest }, "the zooms listed are listed exactly")
        let roots = Set(subtrees)
        for tile in cut where tile.z > deepest {
            let shift = tile.z - deepest
            #expect(roots.contains(TileID(z: deepest, x: tile.x >> shift, y: tile.y >> shift)), "\(tile) under no subtree")
        }
    }

    /// Far jumps into a live set, with and without the limit: every tile whose bytes changed is invalidated (listed,
    /// or under a subtree); the tiles listed are at most the changed ones plus the limit's subtrees; and a removal
    /// afterwards invalidates every tile the grown route was drawn in, the far segments' included.
    @Test(arguments: [(1_000_000, 5), (64, 5), (1_000_000, 6), (200, 7)])
    func invalidationStaysExactAfterFarJumps(limit: Int, seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(70 + seed))
        var options = Sample.options(maxZoom: 8)
        options.routeLength = false
        options.positionLayer = "positions"
        options.appendTileLimit = limit
        var track = Route(id: .string("van"), parts: [Sample.track(count: 30, lon: 2.35, lat: 48.85, step: 0.0003, using: &rng)])
        let neighbour = Route(id: .string("bus"), parts: [Sample.track(count: 30, lon: 2.35, lat: 48.85, step: 0.0003, using: &rng)])
        let live = LiveRouteSet(routes: [neighbour, track], options: options)
        _ = live.fillCovers()
        var subtreeChanges = 0
        for (step, far) in Self.farPoints(seed: seed, count: 10).enumerated() {
            let old = RouteTiler(routes: [track], options: options)
            var grown = track
            grown.parts[0].append(far)
            let candidates = old.cover().union(RouteTiler(routes: [grown], options: options).cover())
            var before: [TileID: [UInt8]] = [:]
            for t in candidates { before[t] = try live.snapshot.tile(z: t.z, x: t.x, y: t.y) ?? [] }
            let change = live.apply([.append(key: "van", points: [far])])
            let invalidated = Invalidated(change)
            if !change.subtrees.isEmpty { subtreeChanges += 1 }
            var changed = 0
            for t in candidates where (try live.snapshot.tile(z: t.z, x: t.x, y: t.y) ?? []) != before[t] {
                changed += 1
                #expect(invalidated.contains(t), "step \(step), to \(far): tile \(t) changed but was not invalidated")
            }
            #expect(changed > 0)
            #expect(change.invalidated.count <= changed + limit, "step \(step): \(change.invalidated.count) listed, \(changed) changed")
            track = grown
        }
        #expect(limit < 1_000 ? subtreeChanges > 0 : subtreeChanges == 0)
        let removal = live.apply([.remove(key: "van")])
        let removed = Invalidated(removal)
        let drawn = RouteTiler(routes: [track], options: options).cover()
        let missed = drawn.filter { !removed.contains($0) }
        #expect(missed.count == 0, "the removal missed \(missed.count) tiles of the route, \(missed.prefix(3))")
    }

    /// A change's tiles, listed or under its subtrees.
    struct Invalidated {
        let tiles: Set<TileID>
        let roots: Set<TileID>
        let zooms: [Int]

        init(_ change: LiveRouteSet.Change) {
            tiles = Set(change.invalidated)
            roots = Set(change.subtrees)
            zooms = Set(change.subtrees.map(\.z)).sorted()
        }

        func contains(_ tile: TileID) -> Bool {
            if tiles.contains(tile) { return true }
            return zooms.contains { z in
                z <= tile.z && roots.contains(TileID(z: z, x: tile.x >> (tile.z - z), y: tile.y >> (tile.z - z)))
            }
        }
    }
}

/// `TileCache.remove(under:)`: a subtree's tiles, and only them, leave the cache.
@Suite struct SubtreeCacheTests {
    @Test func aSubtreeDropsItsTilesAndNoOther() {
        let cache = TileCache<[UInt8]>(capacityBytes: 1 << 20)
        let entry = TileCache<[UInt8]>.Entry(gzip: [1, 2, 3], etag: "\"e\"")
        let inside = [TileID(z: 4, x: 8, y: 5), TileID(z: 5, x: 16, y: 11), TileID(z: 9, x: 8 * 32 + 31, y: 5 * 32)]
        let outside = [TileID(z: 3, x: 4, y: 2), TileID(z: 4, x: 9, y: 5), TileID(z: 9, x: 8 * 32 + 32, y: 5 * 32),
                       TileID(z: 0, x: 0, y: 0)]
        for tile in inside + outside { cache.put(tile, entry) }
        #expect(cache.remove(under: [TileID(z: 4, x: 8, y: 5)]) == inside.count)
        for tile in inside { #expect(cache.get(tile) == nil, "\(tile)") }
        for tile in outside { #expect(cache.get(tile) != nil, "\(tile)") }
        #expect(cache.remove(under: []) == 0)
        // Subtrees of several zooms at once.
        #expect(cache.remove(under: [TileID(z: 0, x: 0, y: 0), TileID(z: 4, x: 9, y: 5)]) == outside.count)
        #expect(cache.usage.tiles == 0)
    }
}

/// The glitch filters of appended fixes (`FixFilter`, `serve --drop-fixes`).
@Suite struct FixFilterTests {
    static func read(_ text: String, _ filter: FixFilter) throws -> PositionListReader.PositionList {
        try PositionListReader.read(Array(text.utf8), file: "body", filter: filter)
    }

    @Test func zeroAndInvalidFixesAreDroppedAndCounted() throws {
        let both = FixFilter(dropZero: true, dropInvalid: true)
        let list = try Self.read("[[2.35,48.85],[0,0],[200,10],[2.36,48.86,35],[10,-95],[0.0,0.0]]", both)
        #expect(list.points == [Coordinate(longitude: 2.35, latitude: 48.85), Coordinate(longitude: 2.36, latitude: 48.86)])
        #expect(list.dropped == FixFilter.Dropped(zero: 2, invalid: 2))
        // Zero only: (0, 0) dropped, an out-of-range position is still the list's 400, numbered as sent.
        let zero = FixFilter(dropZero: true)
        #expect(try Self.read("[[0,0],[1,1]]", zero).points == [Coordinate(longitude: 1, latitude: 1)])
        #expect(throws: InputError.self) { try Self.read("[[0,0],[1,1],[1,95]]", zero) }
        do {
            _ = try Self.read("[[0,0],[1,1],[1,95]]", zero)
        } catch {
            #expect("\(error)".contains("position 2"), "\(error)")
        }
        // Off: (0, 0) is a position like any other, and an invalid one refuses the list.
        #expect(try Self.read("[[0,0]]", FixFilter()).points == [Coordinate(longitude: 0, latitude: 0)])
        #expect(throws: InputError.self) { try Self.read("[[1,95]]", FixFilter()) }
        // Near zero is not zero; 180° is a longitude, 180.5° is not.
        let edge = try Self.read("[[0.000001,0],[180,0],[-180,45],[180.5,0]]", both)
        #expect(edge.points.count == 3 && edge.dropped == FixFilter.Dropped(zero: 0, invalid: 1))
        // Every fix dropped: an empty list, not an error.
        #expect(try Self.read("[[0,0]]", both).points.isEmpty)
        // In a batch, per id.
        let batch = try PositionListReader.readBatch(Array(#"{"a":[[0,0],[1,1]],"b":[[0,0]],"c":[[1,95]]}"#.utf8),
                                                     file: "body", filter: zero)
        #expect(try batch[0].points.get().dropped.zero == 1 && batch[0].points.get().points.count == 1)
        #expect(try batch[1].points.get().points.isEmpty)
        #expect((try? batch[2].points.get()) == nil)
    }
}

/// `RouteTiler.cover` decides each tile's feature from the segments (`hasFeature(in:spans:)`), without cutting:
/// the same tiles as a cut of every tile gives, for tracks, far segments, flights across the antimeridian, sets of
/// points and a minimum zoom above 0.
@Suite struct GeometricCoverTests {
    @Test(arguments: [1, 2, 3])
    func theCoverIsTheTilesACutGivesAFeature(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 31)
        var options = Sample.options(minZoom: seed == 3 ? 2 : 0, maxZoom: 9)
        options.lineMetrics = seed == 2
        var routes = [
            Route(id: .string("track"), parts: [Sample.track(count: 300, lon: 2.35, lat: 48.85, step: 0.002, using: &rng)]),
            Route(id: .string("jump"), parts: [[Coordinate(longitude: 2.35, latitude: 48.85), Coordinate(longitude: -120, latitude: -60),
                                                 Coordinate(longitude: 150, latitude: 70)]]),
            Route(id: .string("flight"), parts: [[Coordinate(longitude: 170, latitude: 40), Coordinate(longitude: -170, latitude: 42)]]),
            Route(id: .string("stops"), parts: [[Coordinate(longitude: 2.35, latitude: 48.85)], [Coordinate(longitude: 0, latitude: 0)],
                                                [Coordinate(longitude: -179.99, latitude: 10)]], kind: .point),
        ]
        routes[2].geodesic = seed == 1
        for route in routes {
            let tiler = RouteTiler(routes: [route], options: options)
            let cut = CutCover.tiles(of: tiler)
            let cover = tiler.cover()
            #expect(cover == cut, "\(route.id.map { "\($0)" } ?? ""): \(cut.subtracting(cover).prefix(3)) missed, \(cover.subtracting(cut).prefix(3)) extra")
            #expect(!cover.isEmpty)
        }
        let all = RouteTiler(routes: routes, options: options)
        #expect(all.cover() == CutCover.tiles(of: all))
    }
}

/// `TileID.sorted(_:)`, sorting tiles as packed words, gives their comparison's order.
@Suite struct TileSortingTests {
    @Test func packedWordsSortAsTilesCompare() {
        var rng = SeededGenerator(seed: 99)
        let tiles = (0..<5_000).map { _ -> TileID in
            let z = Int.random(in: 0...TileID.maxZoom, using: &rng)
            return TileID(z: z, x: Int.random(in: 0..<(1 << z), using: &rng), y: Int.random(in: 0..<(1 << z), using: &rng))
        } + [TileID(z: 28, x: (1 << 28) - 1, y: (1 << 28) - 1), TileID(z: 0, x: 0, y: 0)]
        #expect(TileID.sorted(tiles) == tiles.sorted())
        // A tile outside the grid falls back to the comparison.
        let odd = tiles + [TileID(z: 3, x: 9, y: 1)]
        #expect(TileID.sorted(odd) == odd.sorted())
    }
}
