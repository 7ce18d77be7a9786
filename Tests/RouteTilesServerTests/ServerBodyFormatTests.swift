import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Route bodies in the non-GeoJSON reader formats, named by Content-Type or recognised by content.
@Suite struct ServerBodyFormatTests {
    static let token = "test-token-456"

    @Test func gpxPolylineAndDirectionsBodiesBecomeRoutes() async throws {
        let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1"><trk><name>Ride</name><trkseg>
        <trkpt lat="48.86" lon="2.35"/><trkpt lat="48.87" lon="2.36"/><trkpt lat="48.88" lon="2.35"/>
        </trkseg></trk></gpx>
        """
        let directions = try Data(contentsOf: PackageFolder.root
            .appendingPathComponent("Tiles/samples/zurich-valhalla-route.json"))
        try await TestServer.with(.routes([], options: TestServer.options()), configure: {
            $0.writeToken = Self.token
        }) { server in
            let auth = ("Authorization", "Bearer \(Self.token)")
            let created = try await server.request(.POST, "/routes", headers: [auth, ("Content-Type", "application/gpx+xml")],
                                                   body: Array(gpx.utf8))
            #expect(created.status == 201)
            let id = try #require((created.json["ids"] as? [String])?.first)
            let stored = try await server.request(.GET, "/routes/\(id)")
            #expect(stored.status == 200)
            #expect(String(decoding: stored.body, as: UTF8.self).contains("\"Ride\""))
            let tile = WebMercator.tile(containing: Coordinate(longitude: 2.355, latitude: 48.87), zoom: 12)
            #expect(try await server.request(.GET, "/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt").status == 200)

            // No Content-Type: an encoded polyline and a Valhalla response are recognised by their content.
            let polyline = try await server.request(.POST, "/routes", headers: [auth],
                                                    body: Array("_p~iF~ps|U_ulLnnqC_mqNvxq`@\n".utf8))
            #expect(polyline.status == 201)
            let valhalla = try await server.request(.POST, "/routes", headers: [auth], body: Array(directions))
            #expect(valhalla.status == 201)
            // The route, its steps and its maneuvers all become live routes, each in its layer.
            let read = try RouteReader.read(bytes: Array(directions), name: "valhalla", format: .directions).routes
            #expect(read.contains { $0.layer == "steps" } && read.contains { $0.kind == .point })
            let ids = try #require(valhalla.json["ids"] as? [String])
            #expect(ids.count == read.count)
            let maneuver = try #require(read.first { $0.kind == .point }?.parts.first?.first)
            let at = WebMercator.tile(containing: maneuver, zoom: 14)
            let layered = try await server.get("/tiles/\(at.z)/\(at.x)/\(at.y).mvt", gzip: false)
            #expect(layered.status == 200)
            let names = try VectorTileDecoder.decode(layered.body).layers.map(\.name)
            #expect(names.contains("maneuvers") && names.contains("steps"), "\(names)")
            // A maneuver is a point: it cannot be extended.
            let pointID = try #require(zip(read, ids).first { $0.0.kind == .point }?.1)
            let extend = try await server.request(.POST, "/routes/\(pointID)/points", headers: [auth],
                                                  body: Array("[[8.5,47.3]]".utf8))
            #expect(extend.status == 409)

            let truncated = try await server.request(.POST, "/routes", headers: [auth, ("Content-Type", "application/gpx+xml")],
                                                     body: Array("<gpx><trk>".utf8))
            #expect(truncated.status == 400)
            #expect((truncated.json["error"] as? String)?.contains("request body:1:") == true)
        }
    }
}
