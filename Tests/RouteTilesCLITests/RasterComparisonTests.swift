import Foundation
import RouteTiles
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Our raster tiles against MapLibre Native (PyPI's pymgl) rendering our `style.json` at the same place: over the
/// Paris runs at z10, z12 and z14 and the Tokyo–San Francisco flight on both sides of the antimeridian, at @1x, @2x
/// and @3x, the pixels each draws as route lie within 2 px of the other's (at least 97% both ways), and the lines'
/// cores have the same colour. The PNGs of both are kept in `.build/test-output/RasterComparisonTests/`.
@Suite(.serialized, .heavy) struct RasterComparisonTests {
    static var available: Bool {
        ExternalTool.pythonHas("pymgl") && ExternalTool.pythonHas("PIL") && ExternalTool.pythonHas("numpy")
    }

    static let script = PackageFolder.root.path + "/Tests/RouteTilesCLITests/Raster/compare_with_maplibre.py"

    /// The coordinates of the sample feature `id` in `file`.
    static func line(_ id: String, in file: String) throws -> [(Double, Double)] {
        let data = try Data(contentsOf: PackageFolder.root.appendingPathComponent(file))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let features = try #require(json["features"] as? [[String: Any]])
        let feature = try #require(features.first { "\($0["id"] ?? "")" == id } ?? features.first)
        let geometry = try #require(feature["geometry"] as? [String: Any])
        let coordinates = try #require(geometry["coordinates"] as? [[Double]])
        return coordinates.map { ($0[0], $0[1]) }
    }

    /// The places compared: tiles on a Paris run, and on both sides of where the flight crosses the antimeridian.
    static func places() throws -> [TileID] {
        let run = try line("", in: "Tiles/samples/paris-runs.geojson")
        let middle = run[run.count / 2]
        var tiles = [10, 12, 14].map { WebMercator.tile(containing: Coordinate(longitude: middle.0, latitude: middle.1), zoom: $0) }
        let flight = try line("NRT-SFO", in: "Tiles/samples/flights.geojson")
        let crossing = try #require(zip(flight, flight.dropFirst()).first { abs($0.0.0 - $0.1.0) > 180 })
        for zoom in [3, 5] {
            tiles.append(WebMercator.tile(containing: Coordinate(longitude: 179.9, latitude: crossing.0.1), zoom: zoom))
            tiles.append(WebMercator.tile(containing: Coordinate(longitude: -179.9, latitude: crossing.1.1), zoom: zoom))
        }
        return tiles
    }

    @Test(.enabled(if: ExternalTool.required(available), "needs Python's pymgl (with Mesa's EGL), Pillow and numpy"))
    func rasterTilesMatchMapLibreNative() async throws {
        let serve = try await ServeProcess.start(["Tiles/samples/paris-runs.geojson", "Tiles/samples/flights.geojson",
                                                  "--basemap", "none"])
        defer { _ = serve.stopNow() }
        let folder = PackageFolder.root.path + "/.build/test-output/RasterComparisonTests"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let tiles = try Self.places()
        let renderer = RasterTileRenderer()
        for tile in tiles {
            let (status, bytes) = try await serve.get("/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt", headers: [("Accept-Encoding", "gzip")])
            #expect(status == 200, "\(tile) has no route")
            for scale in 1...3 {
                let png = try renderer.png(ofVectorTile: bytes, zoom: tile.z, scale: scale)
                try Data(png).write(to: URL(fileURLWithPath: "\(folder)/\(tile.z)-\(tile.x)-\(tile.y)@\(scale).png"))
            }
        }
        for scale in 1...3 {
            let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", Self.script, serve.base, folder, String(scale)]
                + tiles.map { "\($0.z)/\($0.x)/\($0.y)" }, timeout: 300)
            try #require(run.status == 0, "\(run.stderr)")
            let line = run.text.split(separator: "\n").last.map(String.init) ?? ""
            let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [String: Any]])
            for tile in tiles {
                let name = "\(tile.z)/\(tile.x)/\(tile.y)"
                let entry = try #require(report[name], "\(name) missing from \(report.keys)")
                #expect(entry["size"] as? [Int] == [256 * scale, 256 * scale] && entry["theirSize"] as? [Int] == [256 * scale, 256 * scale],
                        "@\(scale)x \(name): \(entry)")
                // Both draw, about as much ink (widths evaluated at another zoom would differ by a fifth or more).
                let ours = Double(entry["ours"] as? Int ?? 0), theirs = Double(entry["theirs"] as? Int ?? 0)
                #expect(ours > 0 && theirs > 0 && abs(ours - theirs) <= 0.1 * theirs, "@\(scale)x \(name): \(entry)")
                #expect((entry["ours_near"] as? Double ?? 0) >= 0.97 && (entry["theirs_near"] as? Double ?? 0) >= 0.97,
                        "@\(scale)x \(name): \(entry)")
                let colour = entry["our_colour"] as? [Int] ?? [], theirColour = entry["their_colour"] as? [Int] ?? []
                #expect(colour.count == 3 && theirColour.count == 3 && zip(colour, theirColour).allSatisfy { abs($0 - $1) <= 16 },
                        "@\(scale)x \(name): colours \(colour) and \(theirColour)")
            }
        }
    }
}
