/// A string that compares and hashes by its UTF-8 bytes.
///
/// Swift's `String` equality follows Unicode canonical equivalence, so "é" and "e\u{301}" are equal as `String`s.
/// A tile stores bytes, so the key and value tables must keep such strings apart.
struct ExactString: Hashable, Sendable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        guard lhs.string.utf8.count == rhs.string.utf8.count else { return false }
        var left = lhs.string
        var right = rhs.string
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in leftBytes.elementsEqual(rightBytes) }
        }
    }

    func hash(into hasher: inout Hasher) {
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
