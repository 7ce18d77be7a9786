import Foundation
import RouteTilesModel

/// Web Mercator (EPSG:3857) in map-point units.
public enum WebMercator {
    /// The world is 2^28 map points square (MapKit's `MKMapSize.world`).
    public static let worldSize: Double = 268_435_456
    /// Latitudes are clamped to ±85.05112878°, where the square Mercator world ends.
    public static let maxLatitude: Double = 85.05112878

    /// The whole square world, in longitude and latitude.
    public static let worldBounds = BoundingBox(west: -180, south: -maxLatitude, east: 180, north: maxLatitude)

    /// Projects a position. Longitudes are not wrapped: 190° lies beyond the right edge of the world, at
    /// `x = worldSize * 370 / 360`, which keeps a line that crosses the antimeridian continuous.
    @inlinable public static func project(_ c: Coordinate) -> MapPoint {
        let lat = min(max(c.latitude, -maxLatitude), maxLatitude)
        let x = (c.longitude + 180) / 360 * worldSize
        let sinLat = sin(lat * .pi / 180)
        let y = (0.5 - log((1 + sinLat) / (1 - sinLat)) / (4 * .pi)) * worldSize
        return MapPoint(x: x, y: y)
    }

    /// The position of a map point (x not wrapped back into ±180°).
    public static func unproject(_ p: MapPoint) -> Coordinate {
        let lon = p.x / worldSize * 360 - 180
        let n = .pi - 2 * .pi * p.y / worldSize
        let lat = atan(sinh(n)) * 180 / .pi
        return Coordinate(longitude: lon, latitude: lat)
    }

    /// The side of a tile at zoom z, in map points.
    @inlinable public static func tileSize(zoom: Int) -> Double {
        worldSize / Double(1 << zoom)
    }

    /// The tile at zoom z that holds a position (longitudes wrapped into the world).
    public static func tile(containing c: Coordinate, zoom: Int) -> TileID {
        tile(containing: project(c), zoom: zoom)
    }

    /// The tile at zoom z that holds a map point (x wrapped into the world, y clamped to it).
    public static func tile(containing p: MapPoint, zoom: Int) -> TileID {
        let n = 1 << zoom
        let size = tileSize(zoom: zoom)
        var x = Int((p.x / size).rounded(.down)) % n
        if x < 0 { x += n }
        let y = min(max(Int((p.y / size).rounded(.down)), 0), n - 1)
        return TileID(z: zoom, x: x, y: y)
    }

    /// The map-point rectangle a tile covers, grown by `buffer` units of a tile of `extent` units on every side.
    @inlinable public static func bounds(of tile: TileID, extent: Int, buffer: Int) -> MapRect {
        let size = tileSize(zoom: tile.z)
        let pad = size * Double(buffer) / Double(extent)
        let x0 = Double(tile.x) * size
        let y0 = Double(tile.y) * size
        return MapRect(minX: x0 - pad, minY: y0 - pad, maxX: x0 + size + pad, maxY: y0 + size + pad)
    }
}
