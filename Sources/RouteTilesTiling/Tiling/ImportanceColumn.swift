@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

/// The Douglas–Peucker importance of every vertex of a route set (see `VertexImportance`), shared between the
/// snapshots of a growing route.
///
/// Importance is computed in blocks of `VertexImportance.blockLength` vertices per line, and an append to the last
/// line recomputes only that line's last block and the new ones. So the values before the start of that last block
/// never change again: they live in a `SharedColumn` (`settled`), which appends share. The last block's values,
/// which the next append rewrites (its last piece, or all of it once complete), are the view's own (`open`, at
/// most a block plus the points of one append).
struct ImportanceColumn: Sendable {
    let settled: SharedColumn<Double>
    let open: [Double]

    /// The importance of every vertex of `set`, computed in place in one column (in the spill space, when one is
    /// current) and split where the last line's last block starts.
    init(computing set: ProjectedRouteSet, floor: Double) {
        var values = SharedColumn<Double>(repeating: 0, count: set.pointCount)
        values.withUnsafeMutableBufferPointer { VertexImportance.compute(into: $0, set: set, floor: floor) }
        let split = Self.lastBlockStart(set)
        settled = values.prefix(count: split)
        open = Array(values[split...])
    }

    private init(settled: SharedColumn<Double>, open: [Double]) {
        self.settled = settled
        self.open = open
    }

    /// Where the block holding the set's last vertex starts (0 for an empty set): nothing before it is recomputed
    /// when the last line grows.
    static func lastBlockStart(_ set: ProjectedRouteSet) -> Int {
        guard set.lineCount > 0, set.pointCount > 0 else { return 0 }
        let line = set.lineCount - 1, length = VertexImportance.blockLength
        let first = set.lineStarts[line], last = set.pointCount - 1
        let origin = set.blockOrigin(ofLine: line, blockLength: length)
        return Swift.max(first, origin + (last - origin) / length * length)
    }

    /// The column for `set`, this column's set with points appended to its last line: from the old last block's
    /// last piece on (the whole block, when the append completes it) the values are computed afresh, and the blocks
    /// completed join the shared values.
    func appending(for set: ProjectedRouteSet, floor: Double) -> ImportanceColumn {
        let base = settled.count
        var fresh = open
        fresh.append(contentsOf: repeatElement(0, count: set.pointCount - base - open.count))
        fresh.withUnsafeMutableBufferPointer { out in
            VertexImportance.update(out, base: base, set: set, line: set.lineCount - 1,
                                    from: base + Swift.max(open.count - 1, 0), floor: floor)
        }
        let split = Self.lastBlockStart(set) - base
        // Most appends complete no block: the fresh values are the open block as they are.
        guard split > 0 else { return ImportanceColumn(settled: settled, open: fresh) }
        var settled = self.settled
        settled.append(contentsOf: fresh[..<split])
        return ImportanceColumn(settled: settled, open: Array(fresh[split...]))
    }
}

extension ImportanceColumn: RandomAccessCollection {
    var startIndex: Int { 0 }
    var endIndex: Int { settled.count + open.count }

    subscript(position: Int) -> Double {
        position < settled.count ? settled[position] : open[position - settled.count]
    }
}
