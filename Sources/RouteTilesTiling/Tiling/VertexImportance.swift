@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel

/// Douglas–Peucker importance of every vertex, computed once per line so that simplifying a tile at any zoom is a
/// linear filter: a vertex is kept at squared tolerance t when its importance exceeds t.
///
/// A vertex's importance is its squared distance from the chord it split, capped by the importance of the vertex
/// whose split made that chord. With the cap, the vertices kept at tolerance t are exactly those Douglas–Peucker
/// keeps at t. Recursion stops below `floor` (the smallest tolerance any zoom will ask for), so detail finer than
/// the deepest simplified zoom costs nothing; such vertices get importance 0.
///
/// Lines are simplified in blocks of `blockLength` vertices: every `blockLength`-th vertex of a line, and its two
/// ends, get +∞ (always kept), and Douglas–Peucker runs within each block. A vertex's importance therefore depends
/// only on its own block, so a line extended at its end (a live track) recomputes its last block and the new ones,
/// never the whole line. The cost is one kept vertex per 256 points at every zoom: a block of 256 makes an append's
/// simplification a few thousand distance tests, where 4,096 made a fleet server spend a third of its time there.
///
/// A line trimmed at its start by retention (`RouteInfo.trimmed`) counts its blocks from where its first vertex was
/// before the trim, so its first block is a partial one and every later block keeps its vertices and importance.
///
/// A line's last block, while it holds fewer than `blockLength` segments (the open block, which a live track's
/// appends extend), runs in pieces of `pieceLength` vertices, each with its ends kept, the same way. An append then
/// recomputes the open block's last piece (and the pieces it adds), not the whole open block; once the block is
/// complete it is simplified whole, and its pieces' ends are kept no more. Over a cycle of 256 one-position
/// appends that is about a tenth of the distance tests of recomputing the open block each time. The price is a
/// kept vertex per 32 points of each line's last block, at most 7 a line.
enum VertexImportance {
    static let blockLength = 256
    /// The length of the pieces of a line's open (last, incomplete) block.
    static let pieceLength = 32

    static func compute(into out: UnsafeMutableBufferPointer<Double>, set: ProjectedRouteSet, floor: Double) {
        var stack: [(first: Int, last: Int, cap: Double)] = []
        for line in 0..<set.lineCount {
            update(out, base: 0, set: set, line: line, from: set.lineStarts[line], floor: floor, stack: &stack)
        }
    }

    /// Recomputes the importance of `line` from the block holding vertex `vertex` to the line's end, after points
    /// were added to the line. `out[0]` is vertex `base`, which is at most the start of that block. When that block
    /// is still open, its pieces before the one holding `vertex` are not recomputed: `out` holds their values.
    static func update(_ out: UnsafeMutableBufferPointer<Double>, base: Int, set: ProjectedRouteSet, line: Int,
                       from vertex: Int, floor: Double) {
        // Room for the chords of a piece or two, grown only for a deep block: one allocation an append.
        var stack: [(first: Int, last: Int, cap: Double)] = []
        stack.reserveCapacity(2 * pieceLength)
        update(out, base: base, set: set, line: line, from: vertex, floor: floor, stack: &stack)
    }

    private static func update(_ values: UnsafeMutableBufferPointer<Double>, base: Int, set: ProjectedRouteSet,
                               line: Int, from vertex: Int, floor: Double,
                               stack: inout [(first: Int, last: Int, cap: Double)]) {
        let first = set.lineStarts[line], last = set.lineStarts[line + 1] - 1
        guard last > first else { return }
        // Blocks are counted from the line's grid origin (before its first vertex when the line was trimmed), so
        // the first block may be a partial one.
        let origin = set.blockOrigin(ofLine: line, blockLength: blockLength)
        var gridStart = origin + (vertex - origin) / blockLength * blockLength
        var blockStart = max(gridStart, first)
        precondition(blockStart >= base && last - base < values.count, "importance buffer does not cover the line")
        set.xs.withUnsafeBufferPointer { xs in
            set.ys.withUnsafeBufferPointer { ys in
                /// Douglas–Peucker from vertex `start` to vertex `end`, both kept.
                func simplify(_ start: Int, _ end: Int) {
                    values[start - base] = .infinity
                    values[end - base] = .infinity
                    for i in (start + 1)..<end { values[i - base] = 0 }
                    stack.append((start, end, .infinity))
                    while let (a, b, cap) = stack.popLast() {
                        guard b - a > 1 else { continue }
                        var best = -1.0, index = a
                        let ax = xs[a], ay = ys[a], bx = xs[b], by = ys[b]
                        let dx = bx - ax, dy = by - ay, length = dx * dx + dy * dy
                        // One division per chord, not per vertex: the loop is the whole cost of an append's
                        // simplification.
                        let inverse = length > 0 ? 1 / length : 0
                        for i in (a + 1)..<b {
                            let d = squaredSegmentDistance(xs[i], ys[i], ax, ay, dx, dy, inverseLength: inverse)
                            if d > best { best = d; index = i }
                        }
                        guard best > floor else { continue }
                        let value = min(best, cap)
                        values[index - base] = value
                        stack.append((a, index, value))
                        stack.append((index, b, value))
                    }
                }
                while blockStart < last {
                    let blockEnd = min(gridStart + blockLength, last)
                    if blockEnd == gridStart + blockLength {
                        simplify(blockStart, blockEnd)
                    } else {
                        // The open block, in pieces: those before the one holding `vertex` are as they were.
                        var pieceStart = blockStart + max(0, vertex - blockStart) / pieceLength * pieceLength
                        while pieceStart < blockEnd {
                            let pieceEnd = min(pieceStart + pieceLength, blockEnd)
                            simplify(pieceStart, pieceEnd)
                            pieceStart = pieceEnd
                        }
                    }
                    blockStart = blockEnd
                    gridStart += blockLength
                }
            }
        }
    }

    /// Squared distance from (px, py) to the segment from (ax, ay) by (dx, dy), whose squared length's inverse is
    /// `inverseLength` (0 for a segment of no length).
    @inline(__always)
    static func squaredSegmentDistance(_ px: Double, _ py: Double, _ ax: Double, _ ay: Double,
                                       _ dx: Double, _ dy: Double, inverseLength: Double) -> Double {
        var x = ax, y = ay
        let t = ((px - ax) * dx + (py - ay) * dy) * inverseLength
        if t > 1 {
            x += dx; y += dy
        } else if t > 0 {
            x += dx * t; y += dy * t
        }
        let ex = px - x, ey = py - y
        return ex * ex + ey * ey
    }
}
