import Foundation
import RouteTilesGeo
import RouteTilesModel

/// A decoded tile as a GeoJSON FeatureCollection in lon/lat, for `routetiles inspect` and for comparisons with
/// other decoders.
package enum TileGeoJSON {
    /// Positions of a tile point: tile units → map points → lon/lat, rounded to 1e-7°.
    package static func coordinate(_ p: TilePoint, tile: TileID, extent: UInt32) -> Coordinate {
        let size = WebMercator.tileSize(zoom: tile.z)
        let scale = size / Double(extent)
        let c = WebMercator.unproject(MapPoint(x: Double(tile.x) * size + Double(p.x) * scale,
                                               y: Double(tile.y) * size + Double(p.y) * scale))
        return Coordinate(longitude: (c.longitude * 1e7).rounded() / 1e7, latitude: (c.latitude * 1e7).rounded() / 1e7)
    }

    /// GeoJSON text of every feature of `tile` (or of one layer): each feature with its `id`, its properties, and a
    /// `layer` member naming its layer.
    package static func featureCollection(_ decoded: DecodedTile, tile: TileID, layer: String? = nil) -> [UInt8] {
        var features: [[String: Any]] = []
        for l in decoded.layers where layer == nil || l.name == layer {
            for f in l.features {
                let parts = f.geometry.parts.map { part in
                    part.map { p -> [Double] in
                        let c = coordinate(p, tile: tile, extent: l.extent)
                        return [c.longitude, c.latitude]
                    }
                }
                let geometry: [String: Any]
                switch f.kind {
                case .point?:
                    let points = parts.flatMap { $0 }
                    geometry = points.count == 1 ? ["type": "Point", "coordinates": points[0]]
                                                 : ["type": "MultiPoint", "coordinates": points]
                case .lineString?:
                    geometry = parts.count == 1 ? ["type": "LineString", "coordinates": parts[0]]
                                                : ["type": "MultiLineString", "coordinates": parts]
                case nil:
                    geometry = ["type": "GeometryCollection", "geometries": [Any]()]
                }
                var properties: [String: Any] = [:]
                for p in f.properties { properties[p.key] = jsonValue(p.value) }
                var feature: [String: Any] = ["type": "Feature", "layer": l.name, "geometry": geometry,
                                              "properties": properties]
                if let id = f.id { feature["id"] = NSNumber(value: id) }
                features.append(feature)
            }
        }
        return JSONText.bytes(["type": "FeatureCollection", "features": features], pretty: true)
    }

    static func jsonValue(_ v: PropertyValue) -> Any {
        switch v {
        case let .string(s): return s
        case let .int(n): return NSNumber(value: n)
        case let .uint(n): return NSNumber(value: n)
        case let .double(d): return d.isFinite ? NSNumber(value: d) : String(d)
        case let .bool(b): return b
        }
    }
}
