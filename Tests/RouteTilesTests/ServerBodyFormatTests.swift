import Foundation
@testable import RouteTiles
@testable import RouteTilesServer
import Testing

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
        let directions = try Data(contentsOf: ExternalTool.packageRoot
            .appendingPathComponent("Tiles/samples/zurich-valhalla-route.json"))
        try await TestServer.with(.live(LiveRouteSet(routes: [], options: TestServer.options())), configure: {
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
            // Only the route itself is a live route: steps and maneuvers need the layered build.
            #expect((valhalla.json["ids"] as? [String])?.count == 1)

            let truncated = try await server.request(.POST, "/routes", headers: [auth, ("Content-Type", "application/gpx+xml")],
                                                     body: Array("<gpx><trk>".utf8))
            #expect(truncated.status == 400)
            #expect((truncated.json["error"] as? String)?.contains("request body:1:") == true)
        }
    }
}
