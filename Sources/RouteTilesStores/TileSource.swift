import RouteTilesBuild
import RouteTilesModel

/// Where finished tiles are read from: a built pyramid or an archive. The server serves any of them, and
/// `convert` copies one into a `TileSink`.
///
/// `tile` is called from many threads at once.
public protocol TileSource: Sendable {
    /// What the tileset says about itself (zooms, bounds, center, vector layers).
    var metadata: TilesetMetadata { get }

    /// The gzip-compressed MVT of a tile, or nil when the tileset has no such tile.
    func gzipTile(_ tile: TileID) throws -> [UInt8]?

    /// Every tile the source holds, in no particular order. For converting and checking archives.
    func tileIDs() throws -> [TileID]
}
