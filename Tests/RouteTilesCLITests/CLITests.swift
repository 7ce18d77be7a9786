import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The `routetiles` binary, run as a user would.
@Suite(.serialized) struct CLITests {
    let samples = PackageFolder.root.appendingPathComponent("Tiles/samples")

    func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    func files(under folder: String) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        let base = URL(fileURLWithPath: folder)
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            let url = base.appendingPathComponent(relative)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                result[relative] = Array(try Data(contentsOf: url))
            }
        }
        return result
    }

    /// The executable's malloc is jemalloc's (linked by RouteTilesAllocator, for the write path's speed), and the
    /// check behind `--version` tells when it is not: with glibc's debugging malloc preloaded in front of it, the
    /// same binary names the system's malloc.
    @Test func theExecutableAllocatesThroughJemalloc() async throws {
        let linked = try await ExternalTool.runDetached(ExternalTool.routetiles, ["--version"])
        #expect(linked.status == 0)
        #expect(linked.text.contains("(allocator: jemalloc 5."), "\(linked.text)")
        let debugMalloc = "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"
        guard FileManager.default.fileExists(atPath: debugMalloc) else { return }
        let preloaded = try await ExternalTool.runDetached(ExternalTool.routetiles, ["--version"],
                                                           environment: ["LD_PRELOAD": debugMalloc])
        #expect(preloaded.text.contains("(allocator: the system's malloc)"), "\(preloaded.text)")
    }

    @Test func buildsTheSamplesWithMetadataAndTileJSON() async throws {
        let tmp = try TemporaryFolder()
        let out = tmp.path("samples")
        let r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("paris-runs.geojson"), sample("berlin-transit.geojson"),
                                                               sample("bike-rides.csv"), "-o", out, "--maxzoom", "10",
                                                               "--base-url", "https://tiles.example.com/samples/"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("1 Point"), "the skipped station is reported: \(r.stderr)")
        #expect(r.stderr.contains("z10"))
        let metadata = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/metadata.json"))) as? [String: Any])
        #expect(metadata["name"] as? String == "samples")
        #expect(metadata["format"] as? String == "pbf")
        #expect(metadata["minzoom"] as? String == "0" && metadata["maxzoom"] as? String == "10")
        let bounds = try #require((metadata["bounds"] as? String)?.split(separator: ",").compactMap { Double($0) })
        #expect(bounds.count == 4 && bounds[0] < -122 && bounds[2] > 13.3 && bounds[1] > 37 && bounds[3] < 53)
        let json = try #require((metadata["json"] as? String)?.data(using: .utf8))
        let layers = try #require((try JSONSerialization.jsonObject(with: json) as? [String: Any])?["vector_layers"] as? [[String: Any]])
        #expect(layers.count == 2 && layers[0]["id"] as? String == "routes" && layers[1]["id"] as? String == "density")
        #expect(layers[1]["maxzoom"] as? Int == 5 && (layers[1]["fields"] as? [String: String]) == ["count": "Number"])
        let fields = try #require(layers[0]["fields"] as? [String: String])
        #expect(fields["name"] == "String" && fields["length_m"] == "Number" && fields["accessible"] == "Boolean")

        let tilejson = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/tiles.json"))) as? [String: Any])
        #expect(tilejson["tilejson"] as? String == "3.0.0")
        #expect((tilejson["tiles"] as? [String]) == ["https://tiles.example.com/samples/{z}/{x}/{y}.mvt"])
        #expect((tilejson["vector_layers"] as? [[String: Any]])?.first?["id"] as? String == "routes")

        let all = try files(under: out)
        let tiles = all.filter { $0.key.hasSuffix(".mvt") }
        // At least one tile at every zoom.
        let zooms = Set(tiles.keys.compactMap { Int($0.split(separator: "/")[0]) })
        #expect(zooms == Set(0...10))
        #expect(tiles.values.allSatisfy { $0.starts(with: [0x1f, 0x8b]) })
        // Nothing but the pyramid is left in the parent folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.url.path) == ["samples"])
    }

    @Test func sameInputGivesByteIdenticalPyramidsAtAnyThreadCount() async throws {
        let tmp = try TemporaryFolder()
        for (name, threads) in [("a", "1"), ("b", "2"), ("c", "2")] {
            let r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("flights.geojson"), sample("paris-runs.geojson"),
                                                                   "-o", tmp.path(name), "--name", "same", "--maxzoom", "9",
                                                                   "--threads", threads, "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.isEmpty, "--quiet prints nothing: \(r.stderr)")
        }
        let a = try files(under: tmp.path("a"))
        #expect(a.count > 50)
        #expect(a == (try files(under: tmp.path("b"))))
        #expect(a == (try files(under: tmp.path("c"))))
    }

    @Test func syntaxErrorNamesFileLineAndColumnAndWritesNothing() async throws {
        let tmp = try TemporaryFolder()
        let bad = tmp.path("bad.geojson")
        try Data("{\"type\": \"FeatureCollection\",\n \"features\": [\n   {\"type\": \"Feature\" \"geometry\": null}\n]}\n".utf8)
            .write(to: URL(fileURLWithPath: bad))
        let r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", bad, "-o", tmp.path("out")])
        #expect(r.status != 0)
        #expect(r.stderr.contains("bad.geojson:3:"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp.path("out")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.url.path) == ["bad.geojson"])
    }

    @Test func invalidRouteStopsTheBuildUnlessSkipped() async throws {
        let tmp = try TemporaryFolder()
        let input = tmp.path("routes.geojson")
        try Data("""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}},
            {"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,95]]}},
            {"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0]]}}]}
            """.utf8).write(to: URL(fileURLWithPath: input))
        let strict = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", input, "-o", tmp.path("strict"), "--maxzoom", "3"])
        #expect(strict.status != 0)
        #expect(strict.stderr.contains("routes.geojson: feature 1:") && strict.stderr.contains("latitude"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp.path("strict")))

        let lenient = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", input, "-o", tmp.path("lenient"), "--maxzoom", "3",
                                                                     "--skip-invalid"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("skipped 2 invalid"), "\(lenient.stderr)")
        #expect(lenient.stderr.contains("1 routes"), "\(lenient.stderr)")
    }

    @Test func existingOutputIsReplacedOnlyWithForce() async throws {
        let tmp = try TemporaryFolder()
        let out = tmp.path("out")
        var r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("berlin-transit.geojson"), "-o", out, "--maxzoom", "4", "--name", "first"])
        #expect(r.status == 0)
        r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("paris-runs.geojson"), "-o", out, "--maxzoom", "4", "--name", "second"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("--force"))
        #expect(try String(contentsOfFile: out + "/metadata.json", encoding: .utf8).contains("\"first\""))
        r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("paris-runs.geojson"), "-o", out, "--maxzoom", "4", "--name", "second", "--force"])
        #expect(r.status == 0)
        #expect(try String(contentsOfFile: out + "/metadata.json", encoding: .utf8).contains("\"second\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.url.path) == ["out"])
    }

    /// Writes a GeoJSON file big enough that a debug build of it runs for several seconds.
    func writeLargeInput(_ path: String) throws {
        var rng = SeededGenerator(seed: 99)
        var text = #"{"type":"FeatureCollection","features":["#
        for i in 0..<20 {
            let coords = Sample.track(count: 8000, lon: .random(in: -20...20, using: &rng), lat: .random(in: 30...50, using: &rng),
                                      step: 0.0005, using: &rng)
            text += (i > 0 ? "," : "") + #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":["#
            text += coords.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",") + "]}}"
        }
        try Data((text + "]}").utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Interrupts a long build over `out` once tiles are being written into its staging folder; returns its status
    /// and the staging folder's name.
    func interruptBuild(input: String, out: String, signal: Int32) async throws -> (Int32, String) {
        let parent = URL(fileURLWithPath: out).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: out).lastPathComponent
        let staging: @Sendable (Int32) -> String = { pid in ".\(name).partial-\(pid)" }
        let (status, pid) = try await interruptedBuild(input: input, out: out, signal: signal) { pid in
            ((try? FileManager.default.contentsOfDirectory(atPath: parent + "/" + staging(pid)))?.count ?? 0) > 3
        }
        return (status, staging(pid))
    }

    @Test func interruptedBuildLeavesThePreviousPyramidAsItWas() async throws {
        let tmp = try TemporaryFolder()
        let out = tmp.path("out")
        let r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("berlin-transit.geojson"), "-o", out, "--maxzoom", "6"])
        #expect(r.status == 0)
        let before = try files(under: out)
        let big = tmp.path("big.geojson")
        try writeLargeInput(big)

        // Ctrl-C: the staging folder is removed, the old pyramid stays.
        let (status, _) = try await interruptBuild(input: big, out: out, signal: SIGINT)
        #expect(status == 128 + SIGINT)
        #expect(try files(under: out) == before)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: tmp.url.path))
        #expect(left == ["out", "big.geojson"], "left behind: \(left.sorted())")

        // kill -9: nothing can clean up, but the old pyramid is intact, and the next build sweeps the leftovers.
        let (killed, staging) = try await interruptBuild(input: big, out: out, signal: SIGKILL)
        #expect(killed == SIGKILL)
        #expect(try files(under: out) == before)
        #expect(FileManager.default.fileExists(atPath: tmp.path(staging)))
        let again = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("paris-runs.geojson"), "-o", out, "--maxzoom", "3", "--force"])
        #expect(again.status == 0)
        #expect(!FileManager.default.fileExists(atPath: tmp.path(staging)))
    }

    @Test func inspectDecodesATileToGeoJSON() async throws {
        let tmp = try TemporaryFolder()
        let out = tmp.path("out")
        #expect(try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("paris-runs.geojson"), "-o", out, "--maxzoom", "12"]).status == 0)
        let tile = WebMercator.tile(containing: Coordinate(longitude: 2.35, latitude: 48.86), zoom: 12)
        let r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["inspect", out, tile.description])
        #expect(r.status == 0, "\(r.stderr)")
        let collection = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        let features = try #require(collection["features"] as? [[String: Any]])
        #expect(!features.isEmpty)
        for feature in features {
            #expect(feature["layer"] as? String == "routes")
            let geometry = try #require(feature["geometry"] as? [String: Any])
            let lines = try geoJSONLines(geometry, of: Double.self)
            for p in lines.joined() { #expect(abs(p[0] - 2.35) < 0.2 && abs(p[1] - 48.86) < 0.2) }
        }
        // A single tile file, and a missing tile.
        let file = try await ExternalTool.runDetached(ExternalTool.routetiles, ["inspect", "\(out)/\(tile.z)/\(tile.x)/\(tile.y).mvt", tile.description])
        #expect(file.stdout == r.stdout)
        let missing = try await ExternalTool.runDetached(ExternalTool.routetiles, ["inspect", out, "12/0/0"])
        #expect(missing.status != 0 && missing.stderr.contains("no such tile"))
        // The same tile from archives.
        for archive in ["out.mbtiles", "out.pmtiles"] {
            #expect(try await ExternalTool.runDetached(ExternalTool.routetiles, ["convert", out, tmp.path(archive), "--quiet"]).status == 0)
            let fromArchive = try await ExternalTool.runDetached(ExternalTool.routetiles, ["inspect", tmp.path(archive), tile.description])
            #expect(fromArchive.status == 0 && fromArchive.stdout == r.stdout, "\(archive): \(fromArchive.stderr)")
            let none = try await ExternalTool.runDetached(ExternalTool.routetiles, ["inspect", tmp.path(archive), "12/0/0"])
            #expect(none.status != 0 && none.stderr.contains("no such tile: 12/0/0"), "\(none.stderr)")
        }
    }

    @Test func badOptionsAreRejectedWithAReason() async throws {
        for (args, text) in [(["--minzoom", "9", "--maxzoom", "3"], "minzoom"), (["--extent", "100"], "extent"),
                             (["--compression-level", "12"], "compression-level"), (["--format", "kml"], "kml")] {
            let r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("flights.geojson")] + args)
            #expect(r.status != 0)
            #expect(r.stderr.contains(text), "\(args): \(r.stderr)")
        }
        let missing = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", "/nonexistent/routes.geojson"])
        #expect(missing.status != 0 && missing.stderr.contains("/nonexistent/routes.geojson"))
    }
}
