import RouteTilesModel
import RouteTilesTiling

/// A route's tiler extended by an append, and the tiles that changed (`RouteTiler.tilesChanged`): the part of
/// an append that reads only the route itself.
struct AppendExtension: Sendable {
    let tiler: RouteTiler
    let tiles: AppendedTiles

    init?(_ old: RouteTiler, joint: Coordinate?, points: [Coordinate], times: [Double]? = nil) {
        guard !points.isEmpty, let joint, let tiler = old.appending(points, times: times, after: joint) else { return nil }
        self.tiler = tiler
        tiles = tiler.tilesChanged(byAppendingTo: old)
    }
}

/// How `apply` carries out the appends of a batch: by index in `edits`, the appends it makes; an append
/// without a run (or an edit of another kind) is nil, done by a later one.
struct AppendPlan {
    struct Run {
        /// All the points that a route's appends in the batch add, in order, when there are more than this
        /// edit's own, and their times (seconds since 1970) for a route with times.
        var points: [Coordinate]?
        var times: [Double]?
        /// The route's tiler extended by them, when worked out ahead.
        var `extension`: AppendExtension?
    }
    var runs: [Run?]
    /// The tiles the extensions worked out ahead changed, together (each worker's union, so the writer does not
    /// insert every extension's tiles one by one).
    var changed = TileInvalidation()
}

extension AppendPlan {
    /// The appends of `edits`, planned. A route that only appends in the batch (no put or remove of it) is extended
    /// once, by all its points, at its last append: readers see only the snapshot after the whole batch, so the
    /// tiles that changed are those between the route before and after it, and the steps between are never cut.
    /// When there are enough such routes to share (a batch of fixes, or a round of group commit), their extensions
    /// are worked out on every core before the edits are applied one by one.
    static func make(for edits: [LiveRouteSet.Edit], in table: RouteTable) -> AppendPlan {
        var plan = AppendPlan(runs: Array(repeating: nil, count: edits.count))
        // The index of each key's last append, and the keys that another kind of edit touches too.
        var lastAppend: [String: Int] = [:]
        lastAppend.reserveCapacity(edits.count)
        var rewritten = Set<String>()
        for (index, edit) in edits.enumerated() {
            switch edit {
            case let .put(route, _): if let id = route.id { rewritten.insert(LiveRouteSet.key(for: id)) }
            case let .remove(key): rewritten.insert(key)
            case let .append(key, _, _, _): lastAppend[key] = index
            }
        }
        // The points of a key's appends before its last, in order: only keys appended to more than once have some.
        var earlier: [String: (points: [Coordinate], times: [Double]?)] = [:]
        var work: [(index: Int, tiler: RouteTiler, joint: Coordinate?, points: [Coordinate], times: [Double]?)] = []
        work.reserveCapacity(lastAppend.count)
        for (index, edit) in edits.enumerated() {
            guard case let .append(key, points, _, times) = edit else { continue }
            guard !rewritten.contains(key) else {
                plan.runs[index] = AppendPlan.Run()    // the route is put or removed too: each edit in turn
                continue
            }
            guard index == lastAppend[key] else {
                if var before = earlier[key] {
                    before.points += points
                    before.times = before.times.flatMap { all in times.map { all + $0 } }
                    earlier[key] = before
                } else {
                    earlier[key] = (points, times)
                }
                continue
            }
            var run = AppendPlan.Run()
            if let before = earlier.removeValue(forKey: key) {
                run.points = before.points + points
                run.times = before.times.flatMap { all in times.map { all + $0 } }
            }
            plan.runs[index] = run
            // The two fields, read in place: a copy of the whole entry (its cover's set and more) costs more.
            guard let slot = table.entries.index(forKey: key) else { continue }
            work.append((index, table.entries.values[slot].tiler, table.entries.values[slot].lastPosition,
                         run.points ?? points, run.points == nil ? times : run.times))
        }
        guard ParallelWork.cores > 1, work.count >= 16 else { return plan }
        var extensions: [(Int, AppendExtension)] = []
        var changed = TileInvalidation()
        ParallelWork.run(count: work.count, local: { ([(Int, AppendExtension)](), TileInvalidation()) }, { found, slot in
            let item = work[slot]
            guard let extended = AppendExtension(item.tiler, joint: item.joint, points: item.points, times: item.times)
            else { return }
            found.1.formUnion(extended.tiles)
            found.0.append((item.index, extended))
        }, merge: { found in
            extensions += found.0
            changed.formUnion(found.1)
        })
        for (index, extension_) in extensions { plan.runs[index]?.extension = extension_ }
        plan.changed = changed
        return plan
    }
}
