import Foundation
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport
import Testing

/// A tile of a directions response's layers (routes, steps, maneuvers), read by Python's mapbox-vector-tile.
@Suite struct DirectionsInteropTests {
    @Test func mapboxVectorTileReadsTheLayers() async throws {
        guard ExternalTool.required(ExternalTool.pythonHas("mapbox_vector_tile")) else { return }
        let result = try RouteReader.read(path: PackageFolder.root.appendingPathComponent("Tiles/samples/zurich-osrm-route.json").path)
        let maneuver = try #require(result.routes.filter { $0.layer == "maneuvers" }.dropFirst().first)
        var options = TilingOptions()
        options.maxZoom = 14
        let id = WebMercator.tile(containing: maneuver.parts[0][0], zoom: 14)
        let bytes = try #require(try RouteTiler(routes: result.routes, options: options).tile(z: id.z, x: id.x, y: id.y))
        let script = """
        import json, sys, mapbox_vector_tile
        tile = mapbox_vector_tile.decode(sys.stdin.buffer.read())
        print(json.dumps({name: sorted(set(f['geometry']['type'] for f in layer['features'])) for name, layer in tile.items()}))
        """
        let output = try await ExternalTool.pythonDetached(script, stdin: bytes)
        #expect(output.status == 0, "\(output.stderr)")
        let types = try JSONDecoder().decode([String: [String]].self, from: Data(output.stdout))
        #expect(types["maneuvers"] == ["Point"])
        #expect(types["steps"] == ["LineString"] && types["routes"] == ["LineString"])
    }

}
