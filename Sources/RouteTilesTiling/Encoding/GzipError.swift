/// A failure to gzip or gunzip bytes.
public enum GzipError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A compression level outside -1...9.
    case invalidLevel(Int32)
    /// zlib refused an operation that should not fail (out of memory, internal state error).
    case zlib(operation: String, code: Int32, message: String)
    /// The compressed data ends before its stream does.
    case truncated
    /// The compressed data is not valid gzip or zlib data: a bad header, checksum or block.
    case corrupt(String)
    /// Bytes that are not another gzip member follow the end of the compressed stream, at this offset.
    case trailingData(offset: Int)
    /// Decompressing would produce more than this many bytes.
    case outputTooLarge(limit: Int)

    /// A sentence that says what failed.
    public var description: String {
        switch self {
        case let .invalidLevel(level):
            return "invalid gzip compression level \(level); expected -1 (default) or 0...9"
        case let .zlib(operation, code, message):
            return "zlib \(operation) failed with code \(code)\(message.isEmpty ? "" : ": \(message)")"
        case .truncated:
            return "compressed data is truncated"
        case let .corrupt(message):
            return "compressed data is corrupt: \(message)"
        case let .trailingData(offset):
            return "unexpected data after the end of the compressed stream at byte \(offset)"
        case let .outputTooLarge(limit):
            return "decompressed data exceeds the limit of \(limit) bytes"
        }
    }
}
