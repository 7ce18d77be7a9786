import RouteTiles

/// One of `count` parts of a tile set, for running a seed job on many machines (the indexes of a Kubernetes
/// indexed Job): within each zoom the tiles are put in Hilbert order and cut into `count` runs of nearly equal
/// length, part `index` taking run `index`. The parts are disjoint, together whole, and each is compact on the map.
package struct TileShard: Sendable, Equatable {
    package let index: Int
    package let count: Int

    package init(index: Int, count: Int) throws {
        guard count >= 1, (0..<count).contains(index) else {
            throw InputError(file: "--shard", message: "\(index)/\(count): expected i/n with n ≥ 1 and 0 ≤ i < n")
        }
        self.index = index
        self.count = count
    }

    /// Parses "i/n".
    package init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let i = parts[0], let n = parts[1] else {
            throw InputError(file: "--shard", message: "'\(text)' is not i/n (such as 0/4)")
        }
        try self.init(index: i, count: n)
    }

    package static let whole = TileShard(uncheckedIndex: 0, count: 1)

    private init(uncheckedIndex: Int, count: Int) {
        index = uncheckedIndex
        self.count = count
    }

    /// This part of `tiles`, ordered by zoom, then along the Hilbert curve.
    package func select(_ tiles: some Collection<TileID>) -> [TileID] {
        let ordered = Self.ordered(tiles)
        var out: [TileID] = []
        var start = 0
        while start < ordered.count {
            let z = ordered[start].z
            var end = start
            while end < ordered.count && ordered[end].z == z { end += 1 }
            let n = end - start
            out.append(contentsOf: ordered[(start + n * index / count)..<(start + n * (index + 1) / count)])
            start = end
        }
        return out
    }

    /// Tiles by zoom, then by Hilbert index: neighbours on the map stay near each other in the order.
    package static func ordered(_ tiles: some Collection<TileID>) -> [TileID] {
        tiles.map { ($0.pmtilesID, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
