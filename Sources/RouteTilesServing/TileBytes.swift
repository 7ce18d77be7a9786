/// How a server keeps a tile's gzip bytes in its cache: `[UInt8]` here; an HTTP layer may keep them in its own
/// buffer type (RouteTilesServer keeps NIO's `ByteBuffer`, which its responses share without copying).
public protocol TileBytes: Sendable {
    /// The bytes of a tile just generated.
    init(tileBytes: [UInt8])
    /// No bytes: an empty tile.
    static var noTileBytes: Self { get }
    /// The number of bytes.
    var tileByteCount: Int { get }
    /// A copy of the bytes, to decompress them.
    var tileByteArray: [UInt8] { get }
}

/// A byte array keeps a tile's bytes as they are.
extension Array: TileBytes where Element == UInt8 {
    /// The array itself.
    public init(tileBytes: [UInt8]) { self = tileBytes }
    /// An empty array.
    public static var noTileBytes: [UInt8] { [] }
    /// The array's count.
    public var tileByteCount: Int { count }
    /// The array itself.
    public var tileByteArray: [UInt8] { self }
}
