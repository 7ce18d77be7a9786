import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Tiles we write, read by independent decoders (GDAL's MVT driver, Python's mapbox-vector-tile) and compared
/// with our own decoder: the same features, ids, properties and coordinates.
@Suite(.serialized) struct InteropTests {
    /// Builds the bundled samples (minus the big flights) into a temporary pyramid.
    static func buildSamples(into tmp: TemporaryFolder, maxZoom: Int = 12) async throws -> (String, [TileID]) {
        let samples = PackageFolder.root.appendingPathComponent("Tiles/samples")
        let out = tmp.path("pyramid")
        let r = try await ExternalTool.runDetached(ExternalTool.routetiles, [
            "build", samples.appendingPathComponent("paris-runs.geojson").path,
            samples.appendingPathComponent("berlin-transit.geojson").path,
            samples.appendingPathComponent("flights.geojson").path, "-o", out, "--maxzoom", String(maxZoom), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        var tiles: [TileID] = []
        let enumerator = FileManager.default.enumerator(atPath: out)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".mvt"), let id = TileID(String(path.dropLast(4))) else { continue }
            tiles.append(id)
        }
        return (out, tiles.sorted())
    }

    /// A spread of tiles: every tile up to z4, then every n-th one.
    static func pick(_ tiles: [TileID], count: Int) -> [TileID] {
        let low = tiles.filter { $0.z <= 4 }
        let high = tiles.filter { $0.z > 4 }
        let step = max(1, high.count / max(1, count - low.count))
        return low + stride(from: 0, to: high.count, by: step).map { high[$0] }
    }

    /// Our decoding of the layer `name` of a tile of the pyramid; a tile holds the routes and, to zoom 5, the density.
    static func ours(_ pyramid: String, _ tile: TileID, layer name: String = "routes") throws -> DecodedLayer {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(pyramid)/\(tile.z)/\(tile.x)/\(tile.y).mvt"))
        let tile = try VectorTileDecoder.decode(try Gzip.decompress(Array(data)))
        try #require(tile.layers.map(\.name) == (tile.layers.count == 2 ? ["routes", "density"] : ["routes"]))
        return tile.layer(named: name) ?? DecodedLayer(name: name)
    }

    static func same(_ value: PropertyValue, _ other: Any?) -> Bool {
        switch value {
        case let .string(s):
            if let text = other as? String { return text == s }
            // GDAL's GeoJSON writer turns a string that holds JSON (a nested value we serialised) back into JSON.
            guard let other, let parsed = try? JSONSerialization.jsonObject(with: Data(s.utf8), options: [.fragmentsAllowed])
            else { return false }
            return NSArray(array: [parsed]).isEqual(to: [other])
        case let .bool(b): return (other as? Bool) == b || (other as? NSNumber)?.boolValue == b && !(other is String)
        case let .int(n): return (other as? NSNumber)?.int64Value == n
        case let .uint(n): return (other as? NSNumber)?.uint64Value == n
        case let .double(d): return abs(((other as? NSNumber)?.doubleValue ?? .nan) - d) <= abs(d) * 1e-12
        }
    }

    static let pythonDecoder = """
        import gzip, json, sys
        import mapbox_vector_tile
        out = []
        for path in sys.stdin.read().split():
            data = gzip.decompress(open(path, 'rb').read())
            tile = mapbox_vector_tile.decode(data, default_options={'y_coord_down': True})
            layers = {}
            for name, layer in tile.items():
                layers[name] = {'extent': layer['extent'], 'version': layer['version'],
                                'features': [{'id': f.get('id'), 'properties': f['properties'], 'geometry': f['geometry']}
                                             for f in layer['features']]}
            out.append(layers)
        print(json.dumps(out))
        """

    @Test(.enabled(if: ExternalTool.required(ExternalTool.pythonHas("mapbox_vector_tile"))))
    func pythonMapboxVectorTileReadsWhatWeWrite() async throws {
        let tmp = try TemporaryFolder()
        let (pyramid, all) = try await Self.buildSamples(into: tmp)
        let tiles = Self.pick(all, count: 300)
        let paths = tiles.map { "\(pyramid)/\($0.z)/\($0.x)/\($0.y).mvt" }.joined(separator: "\n")
        let r = try await ExternalTool.runDetached("/usr/bin/env", ["python3", "-c", Self.pythonDecoder], stdin: Array(paths.utf8))
        try #require(r.status == 0, "\(r.stderr)")
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [[String: Any]])
        try #require(decoded.count == tiles.count)
        var features = 0
        var points = 0
        for (tile, python) in zip(tiles, decoded) {
            // The density layer's points: where ours are, with the same count.
            let density = try Self.ours(pyramid, tile, layer: "density")
            let theirPoints = ((python["density"] as? [String: Any])?["features"] as? [[String: Any]]) ?? []
            try #require(theirPoints.count == density.features.count, "\(tile)")
            for (f, g) in zip(density.features, theirPoints) {
                points += 1
                let geometry = try #require(g["geometry"] as? [String: Any])
                #expect(geometry["type"] as? String == "Point")
                #expect(geometry["coordinates"] as? [Int] == [Int(f.geometry.points[0].x), Int(f.geometry.points[0].y)], "\(tile)")
                #expect(Self.same(f.properties[0].value, (g["properties"] as? [String: Any])?["count"]), "\(tile)")
            }
            let ours = try Self.ours(pyramid, tile)
            let layer = try #require(python["routes"] as? [String: Any], "\(tile)")
            #expect(layer["extent"] as? Int == 4096 && layer["version"] as? Int == 2)
            let theirs = try #require(layer["features"] as? [[String: Any]])
            try #require(theirs.count == ours.features.count, "\(tile)")
            for (f, g) in zip(ours.features, theirs) {
                features += 1
                #expect((g["id"] as? NSNumber)?.uint64Value == f.id, "\(tile)")
                let properties = try #require(g["properties"] as? [String: Any])
                #expect(properties.count == f.properties.count)
                for p in f.properties { #expect(Self.same(p.value, properties[p.key]), "\(tile) \(p.key)") }
                let geometry = try #require(g["geometry"] as? [String: Any])
                let parts = try geoJSONLines(geometry, of: Int.self)
                #expect(parts == f.geometry.parts.map { $0.map { [Int($0.x), Int($0.y)] } }, "\(tile)")
            }
        }
        #expect(features > 300)
        #expect(points > 300)
    }

    /// Time pieces (`start_t`, `end_t`) of GPX tracks with times, read by Python's decoder as integers: whole
    /// pieces of each zoom's length, the same as ours; the file's planned route, without times, has none.
    @Test(.enabled(if: ExternalTool.required(ExternalTool.pythonHas("mapbox_vector_tile"))))
    func pythonReadsTheTimePiecesOfATrackWithTimes() async throws {
        let tmp = try TemporaryFolder()
        let out = tmp.path("hikes")
        let gpx = PackageFolder.root.appendingPathComponent("Tiles/samples/uetliberg-hikes.gpx").path
        let built = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", gpx, "-o", out, "--quiet"])
        try #require(built.status == 0, "\(built.stderr)")
        var tiles: [TileID] = []
        let enumerator = FileManager.default.enumerator(atPath: out)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".mvt"), let id = TileID(String(path.dropLast(4))) else { continue }
            tiles.append(id)
        }
        tiles = Self.pick(tiles.sorted(), count: 120)
        let paths = tiles.map { "\(out)/\($0.z)/\($0.x)/\($0.y).mvt" }.joined(separator: "\n")
        let r = try await ExternalTool.runDetached("/usr/bin/env", ["python3", "-c", Self.pythonDecoder], stdin: Array(paths.utf8))
        try #require(r.status == 0, "\(r.stderr)")
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [[String: Any]])
        var pieces = 0
        for (tile, python) in zip(tiles, decoded) {
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(tile.z)/\(tile.x)/\(tile.y).mvt"))
            let ours = try #require(try VectorTileDecoder.decode(try Gzip.decompress(Array(data))).layer(named: "routes"))
            let theirs = try #require((python["routes"] as? [String: Any])?["features"] as? [[String: Any]], "\(tile)")
            try #require(theirs.count == ours.features.count, "\(tile)")
            let length = Int64(TimePieces.seconds(zoom: tile.z))
            for (f, g) in zip(ours.features, theirs) {
                let properties = try #require(g["properties"] as? [String: Any])
                guard properties["start_t"] != nil else {
                    // The planned route (<rte>) has no times.
                    #expect((properties["name"] as? String)?.hasPrefix("Planned") == true, "\(tile): no start_t in \(properties)")
                    continue
                }
                let start = try #require(properties["start_t"] as? Int, "\(tile): start_t is not an integer in \(properties)")
                let end = try #require(properties["end_t"] as? Int, "\(tile): no integer end_t")
                #expect(f.properties.contains(Property("start_t", .int(Int64(start)))))
                #expect(Int64(start) % length == 0 && Int64(end) % length == 0 && end > start, "\(tile): \(start)–\(end)")
                pieces += 1
            }
        }
        #expect(pieces > 100)
    }

    /// Tile units → EPSG:3857 metres, as GDAL georeferences a tile named z/x/y.
    static func metres(_ p: TilePoint, _ tile: TileID) -> (Double, Double) {
        let half = Double.pi * 6_378_137
        let size = 2 * half / Double(1 << tile.z)
        return (-half + (Double(tile.x) + Double(p.x) / 4096) * size, half - (Double(tile.y) + Double(p.y) / 4096) * size)
    }

    @Test(.enabled(if: ExternalTool.required(ExternalTool.available("ogr2ogr"))))
    func gdalReadsWhatWeWrite() async throws {
        let tmp = try TemporaryFolder()
        let (pyramid, all) = try await Self.buildSamples(into: tmp, maxZoom: 10)
        var features = 0
        for tile in Self.pick(all, count: 25) {
            let path = "\(pyramid)/\(tile.z)/\(tile.x)/\(tile.y).mvt"
            let r = try await ExternalTool.runDetached("/usr/bin/env", ["ogr2ogr", "-f", "GeoJSON", "/vsistdout/", "-oo", "CLIP=NO", path, "routes"])
            try #require(r.status == 0, "\(r.stderr)")
            let collection = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
            let theirs = try #require(collection["features"] as? [[String: Any]])
            let ours = try Self.ours(pyramid, tile)
            try #require(theirs.count == ours.features.count, "\(tile)")
            for (f, g) in zip(ours.features, theirs) {
                features += 1
                let properties = try #require(g["properties"] as? [String: Any])
                // GDAL reports the uint64 id as a signed 64-bit integer.
                let id = try #require(properties["mvt_id"] as? NSNumber)
                #expect(UInt64(bitPattern: id.int64Value) == f.id, "\(tile)")
                for p in f.properties { #expect(Self.same(p.value, properties[p.key]), "\(tile) \(p.key)") }
                let geometry = try #require(g["geometry"] as? [String: Any])
                let parts = try geoJSONLines(geometry, of: Double.self)
                let expected = f.geometry.parts
                try #require(parts.count == expected.count, "\(tile)")
                for (a, b) in zip(parts, expected) {
                    try #require(a.count == b.count, "\(tile)")
                    for (q, p) in zip(a, b) {
                        let (x, y) = Self.metres(p, tile)
                        #expect(abs(q[0] - x) < 0.01 && abs(q[1] - y) < 0.01, "\(tile): \(q) vs \(x), \(y)")
                    }
                }
            }
        }
        #expect(features > 25)
        // The density of the root tile: GDAL's points where ours are, their counts summing to ours.
        let root = try Self.ours(pyramid, TileID(z: 0, x: 0, y: 0), layer: "density")
        let r = try await ExternalTool.runDetached("/usr/bin/env", ["ogr2ogr", "-f", "GeoJSON", "/vsistdout/", "-oo", "CLIP=NO",
                                                                    "\(pyramid)/0/0/0.mvt", "density"])
        try #require(r.status == 0, "\(r.stderr)")
        let points = try #require((try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])?["features"] as? [[String: Any]])
        try #require(points.count == root.features.count && !points.isEmpty)
        for (f, g) in zip(root.features, points) {
            let coordinates = try #require((g["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            let (x, y) = Self.metres(f.geometry.points[0], TileID(z: 0, x: 0, y: 0))
            #expect(abs(coordinates[0] - x) < 0.01 && abs(coordinates[1] - y) < 0.01)
            #expect(Self.same(f.properties[0].value, (g["properties"] as? [String: Any])?["count"]))
        }
    }

    /// GDAL opens a zoom level of the pyramid through metadata.json, as it does tippecanoe's.
    @Test(.enabled(if: ExternalTool.required(ExternalTool.available("ogrinfo"))))
    func gdalOpensTheTilesetThroughItsMetadata() async throws {
        let tmp = try TemporaryFolder()
        let (pyramid, all) = try await Self.buildSamples(into: tmp, maxZoom: 6)
        let r = try await ExternalTool.runDetached("/usr/bin/env", ["ogrinfo", "-ro", "-so", "-oo", "TILE_EXTENSION=mvt", "\(pyramid)/5", "routes"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("Layer name: routes"))
        #expect(r.text.contains("ZOOM_LEVEL=5"))
        let count = all.filter { $0.z == 5 }.reduce(0) { n, t in n + ((try? Self.ours(pyramid, t).features.count) ?? 0) }
        #expect(r.text.contains("Feature Count: \(count)"), "\(r.text)")
        // The fields GDAL found in metadata.json.
        #expect(r.text.contains("length_m: Real"), "\(r.text)")
    }
}
