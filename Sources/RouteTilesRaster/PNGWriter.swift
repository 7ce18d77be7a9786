import CZlib

/// Writes a cairo image surface's pixels as a PNG (8-bit RGBA, straight alpha, no interlace) through the system
/// zlib, instead of cairo's own writer (libpng at its defaults).
///
/// Why: libpng tries every row filter on every row and deflates at zlib's default level, which took most of a raster
/// tile's time (BENCHMARKS.md, "Raster tiles"). A route tile is mostly transparent pixels (zeros) and a few lines,
/// which deflate finds as repeats without any filter: over 300 tiles of generated routes, rows unfiltered at level 4
/// came to 3.3 KB a tile in 1.7 ms of zlib, where the `Up`, `Sub` and `Paeth` filters gave 5.0–5.2 KB at level 6 in
/// 2.1 ms, and libpng's adaptive choice about 4.3 KB.
struct PNGWriter {
    /// zlib's level for the image data: level 4 is a quarter smaller than level 3, as fast as 5 and 6 are not.
    static let level: Int32 = 4

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The PNG of `size` × `size` pixels of cairo's ARGB32 format (a native-endian 32-bit word per pixel, alpha in
    /// the high byte, premultiplied), rows `stride` bytes apart from `data`.
    static func png(argb data: UnsafeRawPointer, stride: Int, size: Int) throws(RasterError) -> [UInt8] {
        let rowBytes = size * 4
        // Each row: its filter byte (0, none), then its pixels as RGBA.
        var rows = [UInt8](repeating: 0, count: size * (rowBytes + 1))
        rows.withUnsafeMutableBufferPointer { out in
            for y in 0..<size {
                let words = (data + y * stride).assumingMemoryBound(to: UInt32.self)
                let start = y * (rowBytes + 1) + 1
                for x in 0..<size {
                    let word = words[x]
                    let a = word >> 24
                    guard a > 0 else { continue }  // transparent: the zeros the row starts with
                    let at = start + x * 4
                    if a == 255 {
                        out[at] = UInt8(truncatingIfNeeded: word >> 16)
                        out[at + 1] = UInt8(truncatingIfNeeded: word >> 8)
                        out[at + 2] = UInt8(truncatingIfNeeded: word)
                    } else {
                        // Un-premultiplied, rounded to the nearest, as cairo's own writer does.
                        let half = a / 2
                        out[at] = UInt8(min(255, (((word >> 16) & 0xFF) * 255 + half) / a))
                        out[at + 1] = UInt8(min(255, (((word >> 8) & 0xFF) * 255 + half) / a))
                        out[at + 2] = UInt8(min(255, ((word & 0xFF) * 255 + half) / a))
                    }
                    out[at + 3] = UInt8(a)
                }
            }
        }
        let compressed = try deflate(rows)
        var png = signature
        png.reserveCapacity(signature.count + 25 + compressed.count + 12 + 12)
        var header = [UInt8]()
        header.reserveCapacity(13)
        appendBigEndian(UInt32(size), to: &header)
        appendBigEndian(UInt32(size), to: &header)
        header += [8, 6, 0, 0, 0]  // 8 bits, RGBA, deflate, the standard filter method, no interlace
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", compressed, to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// `bytes` as one zlib stream (RFC 1950), as IDAT holds it.
    private static func deflate(_ bytes: [UInt8]) throws(RasterError) -> [UInt8] {
        var bound = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(bound))
        let status = out.withUnsafeMutableBufferPointer { destination in
            bytes.withUnsafeBufferPointer { source in
                compress2(destination.baseAddress, &bound, source.baseAddress, uLong(source.count), level)
            }
        }
        guard status == Z_OK else { throw RasterError("zlib did not compress the image (status \(status))") }
        out.removeSubrange(Int(bound)...)
        return out
    }

    private static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
                  UInt8(truncatingIfNeeded: value)]
    }

    /// A chunk: its length, type, data and the CRC-32 of type and data (zlib's `crc32`).
    private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        appendBigEndian(UInt32(data.count), to: &png)
        png += typeBytes
        png += data
        var crc = typeBytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        appendBigEndian(UInt32(truncatingIfNeeded: crc), to: &png)
    }
}
