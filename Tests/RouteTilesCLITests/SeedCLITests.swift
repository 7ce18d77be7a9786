import Foundation
import Testing
import RouteTiles
@testable import RouteTilesServer
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `routetiles seed` and `routetiles convert` as a user runs them: the real binary, against a real server on
/// loopback, into real archives.
@Suite(.serialized) struct SeedCLITests {
    let samples = PackageFolder.root.appendingPathComponent("Tiles/samples")
    func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    func routetiles(_ arguments: [String]) async throws -> ExternalTool.Result {
        try await ExternalTool.runDetached(ExternalTool.routetiles, arguments, timeout: 300)
    }

    /// The `z<N>\t<count>` lines of a dry run, by zoom, and its total.
    func dryRunCounts(_ text: String) -> (zooms: [Int: Int], total: Int?) {
        var zooms: [Int: Int] = [:]
        var total: Int?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            guard fields.count == 2, let n = Int(fields[1]) else { continue }
            if fields[0] == "total" { total = n } else if fields[0].hasPrefix("z"), let z = Int(fields[0].dropFirst()) { zooms[z] = n }
        }
        return (zooms, total)
    }

    @Test func dryRunCountsExactlyTheTilesBuildWritesAndShardsSplitThem() async throws {
        let tmp = try TemporaryFolder()
        // Flights of two points each, drawn along geodesics: seed must read and densify exactly as build does.
        let flights = tmp.path("flights.geojson")
        try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"LAX-JFK"},"geometry":{"type":"LineString","coordinates":[[-118.408,33.942],[-73.779,40.640]]}},{"type":"Feature","properties":{"name":"NRT-SFO"},"geometry":{"type":"LineString","coordinates":[[140.386,35.765],[-122.375,37.619]]}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: flights))
        let inputs = [sample("paris-runs.geojson"), flights]
        let options = ["--maxzoom", "9", "--buffer", "32", "--geodesic"]
        let built = try await routetiles(["build"] + inputs + options + ["-o", tmp.path("pyramid"), "--quiet"])
        #expect(built.status == 0, "\(built.stderr)")
        var perZoom: [Int: Int] = [:]
        let ids = try TileStoreFormat.openSource(path: tmp.path("pyramid")).tileIDs()
        for id in ids { perZoom[id.z, default: 0] += 1 }

        let dry = try await routetiles(["seed"] + inputs + options + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let counts = dryRunCounts(dry.text)
        #expect(counts.zooms == perZoom)
        #expect(counts.total == ids.count)

        // Without --geodesic the flights are straight in Mercator: another set of tiles.
        let straight = try await routetiles(["seed"] + inputs + ["--maxzoom", "9", "--buffer", "32", "--dry-run"])
        #expect(dryRunCounts(straight.text).zooms != perZoom)

        var shardTotal = 0
        var shardZooms: [Int: Int] = [:]
        for i in 0..<3 {
            let part = try await routetiles(["seed"] + inputs + options + ["--dry-run", "--shard", "\(i)/3"])
            #expect(part.status == 0, "\(part.stderr)")
            let c = dryRunCounts(part.text)
            shardTotal += c.total ?? 0
            for (z, n) in c.zooms { shardZooms[z, default: 0] += n }
        }
        #expect(shardTotal == ids.count)
        #expect(shardZooms == perZoom)

        // A bounding box: all tiles meeting it.
        let box = try await routetiles(["seed", "--bbox", "2.2,48.8,2.4,48.9", "--minzoom", "10", "--maxzoom", "10", "--dry-run"])
        #expect(dryRunCounts(box.text).total == (try BoundingBox(parsing: "2.2,48.8,2.4,48.9")).tileCount(zoom: 10))
    }

    /// `seed --url …@2x.png` pre-warms a server's raster tiles: every tile of the cover drawn once and kept, as
    /// `/health`'s raster_cache counts, and answered from there afterwards (304 to the tag the seed saw).
    @Test func seedWarmsTheRasterTilesOfAServer() async throws {
        let input = sample("paris-runs.geojson")
        let serve = try await ServeProcess.start([input])
        let dry = try await routetiles(["seed", input, "--dry-run"])
        let total = try #require(dryRunCounts(dry.text).total)
        let seeded = try await routetiles(["seed", input, "--url", serve.base + "/tiles/{z}/{x}/{y}@2x.png"])
        // The report goes to standard error.
        #expect(seeded.status == 0 && seeded.stderr.contains("\(total) tiles warmed, 0 failed"), "\(seeded.stderr)")
        #expect(seeded.stderr.contains("HTTP 200: \(total)"), "\(seeded.stderr)")
        let (status, body) = try await serve.get("/health")
        let health = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        let raster = health?["raster_cache"] as? [String: Int]
        #expect(status == 200 && raster?["tiles"] == total, "\(String(describing: health))")
        #expect(await serve.stop() == 0)
    }

    @Test func seedOutputWritesTheTilesBuildWrites() async throws {
        let tmp = try TemporaryFolder()
        let input = sample("berlin-transit.geojson")
        let options = ["--maxzoom", "16", "--line-metrics", "--compression-level", "4"]
        #expect(try await routetiles(["build", input, "-o", tmp.path("built")] + options + ["--quiet"]).status == 0)
        let seeded = try await routetiles(["seed", input, "-o", tmp.path("seeded.mbtiles"), "--concurrency", "2"] + options)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        #expect(seeded.stderr.contains("wrote \(tmp.path("seeded.mbtiles"))"))
        let built = try TileStoreFormat.openSource(path: tmp.path("built"))
        let archive = try TileStoreFormat.openSource(path: tmp.path("seeded.mbtiles"))
        let ids = try built.tileIDs().sorted()
        #expect(ids.count > 100)
        #expect(try archive.tileIDs().sorted() == ids)
        for id in ids { #expect(try archive.gzipTile(id) == (try built.gzipTile(id)), "\(id)") }
        #expect(archive.metadata.layers == built.metadata.layers)
        #expect(archive.metadata.bounds == built.metadata.bounds && archive.metadata.center == built.metadata.center)
        #expect(archive.metadata.minZoom == 0 && archive.metadata.maxZoom == 16)

        // A part (a box, zooms 12–16): its metadata describes the part, not all the routes.
        let part = try await routetiles(["seed", input, "--bbox", "13.35,52.50,13.40,52.52", "--minzoom", "12", "--maxzoom", "16",
                                         "--line-metrics", "--compression-level", "4", "-o", tmp.path("part.pmtiles"), "--quiet"])
        #expect(part.status == 0, "\(part.stderr)")
        let partSource = try TileStoreFormat.openSource(path: tmp.path("part.pmtiles"))
        let m = partSource.metadata
        #expect(m.minZoom == 12 && m.maxZoom == 16)
        // Within the box widened by a z16 tile (about 0.0055° of longitude), and inside the routes' bounds.
        #expect(m.bounds[0] >= 13.35 - 0.006 && m.bounds[2] <= 13.40 + 0.006 && m.bounds[1] >= 52.50 - 0.004 && m.bounds[3] <= 52.52 + 0.004, "\(m.bounds)")
        #expect(m.bounds[0] >= built.metadata.bounds[0] && m.bounds[3] <= built.metadata.bounds[3])
        #expect((m.bounds[0]...m.bounds[2]).contains(m.center[0]) && (m.bounds[1]...m.bounds[3]).contains(m.center[1]) && (12...16).contains(m.center[2]))
        let partIDs = try partSource.tileIDs()
        #expect(partIDs.count > 5 && partIDs.allSatisfy { (12...16).contains($0.z) })
        for id in partIDs { #expect(try partSource.gzipTile(id) == (try built.gzipTile(id)), "\(id)") }
        // The archive exists now: a second run needs --force.
        let again = try await routetiles(["seed", input, "-o", tmp.path("seeded.mbtiles")] + options)
        #expect(again.status != 0 && again.stderr.contains("seeded.mbtiles"), "\(again.stderr)")
    }

    static func metric(_ text: String, _ name: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(Double(line.split(separator: " ")[1]) ?? -1)
        }
        return 0
    }

    /// The retries a seed job's closing report counts ("…, 2 retries").
    static func reportedRetries(_ report: String) -> Int {
        guard let range = report.range(of: #"(\d+) retries"#, options: .regularExpression) else { return 0 }
        return Int(report[range].split(separator: " ")[0]) ?? 0
    }

    func checkpointLines(_ path: String) throws -> [String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test func aKilledSeedJobResumesWithoutFetchingAFinishedTileAgain() async throws {
        let tmp = try TemporaryFolder()
        let input = sample("paris-runs.geojson")
        let routes = try RouteReader.read(path: input).routes
        var options = TilingOptions()
        options.maxZoom = 16
        let cover = RouteTiler(routes: routes, options: options).cover()
        #expect(cover.count > 150)
        let done = tmp.path("done.txt")
        try await TestServer.with(.routes(routes, options: options)) { server in
            let arguments = ["seed", input, "--maxzoom", "16", "--url", server.base + "/tiles/{z}/{x}/{y}.mvt",
                             "--checkpoint", done, "--concurrency", "1", "--rate", "100", "--quiet", "--timeout", "300"]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ExternalTool.routetiles)
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Generous: the server runs in this test process, beside every other suite, and can be slow to answer.
            let deadline = Date().addingTimeInterval(600)
            while Date() < deadline, process.isRunning, try checkpointLines(done).count < 40 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(process.isRunning, "the seed job ended before it could be killed")
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            let before = try checkpointLines(done)
            #expect(before.count >= 40 && before.count < cover.count)
            // A dry run with the checkpoint counts what is left.
            let left = try await routetiles(["seed", input, "--maxzoom", "16", "--checkpoint", done, "--dry-run"])
            #expect(dryRunCounts(left.text).total == cover.count - before.count, "\(left.text) \(left.stderr)")

            let resumed = try await routetiles(["seed", input, "--maxzoom", "16", "--url", server.base + "/tiles/{z}/{x}/{y}.mvt",
                                                "--checkpoint", done, "--concurrency", "4", "--timeout", "300"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stderr.contains("\(cover.count - before.count) tiles warmed, 0 failed, \(before.count) skipped"),
                    "\(resumed.stderr)")
            // Every tile of the cover recorded exactly once, the earlier lines first.
            let after = try checkpointLines(done)
            #expect(after.count == cover.count)
            #expect(Array(after.prefix(before.count)) == before)
            #expect(Set(after.compactMap { TileID($0) }) == cover)
            // The server saw each tile once, plus at most the one request in flight when the job was killed and the
            // retries the resumed job reports (a request that outlived its timeout, on a machine busy with every other
            // suite, still reaches the server; the long timeouts above make that rare).
            let retried = Self.reportedRetries(resumed.stderr)
            let metrics = try await server.get("/metrics").text
            let requests = Self.metric(metrics, "routetiles_tile_cache_misses_total") + Self.metric(metrics, "routetiles_tile_cache_hits_total")
            #expect(requests >= cover.count && requests <= cover.count + 1 + retried,
                    "\(requests) requests for \(cover.count) tiles, \(retried) retries: \(resumed.stderr)")

            // Once the checkpoint holds everything, a run requests nothing.
            let idle = try await routetiles(arguments)
            #expect(idle.status == 0)
            let metricsAfter = try await server.get("/metrics").text
            #expect(Self.metric(metricsAfter, "routetiles_tile_cache_misses_total") + Self.metric(metricsAfter, "routetiles_tile_cache_hits_total") == requests)
        }
    }

    @Test func failedTilesAreReportedAndTheJobFails() async throws {
        let routes = Sample.parisRoutes(count: 1, points: 100)
        try await TestServer.with(.routes(routes, options: TestServer.options(maxZoom: 3))) { server in
            let tmp = try TemporaryFolder()
            let list = tmp.path("tiles.txt")
            // Zoom 4 lies outside the server's zoom range (404); zoom 2 is served.
            try Data("2/2/1\n4/8/5\n".utf8).write(to: URL(fileURLWithPath: list))
            let r = try await routetiles(["seed", "--tile-list", list, "--url", server.base + "/tiles/{z}/{x}/{y}.mvt", "--retries", "0"])
            #expect(r.status == 1)
            #expect(r.stderr.contains("1 tiles warmed, 1 failed"), "\(r.stderr)")
            #expect(r.stderr.contains("failed 4/8/5: HTTP 404"), "\(r.stderr)")
        }
    }

    @Test func badArgumentsAndTileListsGetClearErrors() async throws {
        let tmp = try TemporaryFolder()
        let list = tmp.path("expire.log")
        try Data("3/1/2\n3/9/1\n".utf8).write(to: URL(fileURLWithPath: list))
        let bad = try await routetiles(["seed", "--tile-list", list, "--dry-run"])
        #expect(bad.status != 0 && bad.stderr.contains("\(list):2:1: 3/9/1 is not a tile"), "\(bad.stderr)")
        let noTarget = try await routetiles(["seed", sample("paris-runs.geojson")])
        #expect(noTarget.status != 0 && noTarget.stderr.contains("give --url or --output (or --dry-run)"), "\(noTarget.stderr)")
        let badShard = try await routetiles(["seed", sample("paris-runs.geojson"), "--dry-run", "--shard", "3/3"])
        #expect(badShard.status != 0 && badShard.stderr.contains("0 ≤ i < n"), "\(badShard.stderr)")
        let badURL = try await routetiles(["seed", sample("paris-runs.geojson"), "--url", "http://127.0.0.1:1/tiles"])
        #expect(badURL.status != 0 && badURL.stderr.contains("{z}"), "\(badURL.stderr)")
        // An expire log widened to parents and children.
        try Data("# changed\n3/1/2\n".utf8).write(to: URL(fileURLWithPath: list))
        let wide = try await routetiles(["seed", "--tile-list", list, "--expand-zooms", "2-4", "--dry-run"])
        #expect(dryRunCounts(wide.text).zooms == [2: 1, 3: 1, 4: 4], "\(wide.text) \(wide.stderr)")
        // A list from a pipe (standard input here), as `tail -f expire.log | …` or `<(…)` give one.
        let piped = try await ExternalTool.runDetached(ExternalTool.routetiles, ["seed", "--tile-list", "/dev/stdin", "--dry-run"],
                                                       stdin: Array("5/1/1\n5/2/2\n6/0/0\n".utf8))
        #expect(dryRunCounts(piped.text).zooms == [5: 2, 6: 1], "\(piped.text) \(piped.stderr)")
    }

    @Test func convertCopiesEveryTileAndTheMetadataBetweenAllStores() async throws {
        let tmp = try TemporaryFolder()
        let built = try await routetiles(["build", sample("berlin-transit.geojson"), sample("zurich-osrm-route.json"),
                                          "-o", tmp.path("folder"), "--maxzoom", "14", "--quiet"])
        #expect(built.status == 0, "\(built.stderr)")
        let chain = ["folder", "a.mbtiles", "b.pmtiles", "c", "d.mbtiles"]
        for (from, to) in zip(chain, chain.dropFirst()) {
            let r = try await routetiles(["convert", tmp.path(from), tmp.path(to)])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("wrote \(tmp.path(to))"))
        }
        let original = try TileStoreFormat.openSource(path: tmp.path("folder"))
        let ids = try original.tileIDs().sorted()
        #expect(ids.count > 40)
        #expect(original.metadata.layers.map(\.id).sorted() == ["density", "maneuvers", "routes", "steps"])
        for name in chain.dropFirst() {
            let copy = try TileStoreFormat.openSource(path: tmp.path(name))
            #expect(try copy.tileIDs().sorted() == ids, "\(name)")
            for id in ids { #expect(try copy.gzipTile(id) == (try original.gzipTile(id)), "\(name) \(id)") }
            #expect(copy.metadata.layers == original.metadata.layers, "\(name)")
            #expect(copy.metadata.bounds.count == 4 && zip(copy.metadata.bounds, original.metadata.bounds).allSatisfy { abs($0 - $1) < 1e-6 },
                    "\(name): \(copy.metadata.bounds)")
        }
        let exists = try await routetiles(["convert", tmp.path("folder"), tmp.path("a.mbtiles")])
        #expect(exists.status != 0 && exists.stderr.contains("a.mbtiles"), "\(exists.stderr)")
        let forced = try await routetiles(["convert", tmp.path("b.pmtiles"), tmp.path("a.mbtiles"), "--force", "--quiet"])
        #expect(forced.status == 0 && forced.stderr.isEmpty, "\(forced.stderr)")
        let missing = try await routetiles(["convert", tmp.path("nothing.pmtiles"), tmp.path("x.mbtiles")])
        #expect(missing.status != 0 && missing.stderr.contains("nothing.pmtiles"), "\(missing.stderr)")
    }

    /// Folders written by other tools: tippecanoe's `-e` names tiles `.pbf`, and some tools store them uncompressed.
    @Test(.enabled(if: ExternalTool.required(ExternalTool.available("tippecanoe"))))
    func convertReadsPbfFoldersAndCompressesPlainTiles() async throws {
        let tmp = try TemporaryFolder()
        let input = sample("berlin-transit.geojson")
        let tippecanoe = try await ExternalTool.runDetached("/usr/bin/env", ["tippecanoe", "-q", "-z10", "-l", "routes", "-e", tmp.path("tc"), input])
        #expect(tippecanoe.status == 0, "\(tippecanoe.stderr)")
        let converted = try await routetiles(["convert", tmp.path("tc"), tmp.path("tc.pmtiles"), "--quiet"])
        #expect(converted.status == 0, "\(converted.stderr)")
        let folder = try TileStoreFormat.openSource(path: tmp.path("tc"))
        let archive = try TileStoreFormat.openSource(path: tmp.path("tc.pmtiles"))
        let ids = try folder.tileIDs().sorted()
        #expect(ids.count > 10)
        #expect(try archive.tileIDs().sorted() == ids)
        for id in ids {
            let tile = try #require(try archive.gzipTile(id))
            #expect(Gzip.isCompressed(tile))
            #expect(tile == (try folder.gzipTile(id)))
            #expect(!(try VectorTileDecoder.decode(try Gzip.decompress(tile)).layers.isEmpty))
        }

        // Our own pyramid with its tiles inflated and renamed .pbf converts to the same tiles.
        #expect(try await routetiles(["build", input, "-o", tmp.path("ours"), "--maxzoom", "10", "--quiet"]).status == 0)
        let ours = try TileStoreFormat.openSource(path: tmp.path("ours"))
        let plain = tmp.url.appendingPathComponent("plain")
        try FileManager.default.copyItem(at: tmp.url.appendingPathComponent("ours"), to: plain)
        let oursIDs = try ours.tileIDs().sorted()
        for id in oursIDs {
            let mvt = plain.appendingPathComponent("\(id.z)/\(id.x)/\(id.y).mvt")
            let inflated = try Gzip.decompress(Array(try Data(contentsOf: mvt)))
            try FileManager.default.removeItem(at: mvt)
            try Data(inflated).write(to: plain.appendingPathComponent("\(id.z)/\(id.x)/\(id.y).pbf"))
        }
        #expect(try await routetiles(["convert", plain.path, tmp.path("plain.mbtiles"), "--quiet"]).status == 0)
        let copy = try TileStoreFormat.openSource(path: tmp.path("plain.mbtiles"))
        #expect(try copy.tileIDs().sorted() == oursIDs)
        for id in oursIDs {
            let tile = try #require(try copy.gzipTile(id))
            #expect(Gzip.isCompressed(tile))
            #expect(try Gzip.decompress(tile) == (try Gzip.decompress(try #require(try ours.gzipTile(id)))))
        }
    }
}
