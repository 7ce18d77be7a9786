import Testing
@testable import RouteTiles

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

    /// A zig-zag that leaves and re-enters one z1 tile many times becomes that many parts, each ending on the
    /// buffered edge.
    @Test func lineLeavingAndComingBackBecomesSeparateParts() throws {
        var points: [Coordinate] = []
        for i in 0..<10 {
            points.append(Coordinate(longitude: -30 + Double(i) * 5, latitude: i % 2 == 0 ? 20 : -20))
        }
        var options = Sample.options(maxZoom: 1)
        options.simplification = 0
        let tiler = RouteTiler(routes: [Route(parts: [points])], options: options)
        // Tile 1/0/0 is the north-west quarter: the line enters it five times.
        let mvt = try #require(tiler.tile(z: 1, x: 0, y: 0))
        let feature = try #require(try VectorTileDecoder.decode(mvt).layers.first?.features.first)
        let parts = feature.geometry.parts
        #expect(parts.count >= 3)
        let low = Int32(-options.buffer), high = Int32(options.extent + options.buffer)
        for part in parts {
            #expect(part.count >= 2)
            for p in part { #expect(p.x >= low && p.x <= high && p.y >= low && p.y <= high) }
            // Every part starts or ends on the buffered bottom edge (y = extent + buffer), the points where the
            // line crosses the equator.
            #expect(part.first?.y == high || part.last?.y == high)
        }
    }

    @Test func segmentIndexFindsTheSameRunsAsAScan() {
        var rng = SeededGenerator(seed: 5)
        var routes: [Route] = []
        for _ in 0..<40 {
            routes.append(Route(parts: [Sample.track(count: 200, lon: .random(in: -170...170, using: &rng),
                                                     lat: .random(in: -60...60, using: &rng), step: 0.05, using: &rng)]))
        }
        let tiler = RouteTiler(routes: routes, options: Sample.options(maxZoom: 10))
        for _ in 0..<200 {
            let z = Int.random(in: 0...10, using: &rng)
            let tile = TileID(z: z, x: Int.random(in: 0..<(1 << z), using: &rng), y: Int.random(in: 0..<(1 << z), using: &rng))
            let box = WebMercator.bounds(of: tile, extent: 4096, buffer: 64)
            var scanned = SpanList()
            SpanFilter.select(tiler.rootSpans, meeting: box, in: tiler.routes, into: &scanned)
            #expect(tiler.spans(for: tile) == scanned.spans)
        }
    }
}
