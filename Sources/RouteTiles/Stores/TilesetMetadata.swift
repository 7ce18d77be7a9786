import Foundation

/// What a tileset says about itself: the `metadata.json` of a pyramid (the layout tippecanoe writes with `-e`),
/// the MBTiles metadata table, and TileJSON 3.0.0.
public struct TilesetMetadata: Sendable, Equatable {
    public var name: String
    public var description: String = ""
    /// The vector layers, in the order the tiles hold them.
    public var layers: [VectorLayerInfo]
    public var minZoom: Int
    public var maxZoom: Int
    /// West, south, east, north in degrees.
    public var bounds: [Double]
    /// Longitude, latitude, zoom.
    public var center: [Double]

    public init(name: String, layers: [VectorLayerInfo], minZoom: Int, maxZoom: Int, bounds: [Double],
                center: [Double]) {
        self.name = name
        self.layers = layers
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.center = center
    }

    /// The metadata of tiles cut by `tiler`.
    public init(name: String, tiler: RouteTiler) {
        self.init(name: name, options: tiler.options, routeSets: [tiler.routes])
    }

    /// The metadata of tiles cut with `options` from the routes of `routeSets` together.
    public init(name: String, options: TilingOptions, routeSets: [ProjectedRouteSet]) {
        var fields: [String: String] = ["length_m": "Number"]
        var otherLayers: [String: [String: String]] = [:]
        var layerOrder: [String] = []
        if options.lineMetrics {
            for key in ["start_m", "end_m", "mapbox_clip_start", "mapbox_clip_end"] { fields[key] = "Number" }
        }
        var mapBounds = MapRect.empty
        var south = Double.infinity, north = -Double.infinity
        for set in routeSets {
            for route in set.routes {
                let name = set.layers[route.layer] ?? options.layerName
                var layerFields = name == options.layerName ? fields : otherLayers[name] ?? [:]
                if name != options.layerName, otherLayers[name] == nil {
                    layerOrder.append(name)
                    if !route.isPoint { layerFields["length_m"] = "Number" }
                }
                for property in route.properties where !RouteTiler.reservedKeys.contains(property.key) {
                    let type = property.value.fieldType
                    if let known = layerFields[property.key], known != type {
                        layerFields[property.key] = "Mixed"
                    } else {
                        layerFields[property.key] = type
                    }
                }
                if name == options.layerName { fields = layerFields } else { otherLayers[name] = layerFields }
            }
            mapBounds.formUnion(set.bounds)
            if let b = set.geographicBounds {
                south = min(south, b.south)
                north = max(north, b.north)
            }
        }
        let b = ProjectedRouteSet.geographicBounds(of: mapBounds, south: south, north: north)
            ?? (west: -180, south: -85.05112878, east: 180, north: 85.05112878)
        let bounds = [b.west, b.south, b.east, b.north].map { ($0 * 1e6).rounded() / 1e6 }
        // The zoom at which the routes' extent spans about one tile, within the tileset's zooms.
        let span = max(mapBounds.maxX - mapBounds.minX, mapBounds.maxY - mapBounds.minY)
        let fit = span > 0 ? Int(log2(WebMercator.worldSize / span).rounded(.down)) : options.maxZoom
        let zoom = min(max(fit, options.minZoom), options.maxZoom)
        let centre: [Double]
        if mapBounds.isEmpty {
            centre = [0, 0, Double(zoom)]
        } else {
            let mid = WebMercator.unproject(MapPoint(x: (mapBounds.minX + mapBounds.maxX) / 2,
                                                     y: (mapBounds.minY + mapBounds.maxY) / 2))
            var lon = mid.longitude.truncatingRemainder(dividingBy: 360)
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            centre = [(lon * 1e6).rounded() / 1e6, (mid.latitude * 1e6).rounded() / 1e6, Double(zoom)]
        }
        let layers = [VectorLayerInfo(id: options.layerName, fields: fields)]
            + layerOrder.map { VectorLayerInfo(id: $0, fields: otherLayers[$0] ?? [:]) }
        self.init(name: name, layers: layers,
                  minZoom: options.minZoom, maxZoom: options.maxZoom, bounds: bounds, center: centre)
    }

    /// The `vector_layers` array of TileJSON and of the `json` metadata entry.
    public var vectorLayers: [[String: Any]] {
        layers.map { ["id": $0.id, "description": $0.description, "minzoom": minZoom, "maxzoom": maxZoom,
                      "fields": $0.fields] }
    }

    private static func text(_ numbers: [Double]) -> String {
        numbers.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : String($0) }.joined(separator: ",")
    }

    /// Name/value pairs as tippecanoe writes them (every value a string; `json` holding `vector_layers`). The same
    /// pairs fill the MBTiles `metadata` table.
    public var pairs: [(String, String)] {
        let json = Self.serialize(["vector_layers": vectorLayers], pretty: false)
        return [
            ("name", name), ("description", description), ("version", "2"),
            ("minzoom", String(minZoom)), ("maxzoom", String(maxZoom)),
            ("center", Self.text(center)), ("bounds", Self.text(bounds)),
            ("type", "overlay"), ("format", "pbf"),
            ("generator", "routetiles \(RouteTilesVersion.string)"),
            ("json", String(decoding: json, as: UTF8.self)),
        ]
    }

    /// `metadata.json` of a pyramid.
    public var metadataJSON: [UInt8] {
        var object: [String: Any] = [:]
        for (key, value) in pairs { object[key] = value }
        return Self.serialize(object, pretty: true)
    }

    /// TileJSON 3.0.0 with absolute tile URLs under `baseURL` (`{baseURL}/{z}/{x}/{y}.mvt`).
    public func tileJSON(baseURL: String) -> [UInt8] {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        let object: [String: Any] = [
            "tilejson": "3.0.0", "name": name, "description": description, "version": "1.0.0", "scheme": "xyz",
            "tiles": ["\(base)/{z}/{x}/{y}.mvt"], "minzoom": minZoom, "maxzoom": maxZoom,
            "bounds": bounds, "center": center, "vector_layers": vectorLayers,
        ]
        return Self.serialize(object, pretty: true)
    }

    static func serialize(_ object: Any, pretty: Bool) -> [UInt8] {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { options.insert(.prettyPrinted) }
        // Only dictionaries, arrays, strings and numbers built above reach here, so this cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data("{}".utf8)
        return Array(data) + (pretty ? [0x0a] : [])
    }
}
