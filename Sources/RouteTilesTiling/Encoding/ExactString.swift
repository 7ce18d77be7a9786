import RouteTilesModel

/// A string that compares and hashes by its UTF-8 bytes.
///
/// Swift's `String` equality follows Unicode canonical equivalence, so "é" and "e\u{301}" are equal as `String`s.
/// A tile stores bytes, so the key and value tables must keep such strings apart.
struct ExactString: Hashable, IndexTableKey, Sendable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        equal(lhs.string, rhs.string)
    }

    /// True when `lhs` and `rhs` have the same UTF-8 bytes.
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        return withBytes(of: lhs) { left in
            withBytes(of: rhs) { right in
                // An indexed loop: the generic `elementsEqual` goes through iterators and is several times slower.
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return false
                }
                return true
            }
        }
    }

    var tableHash: UInt64 {
        Self.withBytes(of: string) { FNV1a.hash($0) }
    }

    func hash(into hasher: inout Hasher) {
        Self.withBytes(of: string) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Calls `body` with the UTF-8 bytes of `string`, without copying them when they are stored contiguously (the
    /// usual case, and the fastest path).
    @inline(__always)
    private static func withBytes<Result>(of string: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result)
        -> Result {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = string
        return copy.withUTF8(body)
    }
}
