import Foundation
import RouteTiles
import RouteTilesCoreTestSupport
import Testing

/// The tile byte budget (`TilingOptions.maxTileBytes`, `TileFitter`): every tile within it, drawing what the tile
/// as cut draws, merged lines counting their routes, and tiles within it left byte for byte as cut. Serialized: its
/// cases are seconds of CPU each, and run side by side they would hold both of the test run's threads.
@Suite(.serialized) struct TileBudgetTests {
    /// Routes as fleets and commutes make them: `corridors` base tracks, each driven `copies` times with jitter far
    /// below a pixel at z10 and a random start and end, and `loners` tracks of their own. Ids 1, 2, 3 …
    static func corridorRoutes(seed: UInt64, corridors: Int, copies: Int, loners: Int, points: Int = 300) -> [Route] {
        var rng = SeededGenerator(seed: seed)
        var routes: [Route] = []
        for c in 0..<corridors {
            let base = Sample.track(count: points, lon: 2.25 + Double(c) * 0.02, lat: 48.84, step: 0.0005, using: &rng)
            for _ in 0..<copies {
                let first = Int.random(in: 0..<(points / 4), using: &rng)
                let last = Int.random(in: (3 * points / 4)..<points, using: &rng)
                let line = base[first...last].map {
                    Coordinate(longitude: $0.longitude + Double.random(in: -0.00002...0.00002, using: &rng),
                               latitude: $0.latitude + Double.random(in: -0.00002...0.00002, using: &rng))
                }
                routes.append(Route(id: .number(UInt64(routes.count + 1)),
                                    properties: [Property("name", .string("trip \(routes.count + 1)"))], parts: [line]))
            }
        }
        for _ in 0..<loners {
            let line = Sample.track(count: points, lon: Double.random(in: 2.2...2.4, using: &rng),
                                    lat: Double.random(in: 48.8...48.9, using: &rng), step: 0.0004, using: &rng)
            routes.append(Route(id: .number(UInt64(routes.count + 1)),
                                properties: [Property("name", .string("walk \(routes.count + 1)"))], parts: [line]))
        }
        return routes
    }

    static func options(maxZoom: Int = 12, budget: Int) -> TilingOptions {
        var o = Sample.options(maxZoom: maxZoom)
        o.maxTileBytes = budget
        return o
    }

    /// The tile as the tiler cuts it, with what fitting did.
    static func cut(_ tiler: RouteTiler, _ tile: TileID) -> (mvt: [UInt8], reduction: TileReduction?)? {
        var cutter = tiler.makeCutter()
        return tiler.fittedTile(tile, spans: tiler.spans(for: tile), cutter: &cutter)
    }

    /// The pixels a 512-pixel drawing of the tile inks (alpha above half).
    static func inked(_ mvt: [UInt8], zoom: Int) throws -> Set<Int> {
        let pixels = try RasterTileRenderer().pixels(of: VectorTileDecoder.decode(mvt), zoom: zoom, scale: 2)
        var inked = Set<Int>()
        for y in 0..<pixels.size { for x in 0..<pixels.size where pixels[x: x, y: y].alpha > 127 { inked.insert(y * pixels.size + x) } }
        return inked
    }

    /// The share of `a`'s pixels that have a pixel of `b` within one pixel (1 when `a` is empty).
    static func share(_ a: Set<Int>, within b: Set<Int>, size: Int = 512) -> Double {
        guard !a.isEmpty else { return 1 }
        let near = a.count { p in
            let x = p % size, y = p / size
            for dy in -1...1 { for dx in -1...1 where b.contains((y + dy) * size + x + dx) { return true } }
            return false
        }
        return Double(near) / Double(a.count)
    }

    @Test func aTileWithinTheBudgetIsLeftAsCut() throws {
        let routes = Self.corridorRoutes(seed: 3, corridors: 2, copies: 3, loners: 2)
        let (_, unbounded) = try Sample.build(routes, Self.options(budget: 0))
        let (_, bounded) = try Sample.build(routes, Self.options(budget: 500_000))
        #expect(!unbounded.isEmpty)
        #expect(bounded == unbounded)
        let tiler = RouteTiler(routes: routes, options: Self.options(budget: 500_000))
        for tile in unbounded.keys { #expect(Self.cut(tiler, tile)?.reduction == nil) }
    }

    /// For random route sets and budgets, every tile is within the budget (gzip bytes, as written), and a tile
    /// fitted on the finest grids draws the pixels of the tile as cut: recall and precision at least 0.98 within
    /// one pixel of a 512-pixel drawing.
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func everyTileFitsAndDrawsTheSamePixels(seed: UInt64) async throws {
        try await offThePool { try Self.checkEveryTileFits(seed: seed) }
    }

    static func checkEveryTileFits(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let routes = Self.corridorRoutes(seed: seed, corridors: Int.random(in: 2...4, using: &rng),
                                         copies: Int.random(in: 20...40, using: &rng), loners: Int.random(in: 0...20, using: &rng))
        let budget = Int.random(in: 4_096...8_000, using: &rng)
        let (_, unbounded) = try Sample.build(routes, Self.options(maxZoom: 11, budget: 0))
        let (_, bounded) = try Sample.build(routes, Self.options(maxZoom: 11, budget: budget))
        let tiler = RouteTiler(routes: routes, options: Self.options(maxZoom: 11, budget: budget))
        #expect(Set(bounded.keys) == Set(unbounded.keys))
        var reduced = 0, compared = 0
        for (tile, gzip) in bounded {
            #expect(gzip.count <= budget, "\(tile): \(gzip.count) B over a budget of \(budget) B")
            let (mvt, reduction) = try #require(Self.cut(tiler, tile))
            #expect(try Gzip.decompress(gzip) == mvt, "the build writes what the tiler fits")
            guard let reduction else {
                #expect(gzip == unbounded[tile], "\(tile) fitted as cut, yet differs")
                continue
            }
            reduced += 1
            // Drawing is the slow part of this test: the first few fitted tiles on the finest grids are compared.
            guard !reduction.dropped, reduction.gridPixels <= 2, compared < 6 else { continue }
            compared += 1
            let before = try Self.inked(Gzip.decompress(try #require(unbounded[tile])), zoom: tile.z)
            let after = try Self.inked(mvt, zoom: tile.z)
            let recall = Self.share(before, within: after), precision = Self.share(after, within: before)
            #expect(recall >= 0.98 && precision >= 0.98, "\(tile) on a \(reduction.gridPixels) px grid: recall \(recall), precision \(precision)")
        }
        #expect(reduced > 0, "the budget of \(budget) B reduced no tile")
        #expect(compared > 0)
    }

    @Test func routesOnTheSamePixelsAreOneFeatureWithTheirCount() throws {
        let routes = Self.corridorRoutes(seed: 7, corridors: 1, copies: 40, loners: 1, points: 2_000)
        let tiler = RouteTiler(routes: routes, options: Self.options(budget: 8_192))
        let tile = TileID(z: 10, x: 518, y: 352)
        let unboundedTiler = RouteTiler(routes: routes, options: Self.options(budget: 0))
        let unbounded = try #require(try unboundedTiler.tile(z: 10, x: 518, y: 352))
        let unboundedBytes = try Gzip.compress(unbounded).count
        let (mvt, reduction) = try #require(Self.cut(tiler, tile))
        let fitted = try #require(reduction, "an unbounded tile of \(unboundedBytes) B")
        #expect(try Gzip.compress(mvt).count <= 8_192)
        let layer = try #require(VectorTileDecoder.decode(mvt).layer(named: "routes"))
        let counts = layer.features.compactMap { f in f.properties.first { $0.key == "count" }?.value }
        #expect(counts.count == layer.features.count, "every line of a fitted tile has count")
        // The stretch every copy drives (the base's middle half) is drawn once, counting all 40.
        #expect(counts.contains(.int(40)))
        #expect(layer.features.allSatisfy { f in
            guard case let .int(n)? = f.properties.first(where: { $0.key == "count" })?.value else { return false }
            return n >= 1 && n <= 40
        })
        // The walk of its own keeps its id and name, with count 1.
        let walk = try #require(layer.features.first(where: { $0.id == 41 }))
        #expect(walk.properties.contains(Property("name", .string("walk 41"))))
        #expect(walk.properties.contains(Property("count", .int(1))))
        #expect(fitted.linesBefore == 41 && fitted.gridPixels == 1 && !fitted.dropped, "\(fitted)")
    }

    /// A budget merging cannot meet (below the options' least, so given to the fitter itself): coarser grids, then
    /// the least visible lines left out; the tile still fits and the most travelled corridors are still drawn.
    @Test func aTinyBudgetDropsTheLeastVisibleLast() throws {
        let routes = Self.corridorRoutes(seed: 9, corridors: 3, copies: 30, loners: 200, points: 400)
        let cut = try #require(try RouteTiler(routes: routes, options: Self.options(budget: 0)).tile(z: 10, x: 518, y: 352))
        let (mvt, reduction) = TileFitter.fit(cut, maxBytes: 1_500, level: 6)
        let fitted = try #require(reduction)
        #expect(try Gzip.compress(mvt).count <= 1_500)
        #expect(fitted.gridPixels == 32 && fitted.droppedLines > 0, "\(fitted)")
        let layer = try #require(VectorTileDecoder.decode(mvt).layer(named: "routes"))
        let counts = layer.features.compactMap { f -> Int64? in
            guard case let .int(n)? = f.properties.first(where: { $0.key == "count" })?.value else { return nil }
            return n
        }
        #expect((counts.max() ?? 0) >= 25, "the corridors outlast the walks: \(counts.sorted().suffix(5))")
    }

    @Test func theBudgetIsAnOptionWithLimits() {
        var o = TilingOptions()
        #expect(o.maxTileBytes == 500_000 && o.problem == nil)
        o.maxTileBytes = 0
        #expect(o.problem == nil)
        o.maxTileBytes = 100
        #expect(o.problem?.contains("budget") == true)
    }
}
