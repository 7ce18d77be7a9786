import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `build --output X.mbtiles | X.pmtiles`, `--store`, and interrupted archive builds, with the real binary.
@Suite(.serialized) struct ArchiveCLITests {
    let samples = PackageFolder.root.appendingPathComponent("Tiles/samples")
    func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    @Test func buildWritesTheSameTilesIntoEveryStore() async throws {
        let tmp = try TemporaryFolder()
        var sources: [any TileSource] = []
        // "forced" names the kind with --output-format; "forced-old" with its former spelling, --store.
        for out in ["dir", "x.mbtiles", "x.pmtiles", "forced", "forced-old"] {
            var args = ["build", sample("paris-runs.geojson"), sample("flights.geojson"), "-o", tmp.path(out), "--maxzoom", "8", "--quiet"]
            if out == "forced" { args += ["--output-format", "pmtiles"] }
            if out == "forced-old" { args += ["--store", "pmtiles"] }
            let r = try await ExternalTool.runDetached(ExternalTool.routetiles, args)
            #expect(r.status == 0, "\(r.stderr)")
            sources.append(try TileStoreFormat.openSource(path: tmp.path(out)))
        }
        #expect(sources[1] is MBTilesSource && sources[2] is PMTilesSource && sources[3] is PMTilesSource
                && sources[4] is PMTilesSource)
        let ids = try sources[0].tileIDs().sorted()
        #expect(ids.count > 50)
        for source in sources.dropFirst() {
            #expect(try source.tileIDs().sorted() == ids)
            for id in ids { #expect(try source.gzipTile(id) == (try sources[0].gzipTile(id))) }
            #expect(source.metadata.layers == sources[0].metadata.layers)
        }
        #expect(sources[1].metadata.name == "x" && sources[0].metadata.name == "dir")
        let bad = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("paris-runs.geojson"), "-o", tmp.path("y"), "--output-format", "zip"])
        #expect(bad.status != 0 && bad.stderr.contains("unknown --output-format 'zip'"), "\(bad.stderr)")
    }

    /// Interrupts a long build into `out` once its staging file has grown; returns its status and the staging file's
    /// name.
    func interruptBuild(input: String, out: String, signal: Int32) async throws -> (Int32, String) {
        let parent = URL(fileURLWithPath: out).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: out).lastPathComponent
        // MBTiles writes into the staging file as it goes; PMTiles spills tiles into its scratch file.
        let growing: @Sendable (Int32) -> String = { pid in out.hasSuffix(".mbtiles") ? ".\(name).partial-\(pid)" : ".\(name).spill-\(pid)" }
        let (status, pid) = try await interruptedBuild(input: input, out: out, signal: signal) { pid in
            let size = (try? FileManager.default.attributesOfItem(atPath: parent + "/" + growing(pid))[.size] as? Int) ?? 0
            return size > 200_000
        }
        return (status, growing(pid))
    }

    @Test(arguments: ["out.mbtiles", "out.pmtiles"])
    func interruptedArchiveBuildLeavesThePreviousArchiveAsItWas(name: String) async throws {
        let tmp = try TemporaryFolder()
        let out = tmp.path(name)
        let r = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("berlin-transit.geojson"), "-o", out, "--maxzoom", "6"])
        #expect(r.status == 0, "\(r.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        let tileCount = try TileStoreFormat.openSource(path: out).tileIDs().count
        #expect(tileCount > 0)
        let big = tmp.path("big.geojson")
        try CLITests().writeLargeInput(big)

        let (status, _) = try await interruptBuild(input: big, out: out, signal: SIGTERM)
        #expect(status == 128 + SIGTERM)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: tmp.url.path))
        #expect(left == [name, "big.geojson"], "left behind: \(left.sorted())")

        let (killed, leftover) = try await interruptBuild(input: big, out: out, signal: SIGKILL)
        #expect(killed == SIGKILL)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)
        #expect(FileManager.default.fileExists(atPath: tmp.path(leftover)))
        // The archive still opens and reads: no corruption.
        let source = try TileStoreFormat.openSource(path: out)
        #expect(try source.tileIDs().count == tileCount)
        let again = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", sample("paris-runs.geojson"), "-o", out, "--maxzoom", "3", "--force"])
        #expect(again.status == 0)
        #expect(!FileManager.default.fileExists(atPath: tmp.path(leftover)))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: tmp.url.path)) == [name, "big.geojson"])
    }
}
