import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The viewer in a real browser: headless Chromium (Debian's `chromium` and `chromium-driver`, driven by Python's
/// selenium) loads the page with MapLibre GL JS 5.3.0 from the PyPI package `maplibre`, served through `--assets`.
/// Nothing comes from the internet: the basemap is a style served on loopback over tiles of a second
/// `routetiles serve`. Screenshots are kept in `.build/test-output/ViewerBrowserTests/` and attached to the test.
@Suite(.serialized, .heavy) struct ViewerBrowserTests {
    static var mapLibreFolder: String? {
        let r = try? ExternalTool.python("import maplibre, os; print(os.path.join(os.path.dirname(maplibre.__file__), 'srcjs'))")
        guard let r, r.status == 0 else { return nil }
        let folder = r.text.split(separator: "\n").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        return FileManager.default.fileExists(atPath: folder + "/maplibre-gl.js") ? folder : nil
    }

    static var browserAvailable: Bool {
        ExternalTool.available("chromium") && ExternalTool.available("chromedriver") && ExternalTool.pythonHas("selenium")
            && ExternalTool.pythonHas("PIL") && mapLibreFolder != nil
    }

    static let script = PackageFolder.root.path + "/Tests/RouteTilesBrowserTests/Browser/"

    /// Keeps a screenshot where a person can look at it after the run.
    static func keep(_ path: String, as name: String) {
        let folder = PackageFolder.root.path + "/.build/test-output/ViewerBrowserTests"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: folder + "/" + name)
        try? FileManager.default.copyItem(atPath: path, toPath: folder + "/" + name)
        if let data = FileManager.default.contents(atPath: path) { Attachment.record(data, named: name) }
    }

    static func report(_ run: ExternalTool.Result) throws -> [String: Any] {
        let line = run.text.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.text) \(run.stderr)")
    }

    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func theViewerDrawsTheRoutesWithNoFailedTile() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let serve = try await ServeProcess.start(["Tiles/samples/paris-runs.geojson", "--assets", assets,
                                                        "--maplibre-url", "/assets", "--basemap", "none"])
        let folder = try TemporaryFolder()
        let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", Self.script + "viewer_check.py", serve.base + "/",
                                                                      folder.path("viewer.png")], timeout: 180)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.report(run)
        #expect(report["ready"] as? Bool == true)
        #expect((report["renderedRouteFeatures"] as? Int ?? 0) > 0)
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")
        // Route ink: at least a few thousand pixels of the view are drawn by the routes.
        #expect((report["inkPixels"] as? Int ?? 0) > 3000, "\(report)")
        #expect((report["zoom"] as? Double ?? 0) > 10, "the map is fitted to the Paris routes")

        // The server saw tile requests and answered none of them with an error.
        let (status, metrics) = try await serve.get("/metrics")
        #expect(status == 200)
        let text = String(decoding: metrics, as: UTF8.self)
        let statuses = text.split(separator: "\n").filter { $0.hasPrefix("routetiles_http_requests_total{") }
        #expect(statuses.contains { $0.contains("status=\"200\"") })
        for line in statuses {
            #expect(["200", "204", "304"].contains { line.contains("status=\"\($0)\"") }, "\(line)")
        }
        #expect(await serve.stop() == 0)
    }

    /// The viewer's raster switch: the vector layers give way to the server's PNG tiles of the same tiles, which ink
    /// about as much of the view (the same lines, drawn by cairo instead of MapLibre), with no failed tile.
    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func theViewerSwitchesToTheRasterTiles() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let serve = try await ServeProcess.start(["Tiles/samples/paris-runs.geojson", "--assets", assets,
                                                  "--maplibre-url", "/assets", "--basemap", "none"])
        let folder = try TemporaryFolder()
        let run = try await ExternalTool.runDetached("/usr/bin/env", [
            "python3", Self.script + "viewer_raster_check.py", serve.base + "/", folder.path("vector.png"), folder.path("raster.png"),
        ], timeout: 180)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.report(run)
        Self.keep(folder.path("vector.png"), as: "raster-switch-vector.png")
        Self.keep(folder.path("raster.png"), as: "raster-switch-raster.png")
        #expect(report["rasterVisible"] as? Bool == true && report["vectorHidden"] as? Bool == true, "\(report)")
        #expect((report["vectorFeatures"] as? Int ?? 0) > 0 && report["renderedRouteFeatures"] as? Int == 0, "\(report)")
        #expect((report["rasterTiles"] as? [String])?.first?.hasSuffix("/tiles/{z}/{x}/{y}.png") == true, "\(report)")
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")
        // The PNGs draw the routes where the vector layers did: ink within a factor of the vector view's.
        let vectorInk = Double(report["vectorInk"] as? Int ?? 0), rasterInk = Double(report["rasterInk"] as? Int ?? 0)
        #expect(vectorInk > 3000 && rasterInk > vectorInk * 0.5 && rasterInk < vectorInk * 2, "\(report)")
        let (status, metrics) = try await serve.get("/metrics")
        #expect(status == 200)
        for line in String(decoding: metrics, as: UTF8.self).split(separator: "\n") where line.hasPrefix("routetiles_http_requests_total{") {
            #expect(["200", "204", "304"].contains { line.contains("status=\"\($0)\"") }, "\(line)")
        }
        #expect(await serve.stop() == 0)
    }

    /// The heat toggle shows the density layer's heatmap, hidden until asked for, and the map changes where the
    /// positions are.
    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func theViewerShowsTheHeatOfThePositions() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let serve = try await ServeProcess.start(["Tiles/samples/paris-runs.geojson", "--assets", assets,
                                                  "--maplibre-url", "/assets", "--basemap", "none"])
        let folder = try TemporaryFolder()
        let run = try await ExternalTool.runDetached("/usr/bin/env", [
            "python3", Self.script + "viewer_heat_check.py", serve.base + "/", folder.path("plain.png"), folder.path("heat.png"),
        ], timeout: 180)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.report(run)
        Self.keep(folder.path("heat.png"), as: "heat-of-positions.png")
        #expect(report["toggleShown"] as? Bool == true && report["hiddenAtFirst"] as? Bool == true, "\(report)")
        #expect((report["heatLayers"] as? [String])?.count == 1 && report["shownAfter"] as? Bool == true, "\(report)")
        #expect((report["densityFeatures"] as? Int ?? 0) > 0, "\(report)")
        #expect((report["changedPixels"] as? Int ?? 0) > 500, "\(report)")
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")
        #expect(await serve.stop() == 0)
    }

    /// A street grid over Paris and Zurich, as the basemap's data.
    static func streets() -> String {
        var features: [String] = []
        func line(_ a: (Double, Double), _ b: (Double, Double)) {
            features.append(#"{"type":"Feature","properties":{"kind":"street"},"geometry":{"type":"LineString","coordinates":[[\#(a.0),\#(a.1)],[\#(b.0),\#(b.1)]]}}"#)
        }
        for i in 0...325 { line((2.2 + Double(i) * 0.02, 47.2), (2.2 + Double(i) * 0.02, 49.0)) }
        for i in 0...90 { line((2.2, 47.2 + Double(i) * 0.02), (8.7, 47.2 + Double(i) * 0.02)) }
        return #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#
    }

    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func theViewerShowsLiveRoutesOverABasemapWithAListAndPlayback() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let folder = try TemporaryFolder()
        try Self.streets().write(toFile: folder.path("streets.geojson"), atomically: true, encoding: .utf8)
        let basemap = try await ServeProcess.start([folder.path("streets.geojson"), "--layer", "streets",
                                                          "--assets", folder.path(""), "--basemap", "none"])
        // The basemap: land, streets, and a symbol layer (its labels) that the routes go under.
        let style = """
            {"version": 8, "name": "loopback basemap",
             "sources": {"streets": {"type": "vector", "url": "\(basemap.base)/tiles.json"}},
             "layers": [{"id": "land", "type": "background", "paint": {"background-color": "#efe9e1"}},
                        {"id": "streets", "type": "line", "source": "streets", "source-layer": "streets",
                         "paint": {"line-color": "#b9b2a8", "line-width": 2}},
                        {"id": "street-labels", "type": "symbol", "source": "streets", "source-layer": "streets", "layout": {}}]}
            """
        try style.write(toFile: folder.path("basemap.json"), atomically: true, encoding: .utf8)
        let token = "viewer-test-token"
        let serve = try await ServeProcess.start([
            "Tiles/samples/paris-runs.geojson", "Tiles/samples/zurich-osrm-route.json", "--store", "memory",
            "--write-token", token, "--assets", assets, "--maplibre-url", "/assets",
            "--basemap", basemap.base + "/assets/basemap.json",
        ])
        let output = try TemporaryFolder()
        let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", Self.script + "viewer_live_check.py",
                                                                      serve.base + "/", token, "streets", output.path("")],
                                                     timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        Self.keep(output.path("viewer.png"), as: "viewer-basemap.png")
        Self.keep(output.path("playback.png"), as: "viewer-playback.png")
        let report = try Self.report(run)
        #expect(report["ready"] as? Bool == true)
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")

        // The basemap's streets and the routes are both drawn, the routes under the basemap's labels.
        let map = try #require(report["basemap"] as? [String: Any])
        #expect(map["loaded"] as? Bool == true)
        #expect((map["basemapFeatures"] as? Int ?? 0) > 0, "\(map)")
        #expect((map["routeFeatures"] as? Int ?? 0) > 0, "\(map)")
        let indexes = map["routeLayerIndexes"] as? [Int] ?? []
        let labels = map["firstBasemapSymbol"] as? Int ?? -1
        #expect(!indexes.isEmpty && indexes.allSatisfy { $0 > 1 && $0 < labels }, "over the streets, under the labels: \(map)")

        // The list holds every line route of the server; typing filters it.
        let list = try #require(report["list"] as? [String: Any])
        #expect(list["server"] as? Int == 6 && list["page"] as? Int == 6 && list["same"] as? Bool == true, "\(list)")
        #expect(list["countText"] as? String == "6 routes")
        let filter = try #require(report["filter"] as? [String: Any])
        #expect(filter["shown"] as? [String] == ["3"], "\(filter)")
        #expect(filter["rows"] as? [String] == ["Morning run 3"], "\(filter)")

        // A click on a row selects the route and highlights it through feature-state; a click on the map selects
        // the route under the pointer in the list.
        let row = try #require(report["rowClick"] as? [String: Any])
        #expect(row["selected"] as? String == row["expected"] as? String)
        #expect((row["featureState"] as? [String: Any])?["selected"] as? Bool == true, "\(row)")
        #expect((row["renderedState"] as? [String: Any])?["selected"] as? Bool == true, "\(row)")
        #expect(row["rowSelected"] as? Bool == true)
        #expect(row["details"] as? String == "Morning run 2")
        // The Paris runs' feature ids are their numeric ids.
        #expect(row["onTop"] as? [String] == [row["selected"] as? String ?? "?"], "the selected route alone, drawn over the others: \(row)")
        #expect(row["topIsLast"] as? Bool == true, "\(row)")
        let click = try #require(report["mapClick"] as? [String: Any])
        #expect(click["point"] is [Double], "a point of the route to click: \(click)")
        #expect(click["selected"] as? String == click["expected"] as? String, "\(click)")
        #expect(click["rowSelected"] as? Bool == true, "\(click)")

        // Live: a POST shows on the map and in the list within a second, without a reload; a DELETE removes it.
        let post = try #require(report["livePost"] as? [String: Any])
        #expect(post["status"] as? Int == 201)
        #expect(post["inList"] as? Bool == true && post["onMap"] as? Bool == true, "\(post)")
        #expect((post["listSeconds"] as? Double ?? 9) < 1 && (post["mapSeconds"] as? Double ?? 9) < 1, "\(post)")
        #expect(post["rowText"] as? String == "7 routes")
        // The position layer: a dot and a heading arrow at the route's last position; an append moves both
        // within two seconds (the arrow is a symbol, placed again after the tile reloads), with the bearing of the
        // new segment and the time of the fix.
        let vehicle = try #require(report["vehicle"] as? [String: Any])
        let before = vehicle["before"] as? [[String: Any]] ?? []
        let last = vehicle["last"] as? [Double] ?? []
        #expect(before.contains { ($0["layer"] as? String)?.hasSuffix("-dot") == true }, "\(vehicle)")
        for dot in before {
            let at = dot["at"] as? [Double] ?? []
            #expect(at.count == 2 && last.count == 2 && abs(at[0] - last[0]) < 1e-4 && abs(at[1] - last[1]) < 1e-4, "\(vehicle)")
        }
        #expect(vehicle["status"] as? Int == 200)
        let after = vehicle["after"] as? [[String: Any]] ?? []
        #expect(after.contains { ($0["layer"] as? String)?.hasSuffix("-heading") == true }, "the arrow: \(vehicle)")
        #expect(after.allSatisfy { $0["bearing"] is NSNumber && $0["fixTime"] is NSNumber }, "\(vehicle)")
        #expect((vehicle["seconds"] as? Double ?? 9) < 2, "\(vehicle)")
        #expect(vehicle["headingImage"] as? Bool == true)
        let delete = try #require(report["liveDelete"] as? [String: Any])
        #expect(delete["goneFromList"] as? Bool == true && delete["goneFromMap"] as? Bool == true, "\(delete)")
        #expect((delete["listSeconds"] as? Double ?? 9) < 1 && (delete["mapSeconds"] as? Double ?? 9) < 1, "\(delete)")
        let events = report["events"] as? [[String: Any]] ?? []
        #expect(events.map { $0["type"] as? String ?? "" } == ["hello", "change", "change", "change"], "\(events)")

        // Playback: on the route, turned to the bearing of its segment, after seeks and after playing.
        let playback = try #require(report["playback"] as? [String: Any])
        let checks = playback["checks"] as? [[String: Any]] ?? []
        #expect(checks.count == 4)
        for check in checks {
            #expect((check["metresOff"] as? Double ?? 1) < 0.01, "\(check)")
            #expect((check["degreesOff"] as? Double ?? 1) < 0.01, "\(check)")
        }
        if let played = checks.last {
            #expect(played["played"] as? Bool == true)
            #expect((played["fraction"] as? Double ?? 0) > (played["from"] as? Double ?? 1), "the marker moved on: \(played)")
            #expect(played["playing"] as? Bool == false, "the second click paused it")
        }
        #expect(playback["travelledDrawn"] as? Bool == true)
        #expect((playback["slider"] as? Int ?? 0) > 200, "the slider follows the position: \(playback)")

        // The steps of the directions route, with distance and duration; a click flies to the maneuver.
        let steps = try #require(report["steps"] as? [String: Any])
        #expect(steps["listed"] as? Int == 7 && steps["expected"] as? Int == 7, "\(steps)")
        #expect((steps["text"] as? String ?? "").contains("588 m"), "\(steps)")
        let center = steps["center"] as? [Double] ?? []
        let location = steps["location"] as? [Double] ?? []
        #expect(center.count == 2 && location.count == 2 && abs(center[0] - location[0]) < 1e-5
                    && abs(center[1] - location[1]) < 1e-5, "\(steps)")
        #expect(await serve.stop() == 0)
        #expect(await basemap.stop() == 0)
    }

    /// The page stays open while the server restarts over its SQLite store and a route is loaded meanwhile: the
    /// EventSource reconnects with Last-Event-ID, gets a `resync` naming the route, and shows it.
    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func theViewerCatchesUpAfterTheServerRestarts() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let folder = try TemporaryFolder()
        let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", Self.script + "viewer_reconnect_check.py",
                                                                      ExternalTool.routetiles, assets, folder.path("")],
                                                     timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.report(run)
        #expect((report["before"] as? [String: Any])?["routes"] as? Int == 5, "\(report)")
        #expect(report["stopStatus"] as? Int == 0 && report["finalStopStatus"] as? Int == 0)
        #expect(report["statusWhileDown"] as? String == "reconnecting", "\(report)")
        #expect(report["inList"] as? Bool == true && report["onMap"] as? Bool == true, "\(report)")
        let events = report["events"] as? [[String: Any]] ?? []
        #expect(events.map { $0["type"] as? String ?? "" } == ["hello", "resync"], "\(events)")
        let after = report["after"] as? [String: Any] ?? [:]
        #expect(after["routes"] as? Int == 6 && after["status"] as? String == "live", "\(after)")
        #expect((after["eventId"] as? Int ?? 0) > ((report["before"] as? [String: Any])?["eventId"] as? Int ?? 0))
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")
    }

    /// Flights across the Pacific, eastbound and westbound: the first view is centred on the Pacific with ±180° in
    /// it, not on the Atlantic with the routes cut at both edges. tiles.json keeps bounds that do not wrap (TileJSON
    /// 3.0.0) and says where the routes are through its centre.
    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func theFirstViewOfTranspacificFlightsIsCentredOnThePacific() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let folder = try TemporaryFolder()
        let flights = [
            ("Tokyo–San Francisco", (139.78, 35.55), (-122.38, 37.62)),
            ("Sydney–Los Angeles", (151.18, -33.95), (-118.41, 33.94)),
            ("Los Angeles–Tokyo", (-118.41, 33.94), (139.78, 35.55)),
            ("Auckland–Honolulu", (174.79, -37.01), (-157.92, 21.32)),
        ].enumerated().map { i, flight in
            #"{"type":"Feature","id":\#(i + 1),"properties":{"name":"\#(flight.0)","geodesic":true},"geometry":{"type":"LineString","coordinates":[[\#(flight.1.0),\#(flight.1.1)],[\#(flight.2.0),\#(flight.2.1)]]}}"#
        }
        try #"{"type":"FeatureCollection","features":[\#(flights.joined(separator: ","))]}"#
            .write(toFile: folder.path("pacific.geojson"), atomically: true, encoding: .utf8)
        let serve = try await ServeProcess.start([folder.path("pacific.geojson"), "--assets", assets,
                                                        "--maplibre-url", "/assets", "--basemap", "none"])
        let tileJSON = try #require(try JSONSerialization.jsonObject(with: Data(try await serve.get("/tiles.json").1)) as? [String: Any])
        let bounds = tileJSON["bounds"] as? [Double] ?? []
        let center = tileJSON["center"] as? [Double] ?? []
        #expect(bounds.count == 4 && bounds[0] == -180 && bounds[2] == 180, "bounds do not wrap: \(bounds)")
        #expect(center.count == 3 && abs(center[0]) > 150 && center[2] >= 1, "the centre is in the Pacific: \(center)")

        let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", Self.script + "viewer_view_check.py",
                                                                      serve.base + "/", folder.path("pacific.png")],
                                                     timeout: 180)
        #expect(run.status == 0, "\(run.stderr)")
        Self.keep(folder.path("pacific.png"), as: "viewer-pacific.png")
        let report = try Self.report(run)
        #expect(report["ready"] as? Bool == true)
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")
        #expect((report["renderedRouteFeatures"] as? Int ?? 0) > 0, "\(report)")
        let lng = report["wrappedCenterLng"] as? Double ?? 0
        #expect(abs(lng) > 120, "the first view is centred on the Pacific: \(report)")
        // The view holds ±180° (MapLibre gives west and east unwrapped, so one of them is past it).
        let west = report["west"] as? Double ?? 0, east = report["east"] as? Double ?? 0
        #expect((west...east).contains(180) || (west...east).contains(-180), "\(report)")
        #expect(east - west < 300, "the view is not the whole world: \(report)")
        #expect(await serve.stop() == 0)
    }

    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func theListStaysUsableWithTenThousandRoutes() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let folder = try TemporaryFolder()
        var features: [String] = []
        for i in 1...10_000 {
            let lon = 2.2 + Double(i % 100) * 0.004, lat = 48.8 + Double(i / 100) * 0.002
            features.append(#"{"type":"Feature","id":\#(i),"properties":{"name":"Route \#(i)"},"geometry":{"type":"LineString","coordinates":[[\#(lon),\#(lat)],[\#(lon + 0.003),\#(lat + 0.001)]]}}"#)
        }
        try #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#
            .write(toFile: folder.path("many.geojson"), atomically: true, encoding: .utf8)
        let serve = try await ServeProcess.start([folder.path("many.geojson"), "--assets", assets,
                                                        "--maplibre-url", "/assets", "--basemap", "none"])
        let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", Self.script + "viewer_list_check.py",
                                                                      serve.base + "/"], timeout: 240)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.report(run)
        #expect(report["held"] as? Int == 10_000)
        #expect(report["countText"] as? String == "10000 routes")
        // Only the rows in view (and a few around them) are in the document.
        #expect((report["rows"] as? Int ?? 0) > 5 && (report["rows"] as? Int ?? 999) < 60, "\(report)")
        #expect((report["rowsAtEnd"] as? Int ?? 999) < 60, "\(report)")
        let expected = (1...10_000).map { "Route \($0)" }.filter { $0.contains("12") }
        #expect(report["shown"] as? [String] == expected, "\((report["shown"] as? [String])?.prefix(5) ?? [])")
        #expect((report["filterRows"] as? [String])?.first == "Route 12")
        #expect(report["lastId"] as? String == "10000")
        #expect((report["lastRows"] as? [String])?.last == "10000", "the end of the list is drawn: \(report)")
        #expect(report["selected"] as? String == "10000")
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")
        print("viewer with 10,000 routes: loaded in \(report["loadSeconds"] ?? "?") s, typing a filter took \(report["filterSeconds"] ?? "?") s")
        #expect(await serve.stop() == 0)
    }

    /// The viewer over routes with times: the time window shows the tracks of its time and hides the others
    /// (presets by filters on the tiles' time pieces, a custom range by window tiles), the list says when each
    /// route was last seen, speed colouring follows the tiles' `speed`, and playback keeps the recorded pace: at
    /// ×60 a track of three minutes plays in three seconds, and halfway through its time the marker is where the
    /// track was then (not halfway along its length).
    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func theTimeWindowAndPlaybackFollowTheRecordedTimes() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let folder = try TemporaryFolder()
        let now = Int64(Date().timeIntervalSince1970) * 1000
        func feature(_ id: String, _ name: String, _ positions: [(Double, Double)], _ times: [Int64]?) -> String {
            let coordinates = positions.map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
            let coordTimes = times.map { #","coordTimes":["# + $0.map { "\"\(TimeValue.iso($0))\"" }.joined(separator: ",") + "]" } ?? ""
            return #"{"type":"Feature","id":"\#(id)","properties":{"name":"\#(name)"\#(coordTimes)},"geometry":{"type":"LineString","coordinates":[\#(coordinates)]}}"#
        }
        // The van of the last three minutes: a position every 6 s, slow (4 km/h) for the first half of its time and
        // ten times faster after, along one parallel.
        let recentLons: [Double] = (0...30).map { (i: Int) -> Double in
            i <= 15 ? 2.33 + Double(i) * 1e-4 : 2.3315 + Double(i - 15) * 1e-3
        }
        let recentTimes: [Int64] = (0...30).map { (i: Int) -> Int64 in now - 180_000 + Int64(i) * 6_000 }
        let oldStart: Int64 = now - 3 * 3_600_000
        let oldPositions: [(Double, Double)] = (0..<10).map { (i: Int) -> (Double, Double) in
            (2.25 + Double(i) * 2e-3, 48.85 + Double(i % 2) * 1e-3)
        }
        let oldTimes: [Int64] = (0..<10).map { (i: Int) -> Int64 in oldStart + Int64(i) * 60_000 }
        let features: [String] = [
            feature("old", "Old track", oldPositions, oldTimes),
            feature("recent", "Recent van", recentLons.map { ($0, 48.86) }, recentTimes),
            feature("plain", "Plain route", [(2.30, 48.87), (2.31, 48.875), (2.32, 48.87)], nil),
        ]
        let collection = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",\n") + "]}"
        try collection.write(toFile: folder.path("timed.geojson"), atomically: true, encoding: .utf8)
        let serve = try await ServeProcess.start([folder.path("timed.geojson"), "--store", "memory", "--speed-classes", "10",
                                                  "--assets", assets, "--maplibre-url", "/assets", "--basemap", "none"])
        let from = Double(oldStart) / 1000 - 60, to = Double(now) / 1000 - 7_200
        let output = try TemporaryFolder()
        let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", Self.script + "viewer_time_check.py",
                                                                      serve.base + "/", output.path(""), "\(from)", "\(to)"],
                                                     timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        Self.keep(output.path("time.png"), as: "viewer-time.png")
        let report = try Self.report(run)
        #expect((report["errors"] as? [Any])?.isEmpty == true, "\(report)")
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")
        #expect(report["controlsShown"] as? Bool == true && report["speedToggleShown"] as? Bool == true)

        // The window: the last 15 minutes hold the van alone; the custom range, the old track alone, drawn from
        // window tiles; all time, every route again, from the default tiles.
        let windows = try #require(report["windows"] as? [String: [String]])
        #expect(windows["all"] == ["old", "plain", "recent"], "\(windows)")
        #expect(windows["15m"] == ["recent"], "\(windows)")
        #expect(windows["custom"] == ["old"], "\(windows)")
        #expect(windows["allAgain"] == ["old", "plain", "recent"], "\(windows)")
        let customTiles = report["customTiles"] as? String ?? ""
        #expect(customTiles.contains(".mvt?from=") && customTiles.contains("&to="), "\(customTiles)")
        #expect((report["allTiles"] as? String)?.hasSuffix("{z}/{x}/{y}.mvt") == true, "\(report["allTiles"] ?? "")")
        #expect((report["fade"] as? String)?.contains("interpolate") == true, "lines fade with age: \(report["fade"] ?? "")")

        // Last seen: the van's row says how long ago; the untimed route, read from a file, has no time to tell.
        let rows = try #require(report["rows"] as? [String: [String: String]])
        #expect(rows["recent"]?["text"]?.contains("seen just now") == true, "\(rows)")
        #expect(rows["old"]?["text"]?.contains("seen 2 h ago") == true, "\(rows)")
        #expect(rows["plain"]?["text"]?.contains("seen") == false, "\(rows)")

        // Speed colouring: a step on `speed`, over the van's two classes (0 and 40 km/h) and the old track's.
        let speed = try #require(report["speed"] as? [String: Any])
        #expect((speed["colour"] as? [Any])?.first as? String == "step", "\(speed)")
        let speeds = speed["speeds"] as? [Double] ?? []
        #expect(speeds.contains(0) && speeds.contains(40), "\(speed)")

        // Playback at the recorded pace: three minutes at ×60 take three seconds, at ×600 a tenth of that (a frame
        // or two of slack, and a loaded machine's late frames).
        let playback = try #require(report["playback"] as? [String: [String: Any]])
        let x60 = try #require(playback["60"]), x600 = try #require(playback["600"])
        #expect(x60["timed"] as? Bool == true && x60["ended"] as? Bool == true, "\(playback)")
        let seconds60 = x60["seconds"] as? Double ?? 0, seconds600 = x600["seconds"] as? Double ?? 0
        #expect(seconds60 >= 2.95 && seconds60 < 3.6, "×60 took \(seconds60) s for 180 s")
        #expect(seconds600 >= 0.29 && seconds600 < 0.8, "×600 took \(seconds600) s for 180 s")
        #expect(x60["clock"] as? String == Self.clock(recentTimes[30]), "\(x60)")
        // Halfway through its time the van was at its 16th position (the end of its slow half), a tenth of its
        // length along.
        let halfway = try #require(report["halfway"] as? [String: Any])
        let lngLat = halfway["lngLat"] as? [Double] ?? []
        #expect(lngLat.count == 2 && abs(lngLat[0] - recentLons[15]) < 1e-6 && abs(lngLat[1] - 48.86) < 1e-6, "\(halfway)")
        #expect(halfway["clock"] as? String == Self.clock(recentTimes[15]), "\(halfway)")
        #expect(await serve.stop() == 0)
    }

    /// The playback clock's text for a time (milliseconds): `2026-11-28 04:05:06 UTC`.
    static func clock(_ milliseconds: Int64) -> String {
        TimeValue.iso(milliseconds / 1000 * 1000).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    /// A private server: the viewer asks for a credential, takes one from the link's fragment, and shows the
    /// reader's groups alone, with signed tile URLs and live changes.
    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func aPrivateServersViewerShowsTheReadersGroupsAlone() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let folder = try TemporaryFolder()
        try Data(TestTokens.secret + [0x0a]).write(to: URL(fileURLWithPath: folder.path("secret")))
        let features = [("acme-1", "acme", 2.350), ("acme-2", "acme", 2.352), ("globex-1", "globex", 2.351)].map { id, group, lon in
            #"{"type":"Feature","id":"\#(id)","properties":{"name":"\#(id)","group":"\#(group)"},"geometry":{"type":"LineString","coordinates":[[\#(lon),48.85],[\#(lon + 0.004),48.853],[\#(lon + 0.006),48.849]]}}"#
        }
        try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8)
            .write(to: URL(fileURLWithPath: folder.path("fleet.geojson")))
        let writeToken = "browser-test-write-token"
        let serve = try await ServeProcess.start([folder.path("fleet.geojson"), "--store", "memory", "--read", "token",
                                                  "--jwt-secret-file", folder.path("secret"), "--write-token", writeToken,
                                                  "--assets", assets, "--maplibre-url", "/assets", "--basemap", "none"])
        let acme = try await TestTokens.hs256(read: ["acme"], subject: "acme-dispatch")
        let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", Self.script + "viewer_private_check.py",
                                                                      serve.base, acme, writeToken], timeout: 240)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.report(run)
        #expect(report["asked"] as? Bool == true && (report["askedMessage"] as? String ?? "").contains("credential"), "\(report)")
        #expect(report["hash"] as? String == "", "\(report)")
        #expect(report["listed"] as? [String] == ["acme-1", "acme-2"], "\(report)")
        let fids = report["fids"] as? [String: String] ?? [:]
        let rendered = Set(report["rendered"] as? [String] ?? [])
        #expect(!rendered.isEmpty && rendered.isSubset(of: Set(fids.values)), "\(report)")
        #expect((report["tileURL"] as? String ?? "").contains("&g=acme&sig="), "\(report)")
        #expect(report["appendStatus"] as? Int == 200 && report["sawChange"] as? Bool == true, "\(report)")
        #expect(report["status"] as? String == "live", "\(report)")
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")
        // No request of the page was refused for its credential: every tile's signature held.
        let (status, metrics) = try await serve.get("/metrics", headers: [("Authorization", "Bearer \(writeToken)")])
        #expect(status == 200)
        let failures = String(decoding: metrics, as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix("routetiles_authentication_failures_total ") }
        #expect(failures == "routetiles_authentication_failures_total 0", "\(failures ?? "")")
    }
}
