import Testing
import RouteTiles
import RouteTilesCoreTestSupport

/// The packed Hilbert R-tree (`PackedBoxTree`) answers like a scan of every box.
@Suite struct PackedBoxTreeTests {
    /// The indexes of the boxes that meet `query`, by looking at every one.
    static func scan(_ boxes: [MapRect], _ query: MapRect) -> [Int] {
        boxes.indices.filter { boxes[$0].intersects(query) }
    }

    /// A random box in 0...1000: often small, sometimes large, sometimes a point or a line.
    static func randomBox(using rng: inout SeededGenerator) -> MapRect {
        let x = Double.random(in: 0...1000, using: &rng), y = Double.random(in: 0...1000, using: &rng)
        let width: Double, height: Double
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: (width, height) = (0, 0)
        case 1: (width, height) = (0, .random(in: 0...50, using: &rng))
        case 2: (width, height) = (.random(in: 0...50, using: &rng), 0)
        case 3: (width, height) = (.random(in: 0...600, using: &rng), .random(in: 0...600, using: &rng))
        default: (width, height) = (.random(in: 0...20, using: &rng), .random(in: 0...20, using: &rng))
        }
        return MapRect(minX: x, minY: y, maxX: x + width, maxY: y + height)
    }

    /// For sizes from one box to several levels of nodes, around the node size, every query (random, a point, the
    /// whole area, one of the boxes itself, or beyond all of them) gives what a scan gives, in ascending order.
    @Test(arguments: [1, 2, 15, 16, 17, 255, 256, 257, 1000, 4097])
    func searchEqualsAScan(count: Int) {
        var rng = SeededGenerator(seed: UInt64(count))
        let boxes = (0..<count).map { _ in Self.randomBox(using: &rng) }
        let tree = PackedBoxTree(boxes)
        var queries = (0..<150).map { _ in Self.randomBox(using: &rng) }
        queries.append(MapRect(minX: -10, minY: -10, maxX: 2000, maxY: 2000))
        queries.append(MapRect(minX: 3000, minY: 3000, maxX: 3100, maxY: 3100))
        queries += boxes.prefix(20)
        var found = 0
        for query in queries {
            let answer = tree.search(query)
            #expect(answer == Self.scan(boxes, query), "\(count) boxes, query \(query)")
            found += answer.count
        }
        #expect(found > 0)
        var union = MapRect.empty
        for box in boxes { union.formUnion(box) }
        #expect(tree.bounds == union)
    }

    /// A refitted tree (some boxes moved, grown or shrunk, rounds after rounds, as live tracks do) answers every
    /// query like a scan of the boxes as they are now, and its bounds are their union.
    @Test(arguments: [1, 16, 17, 256, 1000])
    func refittingEqualsAScan(count: Int) {
        var rng = SeededGenerator(seed: UInt64(count) &+ 77)
        var boxes = (0..<count).map { _ in Self.randomBox(using: &rng) }
        var tree = PackedBoxTree(boxes)
        for round in 0..<8 {
            // A few boxes change, some of them twice in the same round, in no particular order.
            let changed = (0..<Int.random(in: 1...max(1, count / 4), using: &rng)).map { _ in Int.random(in: 0..<count, using: &rng) }
            for i in changed {
                var grown = boxes[i]
                grown.formUnion(Self.randomBox(using: &rng))
                boxes[i] = round % 3 == 0 ? Self.randomBox(using: &rng) : grown
            }
            tree = tree.refitting(changed) { boxes[$0] }
            for query in (0..<60).map({ _ in Self.randomBox(using: &rng) }) + boxes.prefix(10) {
                #expect(tree.search(query) == Self.scan(boxes, query), "\(count) boxes, round \(round), query \(query)")
            }
            var union = MapRect.empty
            for box in boxes { union.formUnion(box) }
            #expect(tree.bounds == union, "\(count) boxes, round \(round)")
        }
    }

    /// An empty tree finds nothing, and has empty bounds.
    @Test func anEmptyTreeFindsNothing() {
        let tree = PackedBoxTree([])
        #expect(tree.search(MapRect(minX: -1e9, minY: -1e9, maxX: 1e9, maxY: 1e9)).isEmpty)
        #expect(tree.bounds.isEmpty)
    }

    /// Boxes that only touch the query, on an edge or at a corner, are found; boxes a hair beyond it are not.
    @Test func touchingCountsAsMeeting() {
        let boxes = [MapRect(minX: 0, minY: 0, maxX: 10, maxY: 10),          // touches its top-left corner
                     MapRect(minX: 20, minY: 20, maxX: 30, maxY: 30),        // touches its bottom-right corner
                     MapRect(minX: 5, minY: 5, maxX: 5, maxY: 5),            // a point outside it
                     MapRect(minX: 20.000001, minY: 0, maxX: 25, maxY: 15),  // just beyond its right edge
                     MapRect(minX: 12, minY: 0, maxX: 18, maxY: 10)]         // shares part of its top edge
        let tree = PackedBoxTree(boxes)
        let query = MapRect(minX: 10, minY: 10, maxX: 20, maxY: 20)
        #expect(tree.search(query) == [0, 1, 4])
        #expect(tree.search(MapRect(minX: 5, minY: 5, maxX: 5, maxY: 5)) == [0, 2])
    }

    /// Many copies of one box, and boxes that all share one centre (one Hilbert key), are all found.
    @Test func duplicateBoxesAreAllFound() {
        let same = [MapRect](repeating: MapRect(minX: 1, minY: 1, maxX: 2, maxY: 2), count: 300)
        #expect(PackedBoxTree(same).search(MapRect(minX: 2, minY: 2, maxX: 3, maxY: 3)) == Array(0..<300))
        let nested = (0..<100).map { k in MapRect(minX: -Double(k), minY: -Double(k), maxX: Double(k), maxY: Double(k)) }
        let tree = PackedBoxTree(nested)
        #expect(tree.search(MapRect(minX: 50, minY: 0, maxX: 60, maxY: 0)) == Array(50..<100))
    }
}
