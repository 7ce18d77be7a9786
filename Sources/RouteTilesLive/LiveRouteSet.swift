import Foundation
import RouteTilesModel
import RouteTilesRouteStore
import RouteTilesTiling
import Synchronization

/// Routes that change while tiles are being served: added, replaced, removed, or extended point by point.
///
/// Readers take an immutable `Snapshot` (the routes of one generation, one `RouteTiler` each), so a tile is always
/// cut from a whole state, never from a half-applied change. Writers are serialised; each builds the next snapshot
/// aside and swaps it in, and reports the tiles whose content changed: the cover (every zoom, with buffer) of the
/// old and the new geometry of the routes it touched.
///
/// A change rebuilds only the tilers of the routes it touches, and the chunks of `TilerChunk.capacity` routes that
/// hold them; the next snapshot then costs the number of chunks, not the number of routes or their points.
/// Appending points to a route extends its tiler in place of rebuilding it (`RouteTiler.appending`).
public final class LiveRouteSet: Sendable {
    /// How the routes are cut into tiles.
    public let options: TilingOptions
    /// The routes and their covers; only writers touch it, one at a time (the writers' lock).
    private let state: Mutex<RouteTable>
    /// What readers see.
    private let current: Mutex<Snapshot>
    /// `RouteTable.withoutCover`, published by the writers for readers that must not wait on them.
    private let coversPending: Atomic<Int>

    /// Starts with `routes`; a route without an id gets the next free number, which is also its feature id.
    /// `lastFixes` says, by key, when a route's last position arrived (for the position layer's `fix_time`).
    package init(routes: [Route], options: TilingOptions, lastFixes: [String: Double] = [:]) {
        self.options = options
        var state = RouteTable()
        state.nextNumber = routes.reduce(0) { next, route in
            if case let .number(n)? = route.id { return max(next, n &+ 1) }
            return next
        }
        var keyed: [(key: String, route: Route)] = []
        for var route in routes {
            let key = state.assignKey(&route)
            keyed.append((key, route))
        }
        // The tilers are built on every core; covers wait (see `LiveRouteEntry.cover`).
        let tilers = Self.tilers(of: keyed.map(\.route), options: options)
        for ((key, route), tiler) in zip(keyed, tilers) {
            var entry = LiveRouteEntry(route: route, lastFix: LiveRouteEntry.fixTime(of: route, stored: lastFixes[key]),
                                       tiler: tiler)
            entry.place(options: options)
            if let old = state.entries[key] {
                (entry.chunk, entry.slot) = (old.chunk, old.slot)
                state.pointCount -= old.pointCount
            } else {
                state.place(&entry, key: key, options: options)
            }
            state.pointCount += entry.pointCount
            state.store(entry, at: key)
        }
        let snapshot = state.snapshot(options: options, generation: 0)
        coversPending = Atomic(state.withoutCover)
        self.state = Mutex(state)
        current = Mutex(snapshot)
    }

    /// One tiler per route, built in parallel.
    private static func tilers(of routes: [Route], options: TilingOptions) -> [RouteTiler] {
        var built = [RouteTiler?](repeating: nil, count: routes.count)
        // Largest first, so that one long route does not start last.
        let order = routes.indices.sorted { routes[$0].pointCount > routes[$1].pointCount }
        ParallelWork.run(count: order.count, local: { [(Int, RouteTiler)]() }, { made, slot in
            made.append((order[slot], RouteTiler(routes: [routes[order[slot]]], options: options)))
        }, merge: { made in
            for (index, tiler) in made { built[index] = tiler }
        })
        return built.compactMap { $0 }
    }

    /// Finds the covers that start-up left for later, one route at a time while `going()`, holding the writers'
    /// lock only to read a route's tiler and to store its cover. Meant for a background thread: writes that need a
    /// cover not yet found find it themselves. Returns how many covers it found.
    @discardableResult
    package func fillCovers(while going: () -> Bool = { true }) -> Int {
        var found = 0
        for key in keys where going() {
            guard let tiler = state.withLock({ state in state.entries[key].flatMap { $0.cover == nil ? $0.tiler : nil } }) else {
                continue
            }
            let cover = RouteCover(of: tiler)
            state.withLock { state in
                // Only if the route was not changed meanwhile: a new tiler has its own cover.
                if let entry = state.entries[key], entry.cover == nil, entry.tiler === tiler {
                    state.entries[key]?.cover = cover
                    state.withoutCover -= 1
                    coversPending.store(state.withoutCover, ordering: .relaxed)
                    found += 1
                }
            }
        }
        return found
    }

    /// Runs `body` holding the writers' lock, as a write holds it while it applies (tests: what must not wait on
    /// writers answers while they hold it).
    package func holdingWritersLock(_ body: () -> Void) { state.withLock { _ in body() } }

    /// How many routes have no cover yet (for `/health` and tests), read without the writers' lock, so that the
    /// health check never waits on a write.
    package var routesWithoutCover: Int { coversPending.load(ordering: .relaxed) }

    /// The current generation.
    public var snapshot: Snapshot { current.withLock { $0 } }

    /// The key of every route, in feature order.
    public var keys: [String] { state.withLock { $0.order } }

    /// Every route with its key, in feature order, without its positions (`parts` empty; the store keeps them),
    /// and the generation they make up: read at one moment.
    package var keyedRoutesWithoutPositions: (generation: UInt64, routes: [(key: String, route: Route)]) {
        state.withLock { state in
            let routes = state.order.compactMap { key in state.entries[key].map { (key: key, route: $0.header) } }
            // Snapshots are published under this lock, so the generation read here is that of these routes.
            return (current.withLock { $0.generation }, routes)
        }
    }

    /// The route stored under `key`, without its positions (`parts` empty; the store keeps them).
    package func routeWithoutPositions(_ key: String) -> Route? { state.withLock { $0.entries[key]?.header } }

    /// Of the routes stored under `keys`, those that grew past their bound (`TrackRetention.isDue`), with that
    /// bound: one pass under the writers' lock, reading each entry in place (a round of fixes asks for thousands).
    package func routes(among keys: [String], grownPast retention: TrackRetention) -> [(key: String, limit: Int)] {
        state.withLock { state in
            var grown: [(key: String, limit: Int)] = []
            for key in keys {
                guard let slot = state.entries.index(forKey: key) else { continue }
                let count = state.entries.values[slot].pointCount
                guard let limit = retention.limit(for: state.entries.values[slot].header.properties),
                      TrackRetention.isDue(count: count, limit: limit) else { continue }
                grown.append((key, limit))
            }
            return grown
        }
    }

    /// The routes with times that hold a position recorded before `now` (milliseconds since 1970) less their time
    /// bound (`TrackRetention.keepFor(for:)`), and more than the two positions a trim keeps, each with that cutoff:
    /// one pass over every route under the writers' lock, reading its entry in place.
    package func routes(holdingPositionsOlderThan retention: TrackRetention, now: Int64) -> [(key: String, cutoff: Int64)] {
        state.withLock { state in
            var due: [(key: String, cutoff: Int64)] = []
            for (key, entry) in state.entries {
                guard let first = entry.firstTime, entry.pointCount > 2,
                      let bound = retention.keepFor(for: entry.header.properties) else { continue }
                let cutoff = now - min(bound, Int64.max / 2_000) * 1000
                if first < cutoff { due.append((key, cutoff)) }
            }
            return due
        }
    }

    /// The number of positions of the route stored under `key`.
    package func pointCount(of key: String) -> Int? { state.withLock { $0.entries[key]?.pointCount } }

    /// The last fix of the route under `key` as this server holds it: its position, and its time in milliseconds
    /// (the device's, for a route with times); nil when unknown.
    package func lastFix(of key: String) -> (position: Coordinate, time: Int64)? {
        state.withLock { state in
            guard let entry = state.entries[key], let position = entry.lastPosition, let seconds = entry.lastFix else {
                return nil
            }
            return (position, Int64((seconds * 1000).rounded()))
        }
    }

    /// The text form of a route id: the key under which it is stored and addressed (`/routes/{key}`).
    public static func key(for id: RouteID) -> String { StoredRouteCodec.key(for: id) }

    /// Applies edits in order as one change: one new snapshot, and the union of the tiles they invalidate.
    /// Edits of routes that are not there (a remove or an append) do nothing.
    package func apply(_ edits: [Edit]) -> Change {
        let prepared = PreparedPut.prepare(edits, options: options) { puts in
            state.withLock { state in puts.map { state.entries[$0.key]?.mayBeTrimmed(to: $0.route) ?? false } }
        }
        return write { state in
            var keys: [String] = []
            var invalidated = TileInvalidation()
            let plan = AppendPlan.make(for: edits, in: state)
            invalidated.formUnion(plan.changed)
            for (index, edit) in edits.enumerated() {
                switch edit {
                case let .put(route, lastFix):
                    keys.append(state.put(route, lastFix: lastFix, invalidating: &invalidated, options: options,
                                          prepared: prepared[index]))
                case let .remove(key):
                    if state.remove(key, invalidating: &invalidated) { keys.append(key) }
                case let .append(key, points, time, times):
                    guard let run = plan.runs[index] else { continue }  // done by the route's last append
                    if state.append(run.points ?? points, times: run.points == nil ? times : run.times, time: time,
                                    to: key, invalidating: &invalidated, options: options, extended: run.extension) {
                        keys.append(key)
                    }
                }
            }
            return (keys, invalidated)
        }
    }

    private func write(_ body: (inout RouteTable) -> ([String], TileInvalidation)) -> Change {
        write { state -> ([String], TileInvalidation)? in body(&state) } ?? Change(keys: [], invalidated: [], generation: snapshot.generation)
    }

    /// Applies a change and swaps in the next snapshot while still holding the writers' lock, so that snapshots
    /// appear in the order of the changes.
    ///
    /// The snapshot replaced is let go on another thread: when no reader holds it, that frees the tilers the change
    /// replaced (a route's arrays, index and tree), work the writer need not wait for.
    private func write(_ body: (inout RouteTable) -> ([String], TileInvalidation)?) -> Change? {
        let done = state.withLock { state -> (keys: [String], invalidated: TileInvalidation, generation: UInt64, replaced: Snapshot)? in
            guard let (keys, invalidated) = body(&state) else { return nil }
            let generation = current.withLock { $0.generation } + 1
            let next = state.snapshot(options: options, generation: generation)
            let replaced = current.withLock { current in
                defer { current = next }
                return current
            }
            coversPending.store(state.withoutCover, ordering: .relaxed)
            return (keys, invalidated, generation, replaced)
        }
        guard let done else { return nil }
        Self.release.async { withExtendedLifetime(done.replaced) {} }
        // Sorted out of the lock: a long segment's change lists thousands of tiles.
        return Change(keys: done.keys, invalidated: TileID.sorted(done.invalidated.tiles), generation: done.generation,
                      subtrees: TileID.sorted(done.invalidated.subtrees))
    }

    /// Where replaced snapshots are let go.
    private static let release = DispatchQueue(label: "RouteTiles.LiveRouteSet.release", qos: .utility)
}
