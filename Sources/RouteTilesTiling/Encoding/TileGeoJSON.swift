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
        var features: [Feature] = []
        for l in decoded.layers where layer == nil || l.name == layer {
            for f in l.features {
                let parts = f.geometry.parts.map { part in
                    part.map { p -> [Double] in
                        let c = coordinate(p, tile: tile, extent: l.extent)
                        return [c.longitude, c.latitude]
                    }
                }
                let geometry: Geometry
                switch f.kind {
                case .point?:
                    let points = parts.flatMap { $0 }
                    geometry = points.count == 1 ? Geometry(type: "Point", coordinates: .position(points[0]))
                                                 : Geometry(type: "MultiPoint", coordinates: .positions(points))
                case .lineString?:
                    geometry = parts.count == 1 ? Geometry(type: "LineString", coordinates: .positions(parts[0]))
                                                : Geometry(type: "MultiLineString", coordinates: .lines(parts))
                case nil:
                    geometry = Geometry(type: "GeometryCollection", geometries: [])
                }
                var properties: [String: PropertyValue] = [:]
                for p in f.properties { properties[p.key] = p.value }
                features.append(Feature(layer: l.name, geometry: geometry, properties: properties, id: f.id))
            }
        }
        return JSONText.bytes(Collection(features: features), pretty: true)
    }

    private struct Collection: Encodable {
        var type = "FeatureCollection"
        var features: [Feature]
    }

    private struct Feature: Encodable {
        var type = "Feature"
        var layer: String
        var geometry: Geometry
        var properties: [String: PropertyValue]
        var id: UInt64?
    }

    private struct Geometry: Encodable {
        var type: String
        var coordinates: GeoJSONCoordinates?
        var geometries: [Geometry]?
    }
}
