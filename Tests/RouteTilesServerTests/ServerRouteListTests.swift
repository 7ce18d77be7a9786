import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `GET /routes` (the viewer's list), what it summarises of a route, the viewer's page and style, and `--basemap`.
@Suite struct ServerRouteListTests {
    static let token = "list-test-token"
    let auth = [("Authorization", "Bearer \(token)")]

    static func sample(_ name: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: PackageFolder.root.path + "/Tiles/samples/" + name) ?? Data())
    }

    /// A meridian degree and an equator degree, whose lengths on WGS84 are known: 110,574.4 m and 111,319.5 m.
    static let degrees = [
        Route(id: .string("meridian"), properties: [Property("name", .string("Meridian degree")), Property("duration_s", .int(3600))],
              parts: [[Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: 0, latitude: 0.5), Coordinate(longitude: 0, latitude: 1)]]),
        Route(id: .number(7), properties: [Property("title", .string("Equator degree")), Property("color", .string("#ff0000"))],
              parts: [[Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: 1, latitude: 0)]]),
    ]

    @Test func theListingSummarisesEveryRoute() async throws {
        try await TestServer.with(.routes(Self.degrees, options: TestServer.options())) { server in
            let reply = try await server.get("/routes")
            #expect(reply.status == 200 && reply.header("Content-Type") == "application/json")
            let routes = try #require(reply.json["routes"] as? [[String: Any]])
            #expect(routes.map { $0["id"] as? String } == ["meridian", "7"])
            let meridian = routes[0], equator = routes[1]
            #expect(abs((meridian["length_m"] as? Double ?? 0) - 110_574.4) < 0.5, "\(meridian)")
            #expect(abs((equator["length_m"] as? Double ?? 0) - 111_319.5) < 0.5, "\(equator)")
            #expect(meridian["name"] as? String == "Meridian degree" && equator["name"] as? String == "Equator degree")
            #expect(meridian["duration_s"] as? Double == 3600 && equator["duration_s"] == nil)
            #expect(equator["color"] as? String == "#ff0000" && meridian["color"] == nil)
            #expect(meridian["bbox"] as? [Double] == [0, 0, 0, 1] && equator["bbox"] as? [Double] == [0, 0, 1, 0])
            #expect(meridian["points"] as? Int == 3 && meridian["kind"] as? String == "line" && meridian["layer"] as? String == "routes")
            // The feature id is the one in the tiles: a number as it is, a string id hashed.
            #expect((equator["fid"] as? NSNumber)?.uint64Value == 7)
            #expect((meridian["fid"] as? NSNumber)?.uint64Value == FNV1a.hash("meridian"))
            let tile = try await server.get("/tiles/0/0/0.mvt", gzip: false)
            let decoded = try VectorTileDecoder.decode(tile.body)
            let ids = Set(decoded.layers.flatMap { $0.features.compactMap(\.id) })
            #expect(ids == [7, FNV1a.hash("meridian")])
            // The same generation: the same bytes.
            #expect(try await server.get("/routes").body == reply.body)
        }
    }

    @Test func theListingFollowsWritesAndAnswersForSomeIds() async throws {
        try await TestServer.with(.routes(Self.degrees, options: TestServer.options()), configure: { $0.writeToken = Self.token }) { server in
            let before = try await server.get("/routes").json
            let track = #"{"type":"Feature","id":"track","properties":{"name":"Track"},"geometry":{"type":"LineString","coordinates":[[8,47],[8.01,47]]}}"#
            #expect(try await server.request(.POST, "/routes", headers: auth, body: Array(track.utf8)).status == 201)
            let after = try await server.get("/routes").json
            #expect((after["generation"] as? Int ?? 0) > (before["generation"] as? Int ?? 0))
            #expect((after["routes"] as? [[String: Any]])?.map { $0["id"] as? String } == ["meridian", "7", "track"])
            let appended = try await server.request(.POST, "/routes/track/points", headers: auth, body: Array("[[8.02,47]]".utf8))
            #expect(appended.status == 200, "\(appended.text)")
            let some = try await server.get("/routes?id=track&id=gone").json
            let entries = try #require(some["routes"] as? [[String: Any]])
            #expect(entries.count == 1 && entries.first?["points"] as? Int == 3, "\(entries)")
            #expect(abs((entries.first?["length_m"] as? Double ?? 0) - 2 * 760) < 10, "two 0.01° steps at 47° N: \(entries)")
            let spaced = #"{"type":"Feature","id":"trip 7,b","properties":{},"geometry":{"type":"LineString","coordinates":[[8,47],[8,47.01]]}}"#
            #expect(try await server.request(.POST, "/routes", headers: auth, body: Array(spaced.utf8)).status == 201)
            let encoded = try await server.get("/routes?id=trip%207%2Cb").json["routes"] as? [[String: Any]]
            #expect(encoded?.map { $0["id"] as? String } == ["trip 7,b"], "ids are percent-decoded, one id each")
            #expect(try await server.request(.DELETE, "/routes/trip%207%2Cb", headers: auth).status == 200)
            #expect(try await server.request(.DELETE, "/routes/track", headers: auth).status == 200)
            #expect((try await server.get("/routes?id=track").json["routes"] as? [Any])?.isEmpty == true)
            #expect((try await server.get("/routes").json["routes"] as? [Any])?.count == 2)
        }
    }

    /// Each directions route carries its own steps, merged from the step lines and the maneuver points by index, even
    /// with two responses that both have a route 0.
    @Test func directionsRoutesCarryTheirSteps() async throws {
        try await TestServer.with(.routes([], options: TestServer.options()), configure: { $0.writeToken = Self.token }) { server in
            for name in ["zurich-osrm-route.json", "zurich-valhalla-route.json"] {
                #expect(try await server.request(.POST, "/routes", headers: auth, body: Self.sample(name)).status == 201)
            }
            let routes = try #require(try await server.get("/routes").json["routes"] as? [[String: Any]])
            #expect(routes.count == 2, "steps and maneuvers are not entries of their own: \(routes.map { $0["id"] ?? "" })")
            let osrm = try #require(routes.first { $0["steps"] != nil && ($0["steps"] as? [Any])?.count == 7 })
            let valhalla = try #require(routes.first { ($0["steps"] as? [Any])?.count == 5 })
            #expect(osrm["id"] as? String != valhalla["id"] as? String)
            let steps = try #require(osrm["steps"] as? [[String: Any]])
            #expect(steps.map { $0["index"] as? Int } == Array(0..<7).map { $0 })
            let second = steps[1]
            #expect(second["instruction"] as? String == "turn right onto Limmatquai")
            #expect(second["distance_m"] as? Double == 792 && second["duration_s"] as? Double == 99)
            #expect(second["location"] as? [Double] == [8.553114, 47.377442], "the maneuver's position: \(second)")
            #expect(osrm["duration_s"] as? Double == 373.5)
            // Asked for by the key of one of its steps, the listing answers with the route that holds it.
            let all = try await server.get("/routes/0").json
            #expect(all["type"] as? String == "Feature")
            let stepKeys = (0..<40).map(String.init)
            var parents: Set<String> = []
            for key in stepKeys {
                let entries = try await server.get("/routes?id=\(key)").json["routes"] as? [[String: Any]] ?? []
                for entry in entries { parents.insert(entry["id"] as? String ?? "") }
            }
            #expect(parents == [osrm["id"] as? String ?? "", valhalla["id"] as? String ?? ""])
        }
    }

    @Test func aTilesetHasNoListing() async throws {
        let (folder, source) = try TestServer.parisTileset()
        defer { withExtendedLifetime(folder) {} }
        try await TestServer.with(.tileset(source)) { server in
            let reply = try await server.get("/routes")
            #expect(reply.status == 405 && reply.text.contains("finished tileset"), "\(reply.text)")
            let page = try await server.get("/")
            #expect(page.text.contains(#""live":false"#), "\(page.text)")
        }
    }

    @Test func summariesOfNamesDurationsAndTheAntimeridian() throws {
        let gpx = Route(properties: [Property("name", .string("")), Property("ref", .string("R7")),
                                     Property("start_time", .string("2026-06-01T07:00:00Z")),
                                     Property("end_time", .string("2026-06-01T08:30:05.5Z"))],
                        parts: [[Coordinate(longitude: 8.5, latitude: 47.3), Coordinate(longitude: 8.51, latitude: 47.3)]])
        let summary = RouteSummary(of: gpx)
        #expect(summary.name == "R7", "an empty name gives way to the next key")
        #expect(summary.durationSeconds == 5405.5)
        let unordered = Route(properties: [Property("start_time", .string("2026-06-01T08:00:00Z")),
                                           Property("end_time", .string("2026-06-01T07:00:00Z")),
                                           Property("moving_time_s", .double(-1))],
                              parts: gpx.parts)
        #expect(RouteSummary(of: unordered).durationSeconds == nil, "no negative durations")
        // Tokyo to San Francisco: west below east, east past 180°.
        let flight = Route(parts: [[Coordinate(longitude: 139.78, latitude: 35.55), Coordinate(longitude: 179.5, latitude: 45),
                                    Coordinate(longitude: -179.5, latitude: 46), Coordinate(longitude: -122.38, latitude: 37.62)]])
        let bounds = try #require(RouteSummary(of: flight).bounds)
        #expect(bounds[0] == 139.78 && abs(bounds[2] - (360 - 122.38)) < 1e-9, "\(bounds)")
        // Two parts: the gap between them is not travelled.
        let two = Route(parts: [[Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: 0, latitude: 1)],
                                [Coordinate(longitude: 10, latitude: 0), Coordinate(longitude: 10, latitude: 1)]])
        #expect(abs(RouteSummary(of: two).lengthMetres - 2 * 110_574.4) < 1)
    }

    @Test func theStyleHighlightsSelectedFeaturesAndDrawsPointLayersAsCircles() async throws {
        let routes = Self.degrees + [Route(properties: [Property("name", .string("Summit"))],
                                           parts: [[Coordinate(longitude: 0.5, latitude: 0.5)]],
                                           layer: GPXReader.waypointsLayer, kind: .point)]
        try await TestServer.with(.routes(routes, options: TestServer.options())) { server in
            let style = try await server.get("/style.json")
            let layers = try #require(style.json["layers"] as? [[String: Any]])
            let byID = Dictionary(layers.map { ($0["id"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            #expect(byID["waypoints-points"]?["type"] as? String == "circle")
            for id in ["routes-casing", "routes-line"] {
                let paint = try #require(byID[id]?["paint"] as? [String: Any])
                let width = try JSONSerialization.data(withJSONObject: paint["line-width"] ?? [])
                #expect(String(decoding: width, as: UTF8.self).contains(#"["feature-state","selected"]"#), "\(id)")
            }
        }
    }

    @Test func theViewerPageCarriesItsBasemapAndItsScriptAndStylesheet() async throws {
        let backend = TileBackend.routes(Self.degrees, options: TestServer.options())
        try await TestServer.with(backend, configure: { $0.basemapStyleURL = "https://maps.example/style.json?x=1&y=</script>" }) { server in
            let page = try await server.get("/").text
            #expect(page.contains(#""basemap":"https://maps.example/style.json?x=1&y=\u003c/script>""#), "\(page)")
            #expect(!page.contains("y=</script>"), "the URL cannot end the script element")
            #expect(page.contains(#"<script src="viewer.js">"#) && page.contains(#"href="viewer.css""#))
            let script = try await server.get("/viewer.js")
            #expect(script.status == 200 && script.header("Content-Type")?.hasPrefix("text/javascript") == true)
            #expect(script.text.contains("window.map = map") && script.text.contains("new EventSource(viewer.credential.eventsURL('events'))"))
            #expect(try await server.get("/viewer.css").header("Content-Type")?.hasPrefix("text/css") == true)
        }
        try await TestServer.with(backend, configure: { $0.basemapStyleURL = nil }) { server in
            let page = try await server.get("/").text
            #expect(page.contains(#""basemap":null"#))
        }
        #expect(ServerConfiguration().basemapStyleURL == ServerConfiguration.defaultBasemap)
    }

    @Test func basemapOptionTakesAURLAPathOrNone() async throws {
        let bad = try await ExternalTool.runDetached(ExternalTool.routetiles, ["serve", "--basemap", "positron",
                                                                               "Tiles/samples/paris-runs.geojson"])
        #expect(bad.status != 0 && bad.stderr.contains("--basemap takes a style URL"), "\(bad.stderr)")
        let help = try await ExternalTool.runDetached(ExternalTool.routetiles, ["serve", "--help"])
        #expect(help.text.contains("--basemap <url|none>"), "\(help.text)")
    }
}
