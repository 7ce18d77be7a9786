import Foundation

/// Strong entity tags for tiles: a 64-bit FNV-1a hash of the stored (gzip) bytes, with a suffix per encoding, so
/// the gzip and the identity representation each have their own tag (RFC 9110 §8.8.3).
package enum TileHasher {
    package static func hash(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBufferPointer { buffer in
            for byte in buffer {
                h ^= UInt64(byte)
                h = h &* 0x0000_0100_0000_01b3
            }
        }
        return h
    }

    /// The tag of the gzip representation; the identity one is the same with `-id` instead of `-gz`.
    package static func etag(_ gzip: [UInt8]) -> String {
        let hex = String(hash(gzip), radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "-gz\""
    }

    package static func identityTag(_ gzipTag: String) -> String {
        gzipTag.replacingOccurrences(of: "-gz\"", with: "-id\"")
    }
}
