import Foundation
import RouteTilesModel

/// Strong entity tags for tiles: a 64-bit FNV-1a hash of the stored (gzip) bytes, with a suffix per encoding, so
/// the gzip and the identity representation each have their own tag (RFC 9110 §8.8.3).
@usableFromInline
package enum TileHasher {
    /// The tag of the gzip representation; the identity one is the same with `-id` instead of `-gz`.
    package static func etag(_ gzip: [UInt8]) -> String {
        let hex = String(FNV1a.hash(gzip), radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "-gz\""
    }

    @usableFromInline
    package static func identityTag(_ gzipTag: String) -> String {
        gzipTag.replacingOccurrences(of: "-gz\"", with: "-id\"")
    }
}
