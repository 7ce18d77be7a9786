import RouteTilesModel

/// The tile matrix set whose z/x/y a tile's address names: Web Mercator's (`TileID`, every tile RouteTiles builds and
/// serves under `/tiles`), or OGC's WorldCRS84Quad (`CRS84TileID`: x its column, y its row), cut on demand from live
/// routes for clients that ask for EPSG:4326 (the OGC API's `…/WorldCRS84Quad/…` tiles).
public enum TileGrid: Hashable, Sendable {
    case webMercator
    case worldCRS84Quad

    /// The Web Mercator zoom a tile at zoom `z` of this grid is as wide as: the zoom whose line widths a raster tile
    /// of it is drawn with.
    public func widthZoom(_ z: Int) -> Int {
        self == .webMercator ? z : z + 1
    }
}
