import RouteTilesGeo
import RouteTilesModel

/// The metadata of a part of a tileset, such as the tiles a seed job wrote for a box, a tile list or one shard.
extension TilesetMetadata {
    /// This metadata narrowed to `tiles`: zooms from the lowest to the highest tile, bounds cut to the area the
    /// tiles cover (at the deepest zoom, where it is tightest), the centre moved inside both. Unchanged when
    /// `tiles` is empty.
    package func restricted(to tiles: some Collection<TileID>) -> TilesetMetadata {
        guard let first = tiles.first else { return self }
        // One pass: the zoom range, and the tile range at the deepest zoom seen so far.
        var lowest = first.z, deepest = first.z
        var minX = first.x, minY = first.y, maxX = first.x, maxY = first.y
        for t in tiles {
            lowest = min(lowest, t.z)
            if t.z > deepest {
                deepest = t.z
                (minX, minY, maxX, maxY) = (t.x, t.y, t.x, t.y)
            } else if t.z == deepest {
                minX = min(minX, t.x); maxX = max(maxX, t.x)
                minY = min(minY, t.y); maxY = max(maxY, t.y)
            }
        }
        let size = WebMercator.worldSize / Double(1 << deepest)
        let northWest = WebMercator.unproject(MapPoint(x: Double(minX) * size, y: Double(minY) * size))
        let southEast = WebMercator.unproject(MapPoint(x: Double(maxX + 1) * size, y: Double(maxY + 1) * size))
        var part = self
        part.minZoom = max(minZoom, lowest)
        part.maxZoom = min(maxZoom, deepest)
        if part.minZoom > part.maxZoom { (part.minZoom, part.maxZoom) = (lowest, deepest) }
        if bounds.count == 4 {
            let west = max(bounds[0], northWest.longitude), east = min(bounds[2], southEast.longitude)
            let south = max(bounds[1], southEast.latitude), north = min(bounds[3], northWest.latitude)
            if west <= east && south <= north {
                part.bounds = [west, south, east, north].map { ($0 * 1e6).rounded() / 1e6 }
            }
        }
        if part.bounds.count == 4 {
            let b = part.bounds
            let inside = center.count == 3 && (b[0]...b[2]).contains(center[0]) && (b[1]...b[3]).contains(center[1])
            let lon = inside ? center[0] : ((b[0] + b[2]) / 2 * 1e6).rounded() / 1e6
            let lat = inside ? center[1] : ((b[1] + b[3]) / 2 * 1e6).rounded() / 1e6
            let zoom = min(max(center.count == 3 ? center[2] : Double(part.minZoom), Double(part.minZoom)), Double(part.maxZoom))
            part.center = [lon, lat, zoom]
        }
        return part
    }
}
