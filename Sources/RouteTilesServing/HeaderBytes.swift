/// Header text read in place, as the raw bytes of a request head: the ASCII comparisons and trimming that the
/// cached-tile fast path (`RequestHeadScanner`, `GzipAcceptance`) needs without building strings.
extension Slice where Base == UnsafeRawBufferPointer {
    /// Whether the bytes are `word` (given in lowercase), ignoring ASCII case.
    @inlinable
    package func equalsIgnoringCase(_ word: StaticString) -> Bool {
        guard count == word.utf8CodeUnitCount else { return false }
        let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        return zip(self, letters).allSatisfy { HeaderBytes.lowercased($0) == $1 }
    }

    /// Whether `word` (given in lowercase) occurs in the bytes, ignoring ASCII case.
    @inlinable
    package func containsIgnoringCase(_ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        var start = startIndex
        while start + length <= endIndex {
            if self[start..<(start + length)].equalsIgnoringCase(word) { return true }
            start += 1
        }
        return false
    }

    /// The bytes without leading and trailing spaces and tabs (HTTP's optional whitespace).
    @inlinable
    package func trimmingWhitespace() -> Self {
        var bytes = self
        while let first = bytes.first, HeaderBytes.isWhitespace(first) { bytes.removeFirst() }
        while let last = bytes.last, HeaderBytes.isWhitespace(last) { bytes.removeLast() }
        return bytes
    }
}

@usableFromInline
package enum HeaderBytes {
    @inlinable
    package static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    @inlinable
    package static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }
}
