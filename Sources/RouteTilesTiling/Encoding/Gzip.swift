import CZlib

/// Compresses byte buffers to gzip (RFC 1952) with one zlib stream kept for the compressor's lifetime.
///
/// `deflateReset` between inputs reuses the stream's window and hash tables instead of allocating them again, which
/// for tile-sized inputs (about 1 KB) is several times faster than a fresh stream. The class is deliberately not
/// `Sendable`: the stream is mutable state, so use one compressor per thread or task.
public final class GzipCompressor {
    /// The zlib stream, at a fixed address: zlib keeps a pointer back to it in its internal state.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Where deflate writes before the output is copied into the result, reused across calls.
    private let chunk: UnsafeMutableBufferPointer<UInt8>
    /// The compression level the stream was created with.
    public let level: Int32

    /// The level RouteTiles writes at unless told otherwise: zlib's own default.
    public static let defaultLevel: Int32 = 6

    /// A compressor with its own zlib stream.
    /// - Parameter level: -1 for zlib's default (6), 0 for no compression, 1 (fastest) to 9 (smallest).
    public init(level: Int32 = GzipCompressor.defaultLevel) throws {
        guard (-1...9).contains(level) else { throw GzipError.invalidLevel(level) }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits 15 + 16: a 32 KB window and a gzip header and trailer instead of zlib's.
        let status = routetiles_deflateInit2(stream, level, 15 + 16)
        guard status == Z_OK else {
            let message = Gzip.message(of: stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw GzipError.zlib(operation: "deflateInit2", code: status, message: message)
        }
        self.stream = stream
        self.level = level
        chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 16 << 10)
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        chunk.deallocate()
    }

    /// The gzip encoding of `input`: a complete member with header, deflate data, CRC-32 and length.
    public func compress(_ input: [UInt8]) throws -> [UInt8] {
        let resetStatus = deflateReset(stream)
        guard resetStatus == Z_OK else {
            throw GzipError.zlib(operation: "deflateReset", code: resetStatus, message: Gzip.message(of: stream))
        }
        defer {
            // Leave no pointer into buffers that are about to go away.
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
        }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 2 + 64)
        try input.withUnsafeBufferPointer { source in
            var offered = 0
            while true {
                // zlib counts input in 32 bits: offer huge inputs in slices.
                if stream.pointee.avail_in == 0, offered < source.count, let base = source.baseAddress {
                    let length = min(source.count - offered, Int(UInt32.max))
                    stream.pointee.next_in = UnsafeMutablePointer(mutating: base + offered)
                    stream.pointee.avail_in = UInt32(length)
                    offered += length
                }
                let flush = offered == source.count ? Z_FINISH : Z_NO_FLUSH
                stream.pointee.next_out = chunk.baseAddress
                stream.pointee.avail_out = UInt32(chunk.count)
                let status = deflate(stream, flush)
                let produced = chunk.count - Int(stream.pointee.avail_out)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<produced]))
                if status == Z_STREAM_END { return }
                // With output space and input (or Z_FINISH) offered, deflate always progresses: anything but Z_OK
                // is a failure, never a reason to spin.
                guard status == Z_OK else {
                    throw GzipError.zlib(operation: "deflate", code: status, message: Gzip.message(of: stream))
                }
            }
        }
        return output
    }
}

/// Gzip helpers: recognising, decompressing and one-off compressing.
public enum Gzip {
    /// True when `bytes` start with the gzip magic number 1f 8b.
    public static func isCompressed(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Compresses with a compressor made for this call; keep a `GzipCompressor` for repeated use.
    public static func compress(_ input: [UInt8], level: Int32 = 6) throws -> [UInt8] {
        try GzipCompressor(level: level).compress(input)
    }

    /// Decompresses gzip data (several members are concatenated) or zlib data, detected from the header.
    ///
    /// - Parameters:
    ///   - bytes: gzip or zlib data.
    ///   - limit: the most bytes the output may have; more throws `GzipError.outputTooLarge`.
    /// - Throws: `GzipError` when the data is truncated, corrupt, followed by other data, or too large.
    public static func decompress(_ bytes: [UInt8], limit: Int = 256 << 20) throws -> [UInt8] {
        guard !bytes.isEmpty else { throw GzipError.truncated }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        // windowBits 15 + 32: any window size, and detect a gzip or zlib header.
        let initStatus = routetiles_inflateInit2(stream, 15 + 32)
        guard initStatus == Z_OK else {
            throw GzipError.zlib(operation: "inflateInit2", code: initStatus, message: message(of: stream))
        }
        defer { inflateEnd(stream) }

        let chunkSize = 32 << 10
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunkSize)
        defer { chunk.deallocate() }
        var output: [UInt8] = []
        output.reserveCapacity(min(max(limit, 0), bytes.count * 4))

        try bytes.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { throw GzipError.truncated }
            var offered = 0
            while true {
                if stream.pointee.avail_in == 0, offered < source.count {
                    let length = min(source.count - offered, Int(UInt32.max))
                    stream.pointee.next_in = UnsafeMutablePointer(mutating: base + offered)
                    stream.pointee.avail_in = UInt32(length)
                    offered += length
                }
                stream.pointee.next_out = chunk.baseAddress
                stream.pointee.avail_out = UInt32(chunkSize)
                let status = inflate(stream, Z_NO_FLUSH)
                let produced = chunkSize - Int(stream.pointee.avail_out)
                guard produced <= limit - output.count else { throw GzipError.outputTooLarge(limit: limit) }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<produced]))

                let consumed = offered - Int(stream.pointee.avail_in)
                switch status {
                case Z_OK:
                    continue // progress was made
                case Z_STREAM_END:
                    if consumed == source.count { return }
                    // Another gzip member may follow (RFC 1952 §2.2); anything else is an error.
                    guard source.count - consumed >= 2, source[consumed] == 0x1F, source[consumed + 1] == 0x8B else {
                        throw GzipError.trailingData(offset: consumed)
                    }
                    let resetStatus = inflateReset(stream)
                    guard resetStatus == Z_OK else {
                        throw GzipError.zlib(operation: "inflateReset", code: resetStatus,
                                             message: message(of: stream))
                    }
                case Z_BUF_ERROR:
                    // No progress was possible: with room for output, that means the input ran out.
                    if consumed == source.count { throw GzipError.truncated }
                    throw GzipError.zlib(operation: "inflate", code: status, message: message(of: stream))
                case Z_DATA_ERROR:
                    throw GzipError.corrupt(message(of: stream))
                case Z_NEED_DICT:
                    throw GzipError.corrupt("the stream needs a preset dictionary")
                default:
                    throw GzipError.zlib(operation: "inflate", code: status, message: message(of: stream))
                }
            }
        }
        return output
    }

    /// zlib's message for the last error on `stream`, or "".
    static func message(of stream: UnsafeMutablePointer<z_stream>) -> String {
        guard let message = stream.pointee.msg else { return "" }
        return String(cString: message)
    }
}
