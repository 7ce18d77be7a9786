/// How a server keeps a tile's gzip bytes in its cache: `[UInt8]` here; an HTTP layer may keep them in its own
/// buffer type (RouteTilesServer keeps NIO's `ByteBuffer`, which its responses share without copying).
public protocol TileBytes: Sendable {
    /// The bytes of a tile just generated.
    init(tileBytes: [UInt8])
    /// No bytes: an empty tile.
    static var noTileBytes: Self { get }
    var tileByteCount: Int { get }
    /// A copy of the bytes, to decompress them.
    var tileByteArray: [UInt8] { get }
}

extension Array: TileBytes where Element == UInt8 {
    public init(tileBytes: [UInt8]) { self = tileBytes }
    public static var noTileBytes: [UInt8] { [] }
    public var tileByteCount: Int { count }
    public var tileByteArray: [UInt8] { self }
}
