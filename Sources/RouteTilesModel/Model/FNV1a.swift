/// FNV-1a, 64-bit: a simple hash, quick for short strings and stable across runs, machines and Swift versions
/// (unlike `Hasher`). The one copy in the library: feature ids of string route ids, the layer builders' key and
/// value tables, and the tiles' entity tags (`TileHasher`).
package enum FNV1a {
    package static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// The hash of `bytes`, continuing from `state`.
    @inlinable @inline(__always)
    package static func hash(_ bytes: UnsafeBufferPointer<UInt8>, into state: UInt64 = offsetBasis) -> UInt64 {
        var hash = state
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* prime
        }
        return hash
    }

    /// The hash of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { hash($0) }
    }

    /// The hash of the UTF-8 bytes of `string`.
    package static func hash(_ string: String) -> UInt64 {
        var copy = string
        return copy.withUTF8 { hash($0) }
    }
}
