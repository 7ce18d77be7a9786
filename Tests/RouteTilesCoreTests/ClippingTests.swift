import Testing
import RouteTiles
@testable import RouteTilesTiling
import RouteTilesCoreTestSupport

/// Clipping of single segments and whole lines against a buffered tile.
@Suite struct ClippingTests {
    let box = MapRect(minX: 0, minY: 0, maxX: 100, maxY: 100)

    @Test func segmentInsideIsUntouched() throws {
        let t = try #require(TileCutter.clip(10, 10, 90, 90, to: box))
        #expect(t.0 == 0 && t.1 == 1)
    }

    @Test func segmentWhollyOutsideIsCulled() {
        #expect(TileCutter.clip(-10, -10, -1, 50, to: box) == nil)
        #expect(TileCutter.clip(110, 0, 120, 100, to: box) == nil)
        // Its bounding box meets the tile, the segment does not.
        #expect(TileCutter.clip(-50, 60, 60, 150, to: box) == nil)
    }

    @Test func segmentAlongAnEdgeIsKept() throws {
        let t = try #require(TileCutter.clip(0, -50, 0, 150, to: box))
        #expect(t.0 == 0.25 && t.1 == 0.75)
    }

    @Test func segmentThroughACorner() throws {
        // The diagonal y = x passes through both corners (0,0) and (100,100).
        let t = try #require(TileCutter.clip(-100, -100, 200, 200, to: box))
        #expect(abs(t.0 - 1.0 / 3) < 1e-15 && abs(t.1 - 2.0 / 3) < 1e-15)
        // Touching one corner from outside gives a single point: t0 == t1.
        let touch = try #require(TileCutter.clip(-10, 110, 10, 90, to: MapRect(minX: 0, minY: 0, maxX: 100, maxY: 100)))
        #expect(touch.0 == 0.5 && touch.1 == 1)
    }

    @Test func endpointExactlyOnTheBufferLineIsInside() throws {
        let t = try #require(TileCutter.clip(100, 50, 150, 50, to: box))
        #expect(t.0 == 0 && t.1 == 0)
        let u = try #require(TileCutter.clip(50, 50, 100, 50, to: box))
        #expect(u.0 == 0 && u.1 == 1)
    }

    /// A zig-zag that leaves and re-enters one z1 tile many times becomes that many parts, each where an
    /// independent clip puts it, and each starting or ending on the buffered bottom edge, where the line crosses
    /// into the southern hemisphere.
    @Test func lineLeavingAndComingBackBecomesSeparateParts() throws {
        var points: [Coordinate] = []
        for i in 0..<10 {
            points.append(Coordinate(longitude: -30 + Double(i) * 5, latitude: i % 2 == 0 ? 20 : -20))
        }
        var options = Sample.options(maxZoom: 1)
        options.simplification = 0
        let tiler = RouteTiler(routes: [Route(parts: [points])], options: options)
        let all = [TileID(z: 1, x: 0, y: 0), TileID(z: 1, x: 1, y: 0), TileID(z: 1, x: 0, y: 1), TileID(z: 1, x: 1, y: 1)]
        let problems = try ReferenceClip.onDemandDifferences(tiler, zoom: 1, tiles: all)
        #expect(problems.isEmpty, "\(problems)")
        // Tile 1/0/0 is the north-west quarter, its buffer reaching 2.8°E: the line enters it for the peaks at 30°W,
        // 20°W, 10°W and 0°, not for the one at 10°E.
        let mvt = try #require(try tiler.tile(z: 1, x: 0, y: 0))
        let parts = try #require(try VectorTileDecoder.decode(mvt).layers.first?.features.first).geometry.parts
        #expect(parts.count == 4)
        let high = Int32(options.extent + options.buffer)
        for part in parts { #expect(part.first?.y == high || part.last?.y == high, "\(part)") }
    }
}

/// Whole routes cut into tiles, compared with an independent clip (`ReferenceClip`) of the same projected routes:
/// every part in the right place within a tile unit, none missing, none extra. Simplification is off, so that
/// every vertex is written.
@Suite struct TileCutAgainstReferenceTests {
    /// The tile the hand-made routes are drawn around, in its tile units.
    static let home = TileID(z: 10, x: 530, y: 350)

    /// Routes from tile-unit points of `home`, with ids 1, 2, …
    static func tiler(_ lines: [[(Double, Double)]], maxZoom: Int = 12) -> RouteTiler {
        let routes = lines.enumerated().map { index, line in
            Route(id: .number(UInt64(index + 1)), parts: [line.map { ReferenceClip.coordinate(home, $0.0, $0.1) }])
        }
        var options = Sample.options(maxZoom: maxZoom)
        options.simplification = 0
        return RouteTiler(routes: routes, options: options)
    }

    /// `home` and the tiles around it, `radius` tiles each way.
    static func around(_ radius: Int) -> [TileID] {
        var tiles: [TileID] = []
        for dy in -radius...radius {
            for dx in -radius...radius { tiles.append(TileID(z: home.z, x: home.x + dx, y: home.y + dy)) }
        }
        return tiles
    }

    static func parts(_ tiler: RouteTiler, _ tile: TileID, route id: UInt64) throws -> [[TilePoint]] {
        guard let mvt = try tiler.tile(z: tile.z, x: tile.x, y: tile.y) else { return [] }
        return try VectorTileDecoder.decode(mvt).layers.first?.features.first { $0.id == id }?.geometry.parts ?? []
    }

    /// A line that weaves in and out across the top of the buffered tile is cut into one part per visit, each
    /// entering and leaving on the buffered edge, in every tile it reaches.
    @Test func lineWeavingAcrossAnEdgeIsCutIntoItsVisits() throws {
        var line: [(Double, Double)] = []
        for k in 0...10 { line.append((-300 + Double(k) * 470, k % 2 == 0 ? -400 : 300)) }
        let tiler = Self.tiler([line])
        let problems = try ReferenceClip.onDemandDifferences(tiler, zoom: 10, tiles: Self.around(1))
        #expect(problems.isEmpty, "\(problems)")
        let parts = try Self.parts(tiler, Self.home, route: 1)
        // In `home` the line comes in through the buffered left edge and leaves over the top, comes back over the
        // top three times, and once more to leave through the right edge.
        #expect(parts.count == 5)
        #expect(parts.first?.first?.x == -64 && parts.last?.last?.x == 4160)
        for part in parts.dropFirst().dropLast() { #expect(part.first?.y == -64 && part.last?.y == -64, "\(part)") }
    }

    /// A diagonal through the corner shared by four tiles is drawn in all four; a segment that only cuts across
    /// the buffered corner of a tile is drawn there as a short part from one buffered edge to the other.
    @Test func linesThroughCornersAreDrawnInEveryTileTheyReach() throws {
        let diagonal: [(Double, Double)] = [(-1000, -1000), (1000, 1000)]
        // x + y = 8200 passes home's buffered corner (4160, 4160) on the inside.
        let cornerCut: [(Double, Double)] = [(4300, 3900), (3900, 4300)]
        let tiler = Self.tiler([diagonal, cornerCut])
        let problems = try ReferenceClip.onDemandDifferences(tiler, zoom: 10, tiles: Self.around(1))
        #expect(problems.isEmpty, "\(problems)")
        for (dx, dy) in [(0, 0), (-1, 0), (0, -1), (-1, -1)] {
            let tile = TileID(z: 10, x: Self.home.x + dx, y: Self.home.y + dy)
            #expect(try Self.parts(tiler, tile, route: 1).count == 1, "\(tile)")
        }
        let corner = try Self.parts(tiler, Self.home, route: 2)
        #expect(corner.count == 1)
        let ends = [corner.first?.first, corner.first?.last]
        #expect(ends == [TilePoint(x: 4160, y: 4040), TilePoint(x: 4040, y: 4160)], "\(corner)")
        for (dx, dy) in [(1, 0), (0, 1), (1, 1)] {
            let tile = TileID(z: 10, x: Self.home.x + dx, y: Self.home.y + dy)
            #expect(try Self.parts(tiler, tile, route: 2).count == 1, "\(tile)")
        }
    }

    /// A line along a tile's edge belongs to both tiles that share the edge; a line exactly on the buffer's edge
    /// is inside (edges are included), and one just beyond it is in no part of that tile.
    @Test func linesAlongEdgesAreKept() throws {
        let seam: [(Double, Double)] = [(0, 500), (0, 3500)]
        let onBuffer: [(Double, Double)] = [(-64, 600), (-64, 3400)]
        let beyond: [(Double, Double)] = [(-80, 700), (-80, 3300)]
        let tiler = Self.tiler([seam, onBuffer, beyond])
        let problems = try ReferenceClip.onDemandDifferences(tiler, zoom: 10, tiles: Self.around(1))
        #expect(problems.isEmpty, "\(problems)")
        let west = TileID(z: 10, x: Self.home.x - 1, y: Self.home.y)
        #expect(try Self.parts(tiler, Self.home, route: 1).first?.allSatisfy { $0.x == 0 } == true)
        #expect(try Self.parts(tiler, west, route: 1).first?.allSatisfy { $0.x == 4096 } == true)
        #expect(try Self.parts(tiler, Self.home, route: 2).first?.allSatisfy { $0.x == -64 } == true)
        #expect(try Self.parts(tiler, Self.home, route: 3).isEmpty)
        #expect(try Self.parts(tiler, west, route: 3).count == 1)
    }

    /// Seeded random routes that cross many tiles in every direction agree with the reference clip in every
    /// tile of three zooms.
    @Test func randomRoutesAgreeWithTheReferenceClip() throws {
        var rng = SeededGenerator(seed: 12)
        var lines: [[(Double, Double)]] = []
        for _ in 0..<16 {
            var line: [(Double, Double)] = []
            for _ in 0..<24 { line.append((.random(in: -5000...9000, using: &rng), .random(in: -5000...9000, using: &rng))) }
            lines.append(line)
        }
        let tiler = Self.tiler(lines)
        var compared = 0
        for zoom in [9, 10, 11] {
            let problems = try ReferenceClip.onDemandDifferences(tiler, zoom: zoom)
            #expect(problems.isEmpty, "z\(zoom): \(problems.count) differences, first \(problems.prefix(3))")
            compared += ReferenceClip().cut(tiler.projected, zoom: zoom).count
        }
        #expect(compared > 60)
    }
}
