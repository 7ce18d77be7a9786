import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// A folder of real-world GPX files, one from a device without a clock (every point at 1901-12-13T20:45:52Z, the
/// smallest 32-bit Unix time), read by `build`, `load` and `serve` as a user runs them: the geometry is never lost
/// to the times; `--times strict` keeps the old refusal.
@Suite struct UnusableTimesCLITests {
    /// `tracks/` with Mojstrovka.gpx (184 points, the placeholder time on each) and a clocked track.
    func tracks(in tmp: TemporaryFolder) throws -> String {
        let folder = tmp.path("tracks")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let placeholder = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="x">
            <trk><name>Mojstrovka</name><trkseg>
            \(ClocklessGPX.trackPoints())
            </trkseg></trk></gpx>
            """
        let clocked = """
            <gpx version="1.1"><trk><name>Vrsic</name><trkseg>
            <trkpt lat="46.43" lon="13.74"><time>2026-06-01T07:00:00Z</time></trkpt>
            <trkpt lat="46.44" lon="13.76"><time>2026-06-01T07:10:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        try Data(placeholder.utf8).write(to: URL(fileURLWithPath: folder + "/Mojstrovka.gpx"))
        try Data(clocked.utf8).write(to: URL(fileURLWithPath: folder + "/Vrsic.gpx"))
        try Data("not a route".utf8).write(to: URL(fileURLWithPath: folder + "/notes.md"))
        return folder
    }

    static let warning = "Mojstrovka.gpx:4:53: time '1901-12-13T20:45:52.2073437Z' is outside 1970-01-01 to "
        + "9999-12-31; the route is read without times (--times strict refuses it)"

    @Test func buildReadsTheTrackWithoutItsTimesAndCountsIt() async throws {
        let tmp = try TemporaryFolder()
        let folder = try tracks(in: tmp)
        let built = try await ExternalTool.runDetached(ExternalTool.routetiles,
                                                       ["build", folder, "--output", tmp.path("out"), "--maxzoom", "8"])
        #expect(built.status == 0, "\(built.stderr)")
        #expect(built.stderr.contains("warning: " + folder + "/" + Self.warning), "\(built.stderr)")
        #expect(built.stderr.contains("2 routes (1 read without their times), 186 points"), "\(built.stderr)")
        // Both tracks are drawn: the z8 tiles of the two are there.
        let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp.path("out/metadata.json"))))
        #expect((metadata as? [String: Any])?["name"] != nil)
        let z8 = try FileManager.default.contentsOfDirectory(atPath: tmp.path("out/8"))
        #expect(!z8.isEmpty)

        // The old strictness, asked for: the build stops at the first bad time and writes nothing.
        let strict = try await ExternalTool.runDetached(ExternalTool.routetiles,
                                                        ["build", folder, "--output", tmp.path("strict"), "--times", "strict"])
        #expect(strict.status != 0)
        #expect(strict.stderr.contains("Mojstrovka.gpx:4:53: time '1901-12-13T20:45:52.2073437Z' is outside"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp.path("strict")))
    }

    @Test func loadAndServeReadItTooAndTheHelpSaysHow() async throws {
        let tmp = try TemporaryFolder()
        let folder = try tracks(in: tmp)
        let load = try await ExternalTool.runDetached(ExternalTool.routetiles,
                                                      ["load", folder, "--store", tmp.path("routes.db")])
        #expect(load.status == 0, "\(load.stderr)")
        #expect(load.stderr.contains("warning: " + folder + "/" + Self.warning), "\(load.stderr)")
        #expect(load.text.contains("(1 read without their times)"), "\(load.text)")
        let strictLoad = try await ExternalTool.runDetached(ExternalTool.routetiles,
                                                            ["load", folder, "--store", tmp.path("strict.db"), "--times", "strict"])
        #expect(strictLoad.status != 0 && strictLoad.stderr.contains("is outside 1970-01-01"), "\(strictLoad.stderr)")

        let server = try await ServeProcess.start([folder])
        #expect(server.printed.contains("warning: " + folder + "/" + Self.warning), "\(server.printed)")
        let (status, body) = try await server.get("/routes")
        _ = await server.stop()
        let listing = String(decoding: body, as: UTF8.self)
        #expect(status == 200)
        #expect(listing.contains("Mojstrovka") && listing.contains("Vrsic"), "\(listing)")

        // check says it too, and does not fail on it.
        let check = try await ExternalTool.runDetached(ExternalTool.routetiles, ["check", folder + "/Mojstrovka.gpx"])
        #expect(check.status == 0, "\(check.text)")
        #expect(check.text.contains("184 points, 1 without their times"), "\(check.text)")

        let help = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", "--help"])
        #expect(help.text.contains("keep|strict|ignore"), "\(help.text)")
        #expect(help.text.contains("folders of route files"), "\(help.text)")
    }
}
