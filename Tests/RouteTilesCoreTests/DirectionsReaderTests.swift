import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport

private func sample(_ name: String) -> String {
    PackageFolder.root.appendingPathComponent("Tiles/samples/\(name)").path
}

private func layer(_ result: ReadResult, _ name: String) -> [Route] {
    result.routes.filter { ($0.layer ?? "routes") == name }
}

private func value(_ route: Route, _ key: String) -> PropertyValue? {
    route.properties.first { $0.key == key }?.value
}

/// The decoded tile at `zoom` that holds `c`, from a tiler over `routes`.
private func tile(holding c: Coordinate, zoom: Int, routes: [Route]) throws -> DecodedTile {
    var options = TilingOptions()
    options.maxZoom = zoom
    let tiler = RouteTiler(routes: routes, options: options)
    let id = WebMercator.tile(containing: c, zoom: zoom)
    let bytes = try #require(try tiler.tile(z: id.z, x: id.x, y: id.y))
    return try VectorTileDecoder.decode(bytes)
}

@Suite struct DirectionsReaderTests {
    @Test func detectsEachProviderByContent() throws {
        for name in ["zurich-google-directions.json", "zurich-osrm-route.json", "zurich-valhalla-route.json"] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: sample(name))))
            #expect(InputFormat.detect(path: name, bytes: bytes) == .directions)
            #expect(InputFormat.detect(path: "body", bytes: bytes) == .directions)
        }
        #expect(InputFormat.detect(path: "x.json", bytes: Array(#"{"type":"FeatureCollection","routes":[]}"#.utf8)) == .geojson)
    }

    @Test func googleRoutesStepsAndManeuvers() throws {
        let result = try RouteReader.read(path: sample("zurich-google-directions.json"))
        let routes = layer(result, "routes"), steps = layer(result, "steps"), maneuvers = layer(result, "maneuvers")
        #expect(routes.count == 2 && steps.count == 10 && maneuvers.count == 10)
        #expect(routes.map { value($0, "route_index") } == [.int(0), .int(1)])
        #expect(value(routes[0], "distance_m") == .double(2985) && value(routes[0], "duration_s") == .double(398))
        #expect(value(routes[0], "summary") == .string("Bahnhofstrasse"))
        #expect(value(steps[1], "instruction") == .string("Turn right onto Limmatquai"))
        #expect(maneuvers.allSatisfy { $0.kind == .point && $0.parts.count == 1 && $0.parts[0].count == 1 })
        #expect(value(maneuvers[1], "type") == .string("turn-right") && value(maneuvers[1], "modifier") == .string("right"))
        // The maneuver's bearing is that of its step's first segment.
        let step = steps[1].parts[0]
        guard case .double(let bearing)? = value(maneuvers[1], "bearing") else { Issue.record("no bearing"); return }
        #expect(abs(bearing - Bearing.initial(step[0], step[1])) < 0.1)
    }

    @Test func osrmPolyline6IsToldFromPolyline() throws {
        let result = try RouteReader.read(path: sample("zurich-osrm-route.json"))
        let routes = layer(result, "routes"), maneuvers = layer(result, "maneuvers")
        #expect(routes.count == 1)
        let first = routes[0].parts[0][0]
        #expect(abs(first.latitude - 47.38) < 1e-6 && abs(first.longitude - 8.55) < 1e-6)
        #expect(layer(result, "steps").count == 6)   // the arrive step has a zero-length line: no step line
        #expect(maneuvers.count == 7)
        #expect(value(maneuvers[0], "type") == .string("depart"))
        #expect(value(maneuvers[1], "instruction") == .string("turn right onto Limmatquai"))
        #expect(value(maneuvers.last!, "type") == .string("arrive"))
        #expect(value(routes[0], "summary") == .string("Seestrasse, Limmatquai"))
    }

    @Test func valhallaManeuversIndexTheShapeAndUseTheUnits() throws {
        let result = try RouteReader.read(path: sample("zurich-valhalla-route.json"))
        let routes = layer(result, "routes"), steps = layer(result, "steps"), maneuvers = layer(result, "maneuvers")
        #expect(routes.count == 1 && steps.count == 4 && maneuvers.count == 5)
        guard case .double(let distance)? = value(routes[0], "distance_m") else { Issue.record("no distance"); return }
        #expect(abs(distance - 0.014 * 219 * 1000) < 1e-6)
        #expect(value(maneuvers[1], "type") == .string("right") && value(maneuvers[1], "modifier") == .string("right"))
        #expect(steps[0].parts[0].first == routes[0].parts[0].first)
        #expect(maneuvers[4].parts[0][0] == routes[0].parts[0].last)
    }

    @Test func valhallaMilesAndASummaryOfTheLongestStreets() throws {
        var text = try String(contentsOfFile: sample("zurich-valhalla-route.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"kilometers\"", with: "\"miles\"")
        let result = try RouteReader.read(bytes: Array(text.utf8), name: "v.json", format: .directions)
        let routes = layer(result, "routes"), steps = layer(result, "steps")
        guard case .double(let distance)? = value(routes[0], "distance_m") else { Issue.record("no distance"); return }
        #expect(abs(distance - 3.066 * 1609.344) < 1e-6)
        guard case .double(let step)? = value(steps[3], "distance_m") else { Issue.record("no step distance"); return }
        #expect(abs(step - 2.604 * 1609.344) < 1e-6)
        // The two longest maneuvers' streets, in route order.
        #expect(value(routes[0], "summary") == .string("Seestrasse, Universitätstrasse"))
    }

    /// A route with fewer than two positions, a coordinate out of range or a broken polyline is an error naming
    /// its JSON path; with --skip-invalid that route is left out with its steps and maneuvers, and counted.
    @Test func badRoutesStopTheReadOrAreSkippedWhole() throws {
        let good = try String(contentsOfFile: sample("zurich-osrm-route.json"), encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(good.utf8)) as? [String: Any])
        let route = try #require((object["routes"] as? [[String: Any]])?.first)
        for (bad, message) in [
            (["geometry": ["type": "LineString", "coordinates": [[8.5, 47.3]]], "legs": []], "routes[1]: the route has no line of two or more positions"),
            (["geometry": ["type": "LineString", "coordinates": [[8.5, 47.3], [8.6, 95.0]]], "legs": []], "routes[1].geometry.coordinates[1]: latitude 95"),
            (["geometry": ["type": "LineString", "coordinates": [[8.5, 47.3], [8.6, 47.4]]],
              "legs": [["steps": [["maneuver": ["location": [8.5, 91.0], "type": "depart"], "distance": 1]]]]],
             "routes[1].legs[0].steps[0].maneuver.location: latitude 91"),
            (["geometry": "_p~iF~ps|U_ulL", "legs": []], "routes[1].geometry"),
        ] as [([String: Any], String)] {
            var document = object
            document["routes"] = [route, bad]
            let bytes = Array(try JSONSerialization.data(withJSONObject: document))
            #expect { try RouteReader.read(bytes: bytes, name: "d.json", format: .directions) } throws: {
                "\($0)".contains(message)
            }
            var options = ReadOptions()
            options.skipInvalid = true
            let skipped = try RouteReader.read(bytes: bytes, name: "d.json", format: .directions, options: options)
            #expect(skipped.invalid.count == 1 && "\(skipped.invalid[0])".contains(message), "\(skipped.invalid)")
            let alone = try RouteReader.read(path: sample("zurich-osrm-route.json"))
            #expect(skipped.routes.count == alone.routes.count, "the bad route's steps and maneuvers are left out too")
            #expect(skipped.routes.allSatisfy { value($0, "route_index") == .int(0) })
        }
        // A Google response whose one route has a single position: an error, not an empty result.
        let google = #"{"status":"OK","routes":[{"summary":"x","overview_polyline":{"points":"_p~iF~ps|U"},"legs":[]}]}"#
        #expect { try RouteReader.read(bytes: Array(google.utf8), name: "g.json", format: .directions) } throws: {
            "\($0)".contains("routes[0]: the route has no line of two or more positions")
        }
    }

    /// With `--layer`, the routes of a directions response go into that layer; steps and maneuvers keep theirs,
    /// and the metadata lists exactly the layers the tiles hold.
    @Test func theRoutesLayerTakesItsNameFromTheOptions() throws {
        let result = try RouteReader.read(path: sample("zurich-osrm-route.json"))
        var options = TilingOptions()
        options.maxZoom = 14
        options.layerName = "trips"
        let tiler = RouteTiler(routes: result.routes, options: options)
        let maneuver = try #require(layer(result, "maneuvers").dropFirst().first)
        let id = WebMercator.tile(containing: maneuver.parts[0][0], zoom: 14)
        let decoded = try VectorTileDecoder.decode(try #require(try tiler.tile(z: id.z, x: id.x, y: id.y)))
        #expect(Set(decoded.layers.map(\.name)) == ["trips", "steps", "maneuvers"])
        // The density layer of zooms 0 to 5 is listed too.
        #expect(Set(TilesetMetadata(name: "x", tiler: tiler).layers.map(\.id)) == ["trips", "steps", "maneuvers", "density"])
    }

    /// Steps and maneuvers reach the tiles as their own layers, maneuvers as Point features.
    @Test(arguments: ["zurich-google-directions.json", "zurich-osrm-route.json", "zurich-valhalla-route.json"])
    func layersInBuiltTiles(name: String) throws {
        let result = try RouteReader.read(path: sample(name))
        let maneuver = try #require(layer(result, "maneuvers").dropFirst().first)
        let decoded = try tile(holding: maneuver.parts[0][0], zoom: 14, routes: result.routes)
        #expect(Set(decoded.layers.map(\.name)) == ["routes", "steps", "maneuvers"])
        let points = try #require(decoded.layer(named: "maneuvers"))
        #expect(points.features.allSatisfy { $0.kind == .point })
        let found = try #require(points.features.first)
        #expect(found.geometry.points.count == 1)
        #expect(found.properties.contains { $0.key == "bearing" })
        #expect(!found.properties.contains { $0.key == "length_m" })
        let lines = try #require(decoded.layer(named: "steps"))
        #expect(lines.features.allSatisfy { $0.kind == .lineString && $0.properties.contains { $0.key == "length_m" } })
    }

    /// A backslash in a polyline inside JSON is a JSON escape: the string is decoded, no backslash stripped.
    @Test func escapedBackslashesInJSONPolylines() throws {
        var line: [Coordinate] = []
        var text = ""
        for k in 0..<2000 where !text.contains("\\") {
            line = [Coordinate(longitude: 8, latitude: 47), Coordinate(longitude: 8 + Double(k) * 1e-5, latitude: 47.001)]
            text = PolylineCodec.encode(line)
        }
        #expect(text.contains("\\"))
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\")
        let json = #"{"routes": [{"overview_polyline": {"points": ""# + escaped + #""}, "legs": []}]}"#
        let result = try DirectionsReader.read(Array(json.utf8), file: "d.json", options: ReadOptions())
        #expect(result.routes.count == 1 && result.routes[0].parts == [line])
    }

    @Test func badDirectionsAreErrorsWithAPlace() {
        func error(_ text: String) -> String? {
            inputError { _ = try DirectionsReader.read(Array(text.utf8), file: "d.json", options: ReadOptions()) }?
                .description
        }
        #expect(error(#"{"routes": [{"overview_polyline": {"points": "_p~iF~ps|U_"}}]}"#)
            == "d.json: offset 10: routes[0].overview_polyline.points: polyline ends inside a value (truncated?)")
        #expect(error(#"{"trip": {"legs": [{"shape": "_p~iF~ps|U", "maneuvers": [{"begin_shape_index": 4}]}]}}"#)
            == "d.json: trip.legs[0].maneuvers[0]: shape indexes 4...4 lie outside the shape of 1 positions")
        #expect(error(#"{"routes": [1,"#)?.hasPrefix("d.json:1:") == true)
        #expect(error(#"{"foo": 1}"#)?.contains("not a directions response") == true)
    }
}
