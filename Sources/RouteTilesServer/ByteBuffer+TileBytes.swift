import NIOCore
import RouteTiles

/// The cache keeps tiles in NIO's buffers, which every response shares without copying.
extension ByteBuffer: TileBytes {
    public init(tileBytes: [UInt8]) { self.init(bytes: tileBytes) }
    public static var noTileBytes: ByteBuffer { ByteBuffer() }
    public var tileByteCount: Int { readableBytes }
    public var tileByteArray: [UInt8] { Array(readableBytesView) }
}
