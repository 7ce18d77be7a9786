import RouteTilesModel
import RouteTilesRouteStore
import RouteTilesTiling

/// The edits of a `LiveRouteSet`, made under its writers' lock: each changes the table in place and adds the tiles
/// whose content changed to `invalidated`.
extension RouteTable {
    mutating func put(_ route: Route, lastFix: Double?, invalidating invalidated: inout TileInvalidation,
                      options: TilingOptions, prepared: PreparedPut? = nil) -> String {
        let lastFix = LiveRouteEntry.fixTime(of: route, stored: lastFix)
        var route = route
        let key = assignKey(&route)
        if trim(key, to: route, lastFix: lastFix, invalidating: &invalidated, options: options, tiler: prepared?.tiler) {
            return key
        }
        var entry: LiveRouteEntry
        if let prepared {
            entry = LiveRouteEntry(route: route, lastFix: lastFix, tiler: prepared.tiler)
            entry.cover = prepared.cover ?? RouteCover(of: prepared.tiler)
        } else {
            entry = LiveRouteEntry(route: route, lastFix: lastFix, options: options)
        }
        entry.place(options: options)
        if let old = entries[key] {
            invalidated.formUnion(old.knownCover)
            (entry.chunk, entry.slot) = (old.chunk, old.slot)
            pointCount -= old.pointCount
            chunks.rebuild(old.chunk)
        } else {
            place(&entry, key: key, options: options)
        }
        invalidated.formUnion(entry.knownCover)
        pointCount += entry.pointCount
        store(entry, at: key)
        return key
    }

    /// Puts `route` in place of the route under `key` when it is that route without some leading positions, its
    /// simplification blocks where they were (`RouteTiler.tilesChanged(byTrimming:)`: a bounded track's trim, by
    /// count or by time), at the cost of the dropped segments and the block the cut falls in: only the tiles they
    /// were drawn in are invalidated, and the cover loses those the route no longer draws in, where
    /// a put would cut the route's whole cover at every zoom, old and new. False, changing nothing, otherwise.
    private mutating func trim(_ key: String, to route: Route, lastFix: Double?,
                               invalidating invalidated: inout TileInvalidation, options: TilingOptions,
                               tiler prepared: RouteTiler? = nil) -> Bool {
        guard route.kind == .line, route.parts.count == 1, let index = entries.index(forKey: key) else { return false }
        var header = route
        header.parts = []
        header.times = nil
        let drawn = entries.values.withEntry(at: index) { entry -> (chunk: Int, slot: Int, tiler: RouteTiler, position: LivePosition?, dropped: Int)? in
            // Cheap signs first, so that a put which is no trim does not build its tiler twice.
            guard entry.mayBeTrimmed(to: route) else { return nil }
            let tiler = prepared ?? RouteTiler(routes: [route], options: options)
            guard let trim = tiler.tilesChanged(byTrimming: entry.tiler) else { return nil }
            invalidated.tiles.formUnion(trim.changed)
            if !trim.left.isEmpty {
                for tile in trim.left { entry.cover?.tiles.remove(tile) }
                entry.lastDrawn.removeAll { trim.left.contains($0) }
            }
            let dropped = entry.pointCount - route.pointCount
            entry.header = header
            entry.tiler = tiler
            entry.pointCount = route.pointCount
            entry.firstTime = route.times?.first
            entry.lastFix = lastFix
            entry.previousFix = LiveRouteEntry.previousFixTime(of: route)
            entry.place(options: options)
            return (entry.chunk, entry.slot, tiler, entry.position, dropped)
        }
        guard let drawn else { return false }
        pointCount -= drawn.dropped
        chunks.draw(drawn.tiler, position: drawn.position, chunk: drawn.chunk, slot: drawn.slot, refit: true)
        return true
    }

    mutating func remove(_ key: String, invalidating invalidated: inout TileInvalidation) -> Bool {
        guard let old = discard(key) else { return false }
        unplace(chunk: old.chunk, slot: old.slot)
        pointCount -= old.pointCount
        invalidated.formUnion(old.knownCover)
        return true
    }

    mutating func append(_ points: [Coordinate], times: [Double]? = nil, time: Double?, to key: String,
                         invalidating invalidated: inout TileInvalidation, options: TilingOptions,
                         extended planned: AppendExtension? = nil) -> Bool {
        guard let index = entries.index(forKey: key) else { return false }
        // Changed where it is in the table (its cover's set is extended in place, not copied), and drawn anew in its
        // chunk's slot; whether it has a cover does not change.
        let drawn = entries.values.withEntry(at: index) { entry -> (chunk: Int, slot: Int, tiler: RouteTiler, position: LivePosition?)? in
            guard let extended = planned ?? AppendExtension(entry.tiler, joint: entry.lastPosition, points: points,
                                                            times: times),
                  let joint = entry.lastPosition else { return nil }
            // An extension worked out ahead has its tiles in the plan's union already.
            if planned == nil { invalidated.formUnion(extended.tiles) }
            // A value of the whole route in every feature (`length_m`, line metrics) changes every tile of it.
            if options.routeLength || options.lineMetrics { invalidated.formUnion(entry.knownCover) }
            entry.tiler = extended.tiler
            entry.previousPosition = points.count >= 2 ? points[points.count - 2] : joint
            entry.lastPosition = points.last
            // For a route with times, the previous fix's time: the one before the last of these, or the last before.
            if let times {
                entry.previousFix = times.count >= 2 ? times[times.count - 2] : entry.lastFix
            }
            entry.lastFix = time
            entry.place(options: options)
            entry.pointCount += points.count
            // A cover not found yet stays so: when it is found, from the extended tiler, it holds the new tiles too.
            // An append then costs its new segments, not a cut of the whole route at every zoom.
            entry.coverGrows(by: extended.tiles)
            return (entry.chunk, entry.slot, entry.tiler, entry.position)
        }
        guard let drawn else { return true }
        pointCount += points.count
        chunks.draw(drawn.tiler, position: drawn.position, chunk: drawn.chunk, slot: drawn.slot, refit: true)
        return true
    }
}

extension Dictionary.Values {
    /// Runs `body` on the value at `index`, in place: a value that holds arrays or sets is changed without a copy.
    fileprivate mutating func withEntry<R>(at index: Dictionary.Index, _ body: (inout Value) -> R) -> R {
        body(&self[index])
    }
}
