import RouteTilesGeo

/// The on-demand tiler's index: runs of up to `runLength` consecutive segments, each with its bounding box, in a
/// packed Hilbert R-tree (`PackedBoxTree`). Answers "which segments may touch this rectangle" in logarithmic time
/// plus the size of the answer, whatever the size of the whole route set.
///
/// A live track grows by appends. Rebuilding the tree over every run for each append would cost the length of the
/// route, so the runs an append adds go into a second, small tree (`recent`), which the next appends rebuild.
/// Once the recent runs are a quarter of the others, or `recentLimit`, both are indexed again as one (`base`). An
/// append costs its new runs plus the recent tree (at most `recentLimit` boxes), and one append in at least
/// `recentLimit` runs re-indexes the route. Queries read both trees and merge their answers in route order.
///
/// Built once, read-only afterwards (safe to share between threads).
struct SegmentIndex: Sendable {
    static let runLength = 32
    /// The most runs the recent tree holds before it is folded into the base: rebuilding it on every append costs at
    /// most this many boxes, and a fold (the whole route) comes once in this many appended runs at least.
    static let recentLimit = 1024

    /// Runs with their boxes and their tree. Runs are in route, line, shift and segment order.
    struct Level: Sendable {
        let runs: [SegmentSpan]
        /// The box of each run, shifted by its world copy.
        let runBoxes: [MapRect]
        let tree: PackedBoxTree

        init(runs: [SegmentSpan], runBoxes: [MapRect]) {
            self.runs = runs
            self.runBoxes = runBoxes
            tree = PackedBoxTree(runBoxes)
        }
    }

    let base: Level
    /// Runs added by appends since `base` was built; they follow `base`'s runs of their line and world copy.
    let recent: Level?

    init(spans: [SegmentSpan], set: ProjectedRouteSet) {
        let (runs, boxes) = Self.runs(of: spans, in: set)
        base = Level(runs: runs, runBoxes: boxes)
        recent = nil
    }

    private init(base: Level, recent: Level?) {
        self.base = base
        self.recent = recent
    }

    /// The index with `spans` added: segments appended to the set's last line, each after every indexed segment of
    /// its world copy.
    func appending(_ spans: [SegmentSpan], set: ProjectedRouteSet) -> SegmentIndex {
        let added = Self.runs(of: spans, in: set)
        guard !added.runs.isEmpty else { return self }
        // The added runs follow the recent ones of their world copy, but not those of later copies: merge.
        var recentRuns = recent.map { Self.merged($0.runs, $0.runBoxes, added.runs, added.boxes) } ?? added
        // A fix adds a run of one segment: joined to the run before it, the recent tree holds a run per
        // `runLength` appended segments, not one per append.
        Self.joinShortRuns(&recentRuns.runs, &recentRuns.boxes)
        if recentRuns.runs.count <= min(base.runs.count / 4, Self.recentLimit) {
            return SegmentIndex(base: base, recent: Level(runs: recentRuns.runs, runBoxes: recentRuns.boxes))
        }
        // Fold: one level over all runs.
        let all = Self.merged(base.runs, base.runBoxes, recentRuns.runs, recentRuns.boxes)
        return SegmentIndex(base: Level(runs: all.runs, runBoxes: all.boxes), recent: nil)
    }

    /// Two lists of runs (each in route order) with their boxes, merged in route order.
    private static func merged(_ a: [SegmentSpan], _ aBoxes: [MapRect], _ b: [SegmentSpan], _ bBoxes: [MapRect])
        -> (runs: [SegmentSpan], boxes: [MapRect])
    {
        var runs: [SegmentSpan] = [], boxes: [MapRect] = []
        runs.reserveCapacity(a.count + b.count)
        boxes.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && precedes(a[i], b[j])) {
                runs.append(a[i])
                boxes.append(aBoxes[i])
                i += 1
            } else {
                runs.append(b[j])
                boxes.append(bBoxes[j])
                j += 1
            }
        }
        return (runs, boxes)
    }

    /// Joins each run to the one before it when both are of one line and world copy, the second goes on where the
    /// first ends, and together they hold at most `runLength` segments (their box is the union of theirs).
    private static func joinShortRuns(_ runs: inout [SegmentSpan], _ boxes: inout [MapRect]) {
        guard runs.count > 1 else { return }
        var kept = 0
        for k in 1..<runs.count {
            let last = runs[kept], next = runs[k]
            if next.line == last.line, next.shift == last.shift, next.first == last.end,
               next.end - last.first <= Int32(runLength) {
                runs[kept] = SegmentSpan(line: last.line, shift: last.shift, first: last.first, end: next.end)
                boxes[kept].formUnion(boxes[k])
            } else {
                kept += 1
                runs[kept] = next
                boxes[kept] = boxes[k]
            }
        }
        runs.removeLast(runs.count - kept - 1)
        boxes.removeLast(boxes.count - kept - 1)
    }

    /// `spans` cut into runs of at most `runLength` segments, with their boxes.
    private static func runs(of spans: [SegmentSpan], in set: ProjectedRouteSet)
        -> (runs: [SegmentSpan], boxes: [MapRect])
    {
        var runs: [SegmentSpan] = []
        var boxes: [MapRect] = []
        for span in spans {
            var first = span.first
            while first < span.end {
                let end = min(span.end, first + Int32(runLength))
                runs.append(SegmentSpan(line: span.line, shift: span.shift, first: first, end: end))
                var box = MapRect.empty
                for v in Int(first)...Int(end) { box.formUnion(set.point(v)) }
                boxes.append(box.offsetBy(dx: Double(span.shift) * WebMercator.worldSize))
                first = end
            }
        }
        return (runs, boxes)
    }

    static func precedes(_ a: SegmentSpan, _ b: SegmentSpan) -> Bool {
        (a.line, a.shift, a.first) < (b.line, b.shift, b.first)
    }

    /// The union of every run's box.
    var bounds: MapRect {
        guard let recent else { return base.tree.bounds }
        var bounds = base.tree.bounds
        bounds.formUnion(recent.tree.bounds)
        return bounds
    }

    /// Every run, in route order.
    var allRuns: [SegmentSpan] {
        guard let recent else { return base.runs }
        return (base.runs + recent.runs).sorted(by: Self.precedes)
    }

    /// The runs whose box meets `query`, in route order.
    func runs(meeting query: MapRect) -> [SegmentSpan] {
        let found = base.tree.search(query).map { base.runs[$0] }
        guard let recent else { return found }
        let more = recent.tree.search(query).map { recent.runs[$0] }
        guard !more.isEmpty else { return found }
        return (found + more).sorted(by: Self.precedes)
    }
}
