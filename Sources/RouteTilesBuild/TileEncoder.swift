import RouteTilesModel
import RouteTilesTiling

/// What turns a tile's plain MVT bytes into the bytes a tileset stores: gzip for vector tiles, or a drawing for
/// raster ones (`PNGTileEncoder` in RouteTilesRaster). Each of a build's workers has one, made for it by the
/// builder's `TileEncoding`, so an encoder may keep buffers between tiles.
public protocol TileEncoder {
    /// The stored bytes of tile `tile`, whose vector tile is `mvt` (never empty).
    mutating func encode(_ tile: TileID, mvt: [UInt8]) throws -> [UInt8]
}

/// The tile format a build writes and how each worker makes its encoder.
public struct TileEncoding: Sendable {
    /// What the encoders' bytes are.
    public var format: TileFormat
    /// Makes one worker's encoder.
    public var makeEncoder: @Sendable () throws -> any TileEncoder

    public init(format: TileFormat, makeEncoder: @escaping @Sendable () throws -> any TileEncoder) {
        self.format = format
        self.makeEncoder = makeEncoder
    }

    /// Gzip-compressed vector tiles at `level` (see ``GzipCompressor/init(level:)``).
    public static func gzip(level: Int32 = GzipCompressor.defaultLevel) -> TileEncoding {
        TileEncoding(format: .mvt) { GzipTileEncoder(compressor: try GzipCompressor(level: level)) }
    }
}

/// Vector tiles, gzip-compressed.
struct GzipTileEncoder: TileEncoder {
    let compressor: GzipCompressor

    func encode(_ tile: TileID, mvt: [UInt8]) throws -> [UInt8] {
        try compressor.compress(mvt)
    }
}
