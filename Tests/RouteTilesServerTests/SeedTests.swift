import Foundation
import Testing
import RouteTiles
@testable import RouteTilesSeed
@testable import RouteTilesServer
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Tile sets for seeding (cover, bounding box, lists, shards) and seed jobs against a real server on loopback.
@Suite struct SeedTests {
    @Test(arguments: [(64, 1.0, false), (0, 0.0, true), (256, 2.0, false)])
    func coverIsExactlyTheSetOfTilesABuildWrites(buffer: Int, simplify: Double, lineMetrics: Bool) throws {
        var options = Sample.options(minZoom: 2, maxZoom: 13)
        options.buffer = buffer
        options.simplification = simplify
        options.lineMetrics = lineMetrics
        let (tiler, tiles) = try Sample.build(Sample.parisRoutes(count: 5, points: 1500), options)
        #expect(tiles.count > 30)
        #expect(tiler.cover() == Set(tiles.keys))
        #expect(tiler.cover(zooms: 5...7) == Set(tiles.keys.filter { (5...7).contains($0.z) }))
    }

    @Test func coverOfALongDiagonalRouteIsFarBelowItsBoundingBox() throws {
        // A straight route from Lisbon to Moscow.
        let line = (0...2000).map { k -> Coordinate in
            let f = Double(k) / 2000
            return Coordinate(longitude: -9.14 + f * (37.62 + 9.14), latitude: 38.72 + f * (55.75 - 38.72))
        }
        let tiler = RouteTiler(routes: [Route(id: .number(1), properties: [], parts: [line])], options: Sample.options(minZoom: 14, maxZoom: 14))
        let cover = tiler.cover()
        let box = BoundingBox(west: -9.14, south: 38.72, east: 37.62, north: 55.75)
        #expect(cover.count > 1000)
        #expect(cover.count * 100 < box.tileCount(zoom: 14), "\(cover.count) of \(box.tileCount(zoom: 14))")
        // Within the box's tiles, widened by one for the buffer.
        let range = box.tileRange(zoom: 14)
        #expect(cover.allSatisfy { t in
            (range.x.lowerBound - 1...range.x.upperBound + 1).contains(t.x) && (range.y.lowerBound - 1...range.y.upperBound + 1).contains(t.y)
        })
    }

    /// A route whose segments span continents and world copies (the fixes schemathesis sent to
    /// `POST /routes/{id}/points`: 0,0 then -474.7,90 then 167,0) is covered along its segments: tiles their
    /// bounding boxes meet but the segments miss are not descended into. Before, every tile of the boxes was cut at
    /// every zoom, which took hours (the server stopped answering): without the fix this test does not finish, and
    /// the time limit reports it once the cut returns.
    @Test(.timeLimit(.minutes(1))) func coverOfSegmentsAcrossTheWorldFollowsTheSegments() throws {
        let line = [Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: -474.6951457987235, latitude: 89.99999999999999),
                    Coordinate(longitude: 166.97607915528704, latitude: 0)]
        let tiler = RouteTiler(routes: [Route(id: .number(1), properties: [], parts: [line])],
                               options: Sample.options(minZoom: 0, maxZoom: 14))
        let cover = tiler.cover()
        #expect(cover.filter { $0.z == 14 }.count * 100 < (1 << 14) * (1 << 14))
        // At z6, exactly the tiles the engine draws the route in.
        var drawn = Set<TileID>()
        for x in 0..<64 {
            for y in 0..<64 where try tiler.tile(z: 6, x: x, y: y) != nil { drawn.insert(TileID(z: 6, x: x, y: y)) }
        }
        #expect(!drawn.isEmpty)
        #expect(cover.filter { $0.z == 6 } == drawn)
    }

    @Test func boundingBoxTilesAndErrors() throws {
        let box = try BoundingBox(parsing: "2.2,48.8,2.4,48.9")
        // Paris at z10: columns 518–518 and rows 352–352 (tile 10/518/352 holds the centre).
        #expect(box.tiles(zoom: 10).contains(TileID(z: 10, x: 518, y: 352)))
        #expect(box.tiles(zoom: 0) == [TileID(z: 0, x: 0, y: 0)])
        #expect(box.tileCount(zoom: 12) == box.tiles(zoom: 12).count)
        #expect { try BoundingBox(parsing: "2,48,x,49") } throws: { "\($0)".contains("east (part 3) is not a number") }
        #expect { try BoundingBox(parsing: "3,48,2,49") } throws: { "\($0)".contains("west ≤ east") }
    }

    @Test func shardsAreDisjointAndTogetherWhole() throws {
        let tiles = RouteTiler(routes: Sample.parisRoutes(count: 5, points: 500), options: Sample.options(maxZoom: 14)).cover()
        let parts = try (0..<3).map { try TileShard(index: $0, count: 3).select(tiles) }
        #expect(parts.map(\.count).reduce(0, +) == tiles.count)
        #expect(Set(parts.flatMap { $0 }) == tiles)
        for p in parts { #expect(Set(p).count == p.count) }
        #expect(Set(parts[0]).isDisjoint(with: parts[1]) && Set(parts[1]).isDisjoint(with: parts[2]))
        // Within each zoom, each part holds a third, give or take one tile.
        for z in 10...14 {
            let counts = parts.map { $0.filter { $0.z == z }.count }
            #expect(counts.max()! - counts.min()! <= 1, "z\(z): \(counts)")
        }
        // Deterministic: the same split from the tiles in another order.
        #expect(try TileShard(parsing: "1/3").select(Array(tiles).reversed()) == parts[1])
        #expect { try TileShard(parsing: "3/3") } throws: { "\($0)".contains("0 ≤ i < n") }
    }

    @Test func tileListsNameLineAndColumnAndExpandAcrossZooms() throws {
        let tiles = try TileListFile.parse("# expire log\n3/1/2\n\n  4/5/6.mvt\r\n", file: "x.txt")
        #expect(tiles == [TileID(z: 3, x: 1, y: 2), TileID(z: 4, x: 5, y: 6)])
        #expect { try TileListFile.parse("3/1/2\n4/5/x\n", file: "x.txt") } throws: { "\($0)" == "x.txt:2:5: y 'x' is not a non-negative integer" }
        #expect { try TileListFile.parse("2/4/0\n", file: "x.txt") } throws: { "\($0)".hasPrefix("x.txt:1:1: 2/4/0 is not a tile") }
        #expect { try TileListFile.parse("1/2\n", file: "x.txt") } throws: { "\($0)".hasPrefix("x.txt:1:1: expected z/x/y") }
        let wide = ZoomExpansion.expand([TileID(z: 3, x: 1, y: 2)], to: try ZoomExpansion.parse("2-5"))
        #expect(wide.count == 1 + 1 + 4 + 16)
        #expect(wide.contains(TileID(z: 2, x: 0, y: 1)) && wide.contains(TileID(z: 5, x: 7, y: 11)))
        #expect(throws: ValueError.self) { try ZoomExpansion.parse("5-2") }
    }

    @Test func checkpointSurvivesACutShortLineAndResumes() throws {
        let tmp = try TemporaryFolder()
        let path = tmp.path("done.txt")
        try Data("1/0/0\n2/1/1\n3/4/".utf8).write(to: URL(fileURLWithPath: path))
        let c = try SeedCheckpoint(path: path, batch: 2)
        #expect(c.done == [TileID(z: 1, x: 0, y: 0), TileID(z: 2, x: 1, y: 1)])
        try c.record(TileID(z: 3, x: 4, y: 5))
        try c.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "1/0/0\n2/1/1\n3/4/5\n")
        try Data("1/0/0\nnope\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect { try SeedCheckpoint(path: path) } throws: { "\($0)".contains(":2:1: not a z/x/y tile") }
    }

    static func metric(_ text: String, _ name: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(Double(line.split(separator: " ")[1]) ?? -1)
        }
        return 0
    }

    @Test func seedRequestsEveryTileOfTheCoverOnce() async throws {
        let routes = Sample.parisRoutes(count: 4, points: 300)
        let options = TestServer.options(maxZoom: 14)
        let cover = RouteTiler(routes: routes, options: options).cover()
        let tmp = try TemporaryFolder()
        let done = tmp.path("done.txt")
        try await TestServer.with(.routes(routes, options: options)) { server in
            var seeder = HTTPSeeder(template: try TileURLTemplate(server.base + "/tiles/{z}/{x}/{y}.mvt"))
            seeder.concurrency = 4
            let checkpoint = try SeedCheckpoint(path: done)
            let report = await seeder.run(TileShard.ordered(cover), client: TestServer.client, checkpoint: checkpoint)
            #expect(report.failed.isEmpty, "\(report.summary)")
            #expect(report.statuses == [200: cover.count])
            #expect(report.bytes > cover.count * 20)
            let metrics = try await server.get("/metrics").text
            #expect(Self.metric(metrics, "routetiles_tile_cache_misses_total") == cover.count)
            #expect(Self.metric(metrics, "routetiles_tile_cache_hits_total") == 0)
            #expect(try SeedCheckpoint(path: done).done == cover)
            // Run again with the checkpoint: nothing is requested.
            let again = await seeder.run(TileShard.ordered(cover), client: TestServer.client,
                                         checkpoint: try SeedCheckpoint(path: done))
            #expect(again.skipped == cover.count && again.statuses.isEmpty)
            // A missing tile and a URL that is not a tile endpoint fail, with their status.
            seeder.template = try TileURLTemplate(server.base + "/nothing/{z}/{x}/{y}")
            let bad = await seeder.run([TileID(z: 1, x: 0, y: 0)], client: TestServer.client, checkpoint: nil)
            #expect(bad.failed.count == 1 && bad.statuses == [404: 1] && bad.failed[0].reason == "HTTP 404")
        }
    }

    @Test func retriesObeyRetryAfterAndGiveUpOnPersistentErrors() async throws {
        // Each tile is refused once with 429 and a Retry-After of one second, then served; 9/1/1 always fails
        // with 503, 9/2/2 is not found (no retry).
        let server = try await ScriptedHTTPServer { uri, n in
            switch uri {
            case "/t/9/1/1": return .init(status: 503, headers: [("Retry-After", "0")])
            case "/t/9/2/2": return .init(status: 404)
            default: return n == 1 ? .init(status: 429, headers: [("Retry-After", "1")]) : .init(status: 200, body: "tile")
            }
        }
        var seeder = HTTPSeeder(template: try TileURLTemplate(server.base + "/t/{z}/{x}/{y}"))
        seeder.backoffSeconds = 0.01
        seeder.retries = 2
        let tiles = [TileID(z: 9, x: 0, y: 0), TileID(z: 9, x: 0, y: 1), TileID(z: 9, x: 1, y: 1), TileID(z: 9, x: 2, y: 2)]
        let started = ContinuousClock.now
        let report = await seeder.run(tiles, client: TestServer.client, checkpoint: nil)
        let elapsed = ContinuousClock.now - started
        #expect(report.statuses == [200: 2, 503: 1, 404: 1], "\(report.summary)")
        #expect(report.failed.map(\.tile) .sorted { $0.x < $1.x } == [TileID(z: 9, x: 1, y: 1), TileID(z: 9, x: 2, y: 2)])
        #expect(report.failed.contains { $0.reason == "HTTP 503 after 3 attempt(s)" }, "\(report.summary)")
        #expect(report.retries == 2 + 2)
        #expect(report.bytes == 8)
        let requests = server.requests
        #expect(requests["/t/9/0/0"] == 2 && requests["/t/9/0/1"] == 2 && requests["/t/9/1/1"] == 3 && requests["/t/9/2/2"] == 1)
        // The 429s asked for a second's wait, far beyond the 10 ms backoff.
        #expect(elapsed >= .milliseconds(950))
        #expect(seeder.retryAfterSeconds("120") == 60 && seeder.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        try await server.close()
    }
}
