/// A pattern of route ids from a JWT's `write` claim: `*` stands for any run of characters (none included), every
/// other character for itself. `veh-17` names one route, `acme-*` every id that starts with `acme-`, `*` all.
public struct RouteIDPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let description: String
    /// The literal runs between the stars.
    private let pieces: [[UInt8]]
    /// Whether the pattern starts (and ends) with a star, so that the first (last) piece may start (end) anywhere.
    private let openStart: Bool
    private let openEnd: Bool

    public init(_ pattern: String) {
        description = pattern
        let utf8 = Array(pattern.utf8)
        pieces = utf8.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false).map(Array.init)
        openStart = utf8.first == UInt8(ascii: "*")
        openEnd = utf8.last == UInt8(ascii: "*")
    }

    /// Whether the pattern matches every id.
    public var matchesAll: Bool { pieces.allSatisfy(\.isEmpty) && openStart }

    /// Whether `id` matches the whole pattern.
    public func matches(_ id: some StringProtocol) -> Bool {
        let id = Array(id.utf8)
        // No star: the id itself.
        guard pieces.count > 1 else { return id == pieces[0] }
        let first = pieces[0], last = pieces[pieces.count - 1]
        guard id.count >= first.count + last.count, id.starts(with: first), id.suffix(last.count).elementsEqual(last)
        else { return false }
        // The middle pieces, each at its first place after the one before: the greedy match is right for stars.
        var at = first.count
        let end = id.count - last.count
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = Self.find(piece, in: id, from: at, to: end) else { return false }
            at = found + piece.count
        }
        return true
    }

    private static func find(_ piece: [UInt8], in id: [UInt8], from start: Int, to end: Int) -> Int? {
        guard end - start >= piece.count else { return nil }
        for candidate in start...(end - piece.count) where id[candidate..<(candidate + piece.count)].elementsEqual(piece) {
            return candidate
        }
        return nil
    }
}
