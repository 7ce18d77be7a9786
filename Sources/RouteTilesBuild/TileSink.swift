import RouteTilesModel

/// Where built tiles go: a directory pyramid, an archive, or a test's collector.
///
/// `put` is called from several threads at once, each tile once, in no particular order.
public protocol TileSink: Sendable {
    /// Stores a tile's bytes: its gzip-compressed MVT, or its PNG in a tileset of raster tiles (the format the
    /// metadata gives, `TilesetMetadata.tileFormat`).
    func put(_ tile: TileID, gzipData: [UInt8]) throws
}
