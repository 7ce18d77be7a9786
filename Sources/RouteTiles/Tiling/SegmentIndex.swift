/// The on-demand tiler's index: runs of up to `runLength` consecutive segments, each with its bounding box, in a
/// packed Hilbert R-tree (`PackedBoxTree`). Answers "which segments may touch this rectangle" in logarithmic time
/// plus the size of the answer, whatever the size of the whole route set.
///
/// Built once, read-only afterwards (safe to share between threads).
struct SegmentIndex: Sendable {
    static let runLength = 32

    /// The runs, in route, line, shift and segment order.
    let runs: [SegmentSpan]
    /// The box of each run, shifted by its world copy.
    let runBoxes: [MapRect]
    private let tree: PackedBoxTree

    init(spans: [SegmentSpan], set: ProjectedRouteSet) {
        self.init(spans: spans, set: set, reusing: nil)
    }

    /// Indexes `spans`. Runs of `old` that lie before vertex `old.validBefore` of their line and appear unchanged
    /// in the new runs keep their boxes, so that extending a line costs only its new runs' points (plus the tree).
    init(spans: [SegmentSpan], set: ProjectedRouteSet, reusing old: (index: SegmentIndex, validBefore: Int32)?) {
        var runs: [SegmentSpan] = []
        var runBoxes: [MapRect] = []
        var oldCursor = 0
        for span in spans {
            var first = span.first
            while first < span.end {
                let end = min(span.end, first + Int32(Self.runLength))
                let run = SegmentSpan(line: span.line, shift: span.shift, first: first, end: end)
                runs.append(run)
                if let reused = old.flatMap({ Self.box(of: run, in: $0.index, before: $0.validBefore, cursor: &oldCursor) }) {
                    runBoxes.append(reused)
                } else {
                    var box = MapRect.empty
                    for v in Int(first)...Int(end) { box.formUnion(set.point(v)) }
                    runBoxes.append(box.offsetBy(dx: Double(span.shift) * WebMercator.worldSize))
                }
                first = end
            }
        }
        self.runs = runs
        self.runBoxes = runBoxes
        tree = PackedBoxTree(runBoxes)
    }

    /// The box `old` has for `run`, when it holds the same run and the run ends before `validBefore`. Runs come in
    /// the same order in both, so a cursor that only moves forward finds them.
    private static func box(of run: SegmentSpan, in old: SegmentIndex, before validBefore: Int32,
                            cursor: inout Int) -> MapRect? {
        guard run.end < validBefore else { return nil }
        while cursor < old.runs.count, Self.precedes(old.runs[cursor], run) { cursor += 1 }
        guard cursor < old.runs.count, old.runs[cursor] == run else { return nil }
        return old.runBoxes[cursor]
    }

    private static func precedes(_ a: SegmentSpan, _ b: SegmentSpan) -> Bool {
        (a.line, a.shift, a.first) < (b.line, b.shift, b.first)
    }

    /// The union of every run's box.
    var bounds: MapRect { tree.bounds }

    /// The indexes of the runs whose box meets `query`, in ascending order (so in route order).
    func runs(meeting query: MapRect) -> [Int] { tree.search(query) }
}
