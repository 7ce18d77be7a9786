import RouteTilesModel

/// Where built tiles go: a directory pyramid, an archive, or a test's collector.
///
/// `put` is called from several threads at once, each tile once, in no particular order.
public protocol TileSink: Sendable {
    /// Stores the gzip-compressed MVT of a tile.
    func put(_ tile: TileID, gzipData: [UInt8]) throws
}
