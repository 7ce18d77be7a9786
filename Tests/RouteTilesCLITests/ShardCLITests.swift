import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `build --shard i/n` and `join`, with the real binary: parts of every kind joined into every kind equal a
/// single build, and parts that do not fit together are refused without touching the output.
@Suite(.serialized) struct ShardCLITests {
    let samples = PackageFolder.root.appendingPathComponent("Tiles/samples")
    var inputs: [String] {
        ["paris-runs.geojson", "flights.geojson", "berlin-transit.geojson", "zurich-osrm-route.json"]
            .map { samples.appendingPathComponent($0).path }
    }

    func run(_ arguments: [String]) async throws -> ExternalTool.Result {
        try await ExternalTool.runDetached(ExternalTool.routetiles, arguments)
    }

    /// Three parts (a folder, MBTiles, PMTiles) joined into PMTiles give the very file a single build writes, and
    /// joined into a folder the same files as a single build's folder.
    @Test func partsOfEveryKindJoinIntoTheSingleBuild() async throws {
        let tmp = try TemporaryFolder()
        let zooms = ["--maxzoom", "11"]
        var r = try await run(["build"] + inputs + zooms + ["-o", tmp.path("single.pmtiles"), "--name", "all", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["build"] + inputs + zooms + ["-o", tmp.path("single"), "--name", "all", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let parts = ["part0", "part1.mbtiles", "part2.pmtiles"].map(tmp.path)
        var plans = Set<String>()
        for (i, part) in parts.enumerated() {
            r = try await run(["build"] + inputs + zooms + ["--shard", "\(i)/3", "-o", part])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("shard \(i)/3 held"), "\(r.stderr)")
            let source = try TileStoreFormat.openSource(path: part)
            #expect(source.metadata.shard?.index == i)
            plans.insert(source.metadata.shard.map { "\($0.plan)" } ?? "none")
        }
        #expect(plans.count == 1, "\(plans)")
        r = try await run(["join"] + parts + ["-o", tmp.path("joined.pmtiles"), "--name", "all"])
        #expect(r.status == 0, "\(r.stderr)")
        let single = try Data(contentsOf: URL(fileURLWithPath: tmp.path("single.pmtiles")))
        let joined = try Data(contentsOf: URL(fileURLWithPath: tmp.path("joined.pmtiles")))
        #expect(single.count > 10_000 && single == joined, "the joined archive differs from the single build's")

        r = try await run(["join"] + parts.reversed() + ["-o", tmp.path("joined"), "--name", "all", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let files = try FileManager.default.subpathsOfDirectory(atPath: tmp.path("single")).sorted()
        #expect(try FileManager.default.subpathsOfDirectory(atPath: tmp.path("joined")).sorted() == files)
        var differing: [String] = []
        for file in files where file.hasSuffix(".mvt") || file.hasSuffix(".json") {
            if FileManager.default.contents(atPath: tmp.path("single/" + file))
                != FileManager.default.contents(atPath: tmp.path("joined/" + file)) { differing.append(file) }
        }
        #expect(files.count > 200 && differing.isEmpty, "\(differing.prefix(5))")
    }

    /// A missing part, a part given twice, a part of another plan and a tileset that is no part are each refused
    /// with a message naming the file, and the output is not created.
    @Test func partsThatDoNotFitAreRefused() async throws {
        let tmp = try TemporaryFolder()
        for i in 0..<2 {
            let r = try await run(["build"] + inputs + ["--maxzoom", "9", "--shard", "\(i)/2", "-o", tmp.path("p\(i).mbtiles"), "-q"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        var r = try await run(["build"] + inputs.prefix(1) + ["--maxzoom", "9", "--shard", "1/2", "-o", tmp.path("other.mbtiles"), "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["build"] + inputs + ["--maxzoom", "9", "-o", tmp.path("whole.mbtiles"), "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = tmp.path("out.pmtiles")
        let cases: [([String], String)] = [
            ([tmp.path("p0.mbtiles")], "shard(s) 1/2 missing"),
            ([tmp.path("p0.mbtiles"), tmp.path("p0.mbtiles")], "are both shard 0/2"),
            ([tmp.path("p0.mbtiles"), tmp.path("other.mbtiles")], "other.mbtiles"),
            ([tmp.path("whole.mbtiles"), tmp.path("p1.mbtiles")], "whole.mbtiles is not the output of a shard"),
            ([tmp.path("nothing.pmtiles")], "nothing.pmtiles"),
        ]
        for (parts, message) in cases {
            r = try await run(["join"] + parts + ["-o", out])
            #expect(r.status != 0 && r.stderr.contains(message), "\(parts): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        r = try await run(["build"] + inputs + ["--shard", "2/2", "-o", tmp.path("x")])
        #expect(r.status != 0 && r.stderr.contains("--shard: '2/2' is not i/n"), "\(r.stderr)")
        r = try await run(["build"] + inputs + ["--shard", "0/2", "--base-url", "https://x.test/t", "-o", tmp.path("x")])
        #expect(r.status != 0 && r.stderr.contains("--base-url belongs on the joined tileset"), "\(r.stderr)")
        r = try await run(["join", "--help"])
        #expect(r.text.contains("build --shard i/n") && r.text.contains("--output"), "\(r.text)")
    }
}
