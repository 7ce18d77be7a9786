import RouteTiles
@_spi(Columns) @testable import RouteTilesModel
@_spi(Columns) import RouteTilesGeo
import Testing
import RouteTilesCoreTestSupport

/// `SharedColumn`: views of successive snapshots share storage, and no append changes what an older view reads.
@Suite struct SharedColumnTests {
    @Test func appendsToTheNewestViewShareStorageAndLeaveOlderViewsAlone() {
        let a = SharedColumn<Double>([1, 2, 3])
        var b = a
        b.append(contentsOf: [4, 5])
        #expect(Array(a) == [1, 2, 3] && Array(b) == [1, 2, 3, 4, 5])
        #expect(b.sharesStorage(with: a))
        // An older view appending would overwrite b's values: it copies instead.
        var c = a
        c.append(9)
        #expect(Array(c) == [1, 2, 3, 9] && Array(b) == [1, 2, 3, 4, 5] && Array(a) == [1, 2, 3])
        #expect(!c.sharesStorage(with: a))
        // Past the capacity, storage moves; the old views keep theirs.
        var d = b
        d.append(contentsOf: (0..<1_000).map(Double.init))
        #expect(d.count == 1_005 && Array(d.prefix(5)) == [1, 2, 3, 4, 5] && Array(b) == [1, 2, 3, 4, 5])
    }

    /// Property: any sequence of appends to any views gives every view the values an array would hold.
    @Test func randomAppendsToRandomViewsMatchArrays() {
        var rng = SeededGenerator(seed: 31)
        for _ in 0..<50 {
            var views: [SharedColumn<Int>] = [SharedColumn()]
            var models: [[Int]] = [[]]
            for step in 0..<60 {
                let from = Bool.random(using: &rng) ? views.count - 1 : Int.random(in: 0..<views.count, using: &rng)
                let added = (0..<Int.random(in: 0...40, using: &rng)).map { step * 100 + $0 }
                var view = views[from], model = models[from]
                view.append(contentsOf: added)
                model.append(contentsOf: added)
                views.append(view)
                models.append(model)
            }
            for (view, model) in zip(views, models) {
                #expect(Array(view) == model)
                #expect(view.withUnsafeBufferPointer { Array($0) } == model)
            }
        }
    }

    /// Readers of an older view, on other threads, see the same values while a writer keeps appending to the
    /// newest view of the same storage.
    @Test func readersOfOlderViewsAreUndisturbedByAppends() async {
        let old = SharedColumn<Double>((0..<10_000).map(Double.init))
        let expected = old.reduce(0, +)
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<200 where old.withUnsafeBufferPointer({ $0.reduce(0, +) }) != expected { return false }
                    return true
                }
            }
            group.addTask {
                var newest = old
                for round in 0..<2_000 { newest.append(contentsOf: repeatElement(Double(round), count: 50)) }
                return newest.count == 10_000 + 2_000 * 50 && old.count == 10_000
            }
            for await fine in group { #expect(fine) }
        }
    }
}
