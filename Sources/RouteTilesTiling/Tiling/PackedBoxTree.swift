import RouteTilesGeo

/// A packed Hilbert R-tree over a fixed list of boxes: answers "which boxes meet this rectangle" in logarithmic
/// time plus the size of the answer.
///
/// Built once, read-only afterwards (safe to share between threads). The leaves are the boxes sorted along a
/// Hilbert curve of their centres, so that each node covers a compact area; `nodeSize` children per node.
package struct PackedBoxTree: Sendable {
    static let nodeSize = 16

    /// Node boxes, leaves first (in Hilbert order), then each level above; the root is last.
    private var boxes: [MapRect]
    /// For a leaf slot, the index of its box in the input; for an inner node, the slot of its first child.
    private let pointers: [Int32]
    /// Where each level starts in `boxes`, leaves at 0, plus the total count at the end.
    private let levelStarts: [Int]

    package init(_ input: [MapRect]) {
        var total = MapRect.empty
        for b in input { total.formUnion(b) }
        let width = max(total.maxX - total.minX, 1), height = max(total.maxY - total.minY, 1)
        let keys: [UInt64] = input.map { b in
            let cx = ((b.minX + b.maxX) / 2 - total.minX) / width * 65535
            let cy = ((b.minY + b.maxY) / 2 - total.minY) / height * 65535
            return Self.hilbert(UInt32(max(0, min(65535, cx))), UInt32(max(0, min(65535, cy))))
        }
        let order = input.indices.sorted { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }
        var boxes = order.map { input[$0] }
        var pointers = order.map { Int32($0) }
        var levelStarts = [0]
        var levelStart = 0, levelCount = boxes.count
        while levelCount > 1 {
            let nextStart = boxes.count
            var child = levelStart
            while child < levelStart + levelCount {
                let stop = min(child + Self.nodeSize, levelStart + levelCount)
                var box = MapRect.empty
                for c in child..<stop { box.formUnion(boxes[c]) }
                boxes.append(box)
                pointers.append(Int32(child))
                child = stop
            }
            levelStarts.append(nextStart)
            levelStart = nextStart
            levelCount = boxes.count - nextStart
        }
        levelStarts.append(boxes.count)
        self.boxes = boxes
        self.pointers = pointers
        self.levelStarts = levelStarts
    }

    /// The same tree with the boxes of the inputs `changed` set to `box(input)`, and their ancestors' boxes made
    /// again from their children: the shape (the Hilbert order of the boxes when built) stays. For boxes that move a
    /// little (a live track growing), searches stay as fast; after large moves, build a new tree.
    package func refitting(_ changed: [Int], box: (Int) -> MapRect) -> PackedBoxTree {
        guard !changed.isEmpty, !boxes.isEmpty else { return self }
        var copy = self
        let leaves = levelStarts[1]
        var touched: [Int] = []
        touched.reserveCapacity(changed.count)
        for input in changed {
            // The leaf that holds this input: a scan of the leaves, fewer than a chunk's worth of comparisons.
            guard let slot = copy.pointers[0..<leaves].firstIndex(of: Int32(input)) else { continue }
            copy.boxes[slot] = box(input)
            touched.append(slot)
        }
        // Level by level, each parent of a touched node again from its children.
        for level in 0..<(levelStarts.count - 2) {
            let start = levelStarts[level], parentStart = levelStarts[level + 1]
            var parents: [Int] = []
            touched.sort()
            for slot in touched {
                let parent = parentStart + (slot - start) / Self.nodeSize
                if parents.last != parent { parents.append(parent) }
            }
            for parent in parents {
                let first = Int(copy.pointers[parent]), stop = min(first + Self.nodeSize, parentStart)
                var union = MapRect.empty
                for child in first..<stop { union.formUnion(copy.boxes[child]) }
                copy.boxes[parent] = union
            }
            touched = parents
        }
        return copy
    }

    /// The union of all boxes (empty when there are none).
    package var bounds: MapRect { boxes.last ?? .empty }

    /// The input indexes of the boxes that meet `query`, in ascending order.
    package func search(_ query: MapRect) -> [Int] {
        guard !boxes.isEmpty else { return [] }
        var found: [Int] = []
        let levels = levelStarts.count - 1
        // (slot, level) pairs still to visit; start at the root.
        var stack: [(Int, Int)] = [(boxes.count - 1, levels - 1)]
        while let (slot, level) = stack.popLast() {
            guard boxes[slot].intersects(query) else { continue }
            if level == 0 {
                found.append(Int(pointers[slot]))
                continue
            }
            let first = Int(pointers[slot])
            let stop = min(first + Self.nodeSize, levelStarts[level])
            for child in first..<stop { stack.append((child, level - 1)) }
        }
        found.sort()
        return found
    }

    /// The position of (x, y) along a Hilbert curve over a 2^16 × 2^16 grid.
    static func hilbert(_ px: UInt32, _ py: UInt32) -> UInt64 {
        var x = px, y = py, d: UInt64 = 0
        var s: UInt32 = 1 << 15
        while s > 0 {
            let rx: UInt32 = (x & s) > 0 ? 1 : 0
            let ry: UInt32 = (y & s) > 0 ? 1 : 0
            d += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
            if ry == 0 {
                if rx == 1 {
                    x = s &- 1 &- x
                    y = s &- 1 &- y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }
}
