import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

private typealias T = TileTestSupport

private let mapboxVectorTileAvailable = ExternalTool.required(ExternalTool.pythonHas("mapbox_vector_tile"))

/// Reads a tile from stdin with Python's mapbox_vector_tile and prints its layers as JSON: every geometry as a list
/// of parts, every property value as its Python type name and text (repr for floats, so no precision is lost).
private let decodeScript = """
import json, sys
import mapbox_vector_tile
tile = mapbox_vector_tile.decode(sys.stdin.buffer.read(), default_options={'y_coord_down': True})
layers = []
for name, layer in tile.items():
    features = []
    for feature in layer['features']:
        kind = feature['geometry']['type']
        coordinates = feature['geometry']['coordinates']
        parts = {'Point': lambda c: [[c]], 'MultiPoint': lambda c: [[p] for p in c],
                 'LineString': lambda c: [c], 'MultiLineString': lambda c: c}[kind](coordinates)
        properties = [[key, type(value).__name__, repr(value) if isinstance(value, float) else str(value)]
                      for key, value in feature['properties'].items()]
        features.append({'id': feature.get('id'), 'type': kind, 'parts': parts, 'properties': properties})
    layers.append({'name': name, 'extent': layer['extent'], 'version': layer['version'], 'features': features})
print(json.dumps(layers))
"""

private struct PythonLayer: Decodable {
    var name: String
    var extent: Int
    var version: Int
    var features: [PythonFeature]
}

private struct PythonFeature: Decodable {
    var id: UInt64?
    var type: String
    var parts: [[[Int]]]
    var properties: [[String]]
}

@Suite struct MapboxVectorTileTests {
    /// A property as the script prints it: key, Python type name, text.
    static func pythonForm(_ property: Property) -> [String] {
        switch property.value {
        case let .string(string): return [property.key, "str", string]
        case let .int(number): return [property.key, "int", "\(number)"]
        case let .uint(number): return [property.key, "int", "\(number)"]
        case let .double(number): return [property.key, "float", "\(number)"]
        case let .bool(flag): return [property.key, "bool", flag ? "True" : "False"]
        }
    }

    @Test(.enabled(if: mapboxVectorTileAvailable, "needs python3 with mapbox_vector_tile"))
    func mapboxVectorTileReadsOurTiles() async throws {
        struct Input {
            var id: UInt64?
            var geometry: TileGeometry
            var properties: [Property]
            var type: String
            var parts: [[[Int]]]
        }
        let routes: [Input] = [
            Input(id: 1, geometry: T.lines([(2, 2), (2, 10), (10, 10)]),
                  properties: [Property("name", .string("Main St")), Property("lanes", .int(2)),
                               Property("offset", .int(-3)), Property("weight", .double(0.1)),
                               Property("oneway", .bool(true))],
                  type: "LineString", parts: [[[2, 2], [2, 10], [10, 10]]]),
            Input(id: UInt64.max, geometry: T.lines([(0, 0), (100, 50)], [(200, 200), (300, 100), (300, 100)]),
                  properties: [Property("name", .string("Main St")), Property("big", .uint(UInt64.max)),
                               Property("ratio", .double(-2.25)), Property("café", .string("crème"))],
                  type: "MultiLineString", parts: [[[0, 0], [100, 50]], [[200, 200], [300, 100]]]),
            Input(id: 3, geometry: T.lines([(-100, 4000), (4200, -50)]), properties: [Property("oneway", .bool(false))],
                  type: "LineString", parts: [[[-100, 4000], [4200, -50]]]),
        ]
        let stops: [Input] = [
            Input(id: 7, geometry: T.points((25, 17)), properties: [Property("kind", .string("stop"))],
                  type: "Point", parts: [[[25, 17]]]),
            Input(id: 8, geometry: T.points((5, 7), (3, 2)), properties: [], type: "MultiPoint",
                  parts: [[[5, 7]], [[3, 2]]]),
        ]

        var tile = VectorTileBuilder()
        for (name, extent, inputs) in [("routes", UInt32(4096), routes), ("stops", UInt32(512), stops)] {
            var layer = VectorLayerBuilder(name: name, extent: extent)
            for input in inputs {
                let added = try layer.addFeature(id: input.id, geometry: input.geometry, properties: input.properties)
                #expect(added)
            }
            try tile.addLayer(layer)
        }

        let result = try await ExternalTool.pythonDetached(decodeScript, stdin: tile.encode())
        try #require(result.status == 0, "\(result.stderr)")
        let layers = try JSONDecoder().decode([PythonLayer].self, from: Data(result.stdout))
        #expect(layers.map(\.name) == ["routes", "stops"])
        #expect(layers.map(\.extent) == [4096, 512])
        #expect(layers.map(\.version) == [2, 2])
        for (layer, inputs) in zip(layers, [routes, stops]) {
            try #require(layer.features.count == inputs.count)
            for (feature, input) in zip(layer.features, inputs) {
                #expect(feature.id == input.id)
                #expect(feature.type == input.type)
                #expect(feature.parts == input.parts)
                #expect(feature.properties == input.properties.map(Self.pythonForm))
            }
        }
    }
}
