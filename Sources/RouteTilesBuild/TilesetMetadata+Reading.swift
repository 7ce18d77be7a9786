import Foundation
import RouteTilesGeo
import RouteTilesModel

extension TilesetMetadata {
    /// Reads metadata back from name/value pairs: a pyramid's `metadata.json`, an MBTiles `metadata` table, or a
    /// PMTiles JSON metadata object. Values may be strings (as tippecanoe writes them) or JSON numbers and arrays;
    /// `json` may be a string holding `{"vector_layers": …}` or `vector_layers` may be given directly.
    /// `source` names the file in errors.
    package init(pairs object: [String: JSONDocument], source: String) throws {
        func numbers(_ key: String, count: Int) throws -> [Double]? {
            guard let value = object[key] else { return nil }
            let parts: [Double]?
            switch value {
            case let .string(text):
                let items = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                parts = items.contains(where: { $0 == nil }) ? nil : items.compactMap { $0 }
            case let .array(array):
                let items = array.map(\.number)
                parts = items.contains(where: { $0 == nil }) ? nil : items.compactMap { $0 }
            default:
                parts = nil
            }
            guard let parts, parts.count == count, parts.allSatisfy(\.isFinite) else {
                throw StoreError(path: source, message: "metadata '\(key)' is not \(count) numbers")
            }
            return parts
        }
        func integer(_ key: String) throws -> Int? {
            guard let value = object[key] else { return nil }
            if let text = value.string, let n = Int(text) { return n }
            if let n = value.number, n == n.rounded(), abs(n) < 1e15 { return Int(n) }
            throw StoreError(path: source, message: "metadata '\(key)' is not an integer")
        }
        var layerObjects: [JSONDocument]?
        var pieces: JSONDocument?
        var budget: JSONDocument?
        if let layers = object["vector_layers"]?.array {
            layerObjects = layers
            pieces = object["time_pieces"]
            budget = object["tile_budget"]
        } else if let json = object["json"]?.string {
            guard let parsed = JSONDocument.parse(Array(json.utf8))?.object else {
                throw StoreError(path: source, message: "metadata 'json' is not a JSON object")
            }
            layerObjects = parsed["vector_layers"]?.array
            pieces = parsed["time_pieces"]
            budget = parsed["tile_budget"]
        }
        var layers: [VectorLayerInfo] = []
        for (i, item) in (layerObjects ?? []).enumerated() {
            guard let id = item["id"]?.string else {
                throw StoreError(path: source, message: "vector_layers[\(i)] has no 'id'")
            }
            var fields: [String: String] = [:]
            for (key, type) in item["fields"]?.object ?? [:] { fields[key] = type.string ?? "Mixed" }
            layers.append(VectorLayerInfo(id: id, description: item["description"]?.string ?? "", fields: fields,
                                          maxZoom: item["maxzoom"]?.number.flatMap { $0 >= 0 && $0 <= 99 ? Int($0) : nil }))
        }
        let minZoom = try integer("minzoom") ?? 0
        let maxZoom = try integer("maxzoom") ?? 14
        guard 0 <= minZoom, minZoom <= maxZoom, maxZoom <= TileID.maxZoom else {
            throw StoreError(path: source, message: "metadata zooms \(minZoom)–\(maxZoom) are not a valid range")
        }
        let bounds = try numbers("bounds", count: 4) ?? WebMercator.worldBounds.array
        let center = try numbers("center", count: 3)
            ?? [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, Double(minZoom)]
        // A layer that reaches the tileset's deepest zoom says nothing of its own (as `Survey` makes it).
        for i in layers.indices where layers[i].maxZoom.map({ $0 >= maxZoom }) ?? false { layers[i].maxZoom = nil }
        self.init(name: object["name"]?.string ?? "", layers: layers, minZoom: minZoom, maxZoom: maxZoom,
                  bounds: bounds, center: center)
        description = object["description"]?.string ?? ""
        if let pieces {
            var table: [String: Int] = [:]
            for (zoom, seconds) in pieces.object ?? [:] {
                guard let n = seconds.number, n == n.rounded(), n > 0, n < 1e9 else {
                    throw StoreError(path: source, message: "time_pieces[\"\(zoom)\"] is not a whole number of seconds")
                }
                table[zoom] = Int(n)
            }
            timePieces = table
        }
        if let budget { tileBudget = try TileBudgetReport(json: budget, source: source) }
        switch object["format"]?.string?.lowercased() {
        case nil, "pbf", "mvt":
            tileFormat = .mvt
        case "png":
            let scale = try integer(Self.tileScaleKey) ?? 1
            guard TileFormat.pngScales.contains(scale) else {
                throw StoreError(path: source, message: "metadata '\(Self.tileScaleKey)' is \(scale), not 1, 2 or 3")
            }
            tileFormat = .png(scale: scale)
        case let other?:
            throw StoreError(path: source, message: "metadata 'format' is '\(other)'; RouteTiles reads vector tiles (pbf) and its own png tiles")
        }
        if let label = object[Self.shardKey] {
            guard let text = label.string, let shard = try? PyramidShard(label: text) else {
                throw StoreError(path: source, message: "metadata '\(Self.shardKey)' is not a shard of a plan: \(label.string ?? "not text")")
            }
            self.shard = shard
        }
    }
}
