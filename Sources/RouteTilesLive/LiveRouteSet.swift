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
    /// One generation of the routes, ready to cut tiles.
    public struct Snapshot: Sendable {
        package let tilers: RouteTilerSet
        /// The generation this snapshot shows; every change makes a greater one.
        public let generation: UInt64
        /// The number of routes in the snapshot.
        public let routeCount: Int
        /// The number of projected vertices of all the routes.
        public let pointCount: Int

        /// The uncompressed MVT of one tile, or nil when no route has a feature in it; `TileAddressError` when z/x/y
        /// names no tile.
        public func tile(z: Int, x: Int, y: Int) throws(TileAddressError) -> [UInt8]? {
            try tilers.tile(z: z, x: x, y: y)
        }
    }

    /// What a change did.
    public struct Change: Sendable {
        /// The keys of the routes it added, replaced, extended or removed.
        public var keys: [String]
        /// The tiles whose content changed, sorted.
        public var invalidated: [TileID]
        /// The generation it produced.
        public var generation: UInt64
        /// Tiles under which every tile, down to the greatest zoom, counts as changed too, sorted: an append whose
        /// new segments are drawn in more tiles than `TilingOptions.appendTileLimit` lists them only down to a zoom.
        /// Usually empty.
        public var subtrees: [TileID] = []

        /// Takes in the tiles and subtrees of `other`, a change applied with this one.
        mutating func formUnion(tilesOf other: Change) {
            invalidated = TileID.sorted(Set(invalidated).union(other.invalidated))
            if !other.subtrees.isEmpty { subtrees = TileID.sorted(Set(subtrees).union(other.subtrees)) }
        }
    }

    /// A route as the set holds it: its tiler (the positions projected), and the route as read but for its
    /// positions, which its store keeps (`RouteStore.rows`): holding them here too would double the memory of
    /// every position.
    private struct Entry: Sendable {
        /// The route without its positions (`parts` empty).
        var header: Route
        /// The last position of its last part, where an append joins, and the one before it (for the bearing).
        var lastPosition: Coordinate?
        var previousPosition: Coordinate?
        /// When the last position arrived (Unix seconds), if the store recorded it (`StoredRoute.lastFix`).
        var lastFix: Double?
        var pointCount: Int
        var tiler: RouteTiler
        /// The index of the chunk (`State.chunkKeys`) that holds the route, and its index in that chunk.
        var chunk = 0
        var slot = 0
        /// Nil until first needed, or until `fillCovers` reaches it: a set loaded at start-up answers tiles at once
        /// and finds its covers (every tile of every route) afterwards.
        var cover: RouteCover?
        /// The tiles the last append drew in, when a few, all in `cover` (when there is one): the next fix's segment
        /// starts where that one ended and is mostly drawn in the same tiles, which need not be looked up in the
        /// set again.
        var lastDrawn: [TileID] = []

        init(route: Route, lastFix: Double?, options: TilingOptions) {
            self.init(route: route, lastFix: lastFix, tiler: RouteTiler(routes: [route], options: options))
            cover = RouteCover(of: tiler)
        }

        /// Whether `route` may be this route less whole leading blocks (a bounded track's trim): the cheap signs of
        /// `LiveRouteSet.trim`, read before a tiler of `route` is built.
        func mayBeTrimmed(to route: Route) -> Bool {
            route.kind == .line && route.parts.count == 1 && pointCount > route.pointCount
                && route.parts.last?.last == lastPosition && !route.geodesic
                && (pointCount - route.pointCount) % TrackRetention.blockStep == 0
        }

        init(route: Route, lastFix: Double?, tiler: RouteTiler) {
            header = route
            header.parts = []
            lastPosition = route.parts.last?.last
            previousPosition = route.parts.last.flatMap { $0.count >= 2 ? $0[$0.count - 2] : nil }
            self.lastFix = lastFix
            pointCount = route.pointCount
            self.tiler = tiler
            cover = nil
        }

        /// Adds to the cover the tiles an append drew in. A fix's few tiles are compared with those the append
        /// before drew in (a few dozen, mostly the same), and only the new ones are hashed into the cover; a long
        /// segment's tiles are added to the cover's set as they come, in time proportional to their number.
        mutating func coverGrows(by appended: AppendedTiles) {
            guard cover != nil else { return }
            let drawn = appended.drawn
            if drawn.count <= Self.fewTiles && lastDrawn.count <= Self.fewTiles {
                for tile in drawn where !lastDrawn.contains(tile) { cover?.tiles.insert(tile) }
            } else {
                cover?.tiles.formUnion(drawn)
            }
            if !appended.subtrees.isEmpty { cover?.subtrees.formUnion(appended.subtrees) }
            lastDrawn = drawn.count <= Self.fewTiles ? drawn : []
        }

        /// The most tiles `lastDrawn` keeps: two lists of this length are compared pairwise.
        static let fewTiles = 64

        /// The route's point in the position layer, kept as the route changes (`place(options:)`), so that a
        /// chunk rebuilt for another route's change does not work it out again.
        var position: LivePosition?

        /// Sets `position` from the route as it is now, when the options name a position layer.
        mutating func place(options: TilingOptions) {
            position = options.positionLayer == nil ? nil : currentPosition(options: options)
        }

        /// The route's point in the position layer: line routes only.
        private func currentPosition(options: TilingOptions) -> LivePosition? {
            guard header.kind == .line, let last = lastPosition,
                  let id = tiler.projected.routeInfos.first?.featureID else { return nil }
            return LivePosition(featureID: id, last: last, previous: previousPosition, time: lastFix, options: options)
        }

        /// The cover, found now if it was not yet.
        var knownCover: RouteCover { cover ?? RouteCover(of: tiler) }
    }

    private struct State: Sendable {
        /// The keys of the routes in feature order, in chunks of at most `TilerChunk.capacity`.
        var chunkKeys: [[String]] = []
        /// Beside each key of `chunkKeys`, what its route draws: its tiler, and its point in the position layer.
        var chunkTilers: [[RouteTiler]] = []
        var chunkPositions: [[LivePosition?]] = []
        /// The built chunk of each `chunkKeys` entry; those in `rebuilt` or `moved` are stale until the next snapshot.
        var chunks: [TilerChunk] = []
        /// Chunks whose routes came, went or were replaced: built anew for the next snapshot.
        var rebuilt: Set<Int> = []
        /// The set the last snapshot holds, which the next one replaces (`RouteTilerSet.init(chunks:options:previous:)`).
        var previous: RouteTilerSet?
        /// Chunks where appends alone changed routes, with those routes' slots: their layers stay, their tree is
        /// refitted (`TilerChunk.init(_:positions:refitting:slots:)`).
        var moved: [Int: [Int]] = [:]
        var entries: [String: Entry] = [:]
        var nextNumber: UInt64 = 0
        /// The positions of all the routes.
        var pointCount = 0

        /// How many entries have no cover yet, kept by `store`, `discard` and `coverFound`, so that `/health` does
        /// not walk every route under the writers' lock.
        var withoutCover = 0

        /// Keeps `entry` under `key`, and what it draws in its chunk's slot.
        mutating func store(_ entry: Entry, at key: String) {
            if let old = entries.updateValue(entry, forKey: key), old.cover == nil { withoutCover -= 1 }
            if entry.cover == nil { withoutCover += 1 }
            chunkTilers[entry.chunk][entry.slot] = entry.tiler
            chunkPositions[entry.chunk][entry.slot] = entry.position
        }

        /// Takes the entry under `key` out of the table, if any (its slot still draws it until `store` or
        /// `unplace`).
        mutating func discard(_ key: String) -> Entry? {
            let entry = entries.removeValue(forKey: key)
            if let entry, entry.cover == nil { withoutCover -= 1 }
            return entry
        }

        /// Every key, in feature order.
        var order: [String] { chunkKeys.flatMap { $0 } }

        /// Puts `entry` at the end of the feature order, setting its chunk and slot.
        mutating func place(_ entry: inout Entry, key: String, options: TilingOptions) {
            if chunkKeys.isEmpty || chunkKeys[chunkKeys.count - 1].count >= TilerChunk.capacity {
                chunkKeys.append([])
                chunkTilers.append([])
                chunkPositions.append([])
                chunks.append(TilerChunk([], options: options))
            }
            let chunk = chunkKeys.count - 1
            entry.chunk = chunk
            entry.slot = chunkKeys[chunk].count
            chunkKeys[chunk].append(key)
            chunkTilers[chunk].append(entry.tiler)
            chunkPositions[chunk].append(entry.position)
            rebuilt.insert(chunk)
        }

        /// Takes the route in `chunk`'s `slot` out of the feature order. Chunks emptied by removals are packed
        /// again once they are most of the chunks (a pass over every key, rare enough to cost a constant per
        /// removal).
        mutating func unplace(chunk: Int, slot: Int) {
            chunkKeys[chunk].remove(at: slot)
            chunkTilers[chunk].remove(at: slot)
            chunkPositions[chunk].remove(at: slot)
            for key in chunkKeys[chunk][slot...] { entries[key]?.slot -= 1 }
            rebuilt.insert(chunk)
            if chunkKeys.count > 8 && entries.count < chunkKeys.count * TilerChunk.capacity / 4 { repack() }
        }

        /// Chunks full again, in the same feature order.
        mutating func repack() {
            let keys = order
            let tilers = chunkTilers.flatMap { $0 }, positions = chunkPositions.flatMap { $0 }
            let starts = stride(from: 0, to: keys.count, by: TilerChunk.capacity)
            let size = TilerChunk.capacity
            chunkKeys = starts.map { Array(keys[$0..<min($0 + size, keys.count)]) }
            chunkTilers = starts.map { Array(tilers[$0..<min($0 + size, tilers.count)]) }
            chunkPositions = starts.map { Array(positions[$0..<min($0 + size, positions.count)]) }
            for (c, chunk) in chunkKeys.enumerated() {
                for (slot, key) in chunk.enumerated() {
                    entries[key]?.chunk = c
                    entries[key]?.slot = slot
                }
            }
            chunks = chunks.prefix(chunkKeys.count).map { $0 }
            rebuilt = Set(chunkKeys.indices)
            moved = [:]
        }

        /// Builds the chunks that changed, then the set of all chunks.
        mutating func tilerSet(options: TilingOptions) -> RouteTilerSet {
            for c in rebuilt {
                chunks[c] = TilerChunk(chunkTilers[c], positions: chunkPositions[c], options: options)
            }
            for (c, slots) in moved where !rebuilt.contains(c) {
                chunks[c] = TilerChunk(chunkTilers[c], positions: chunkPositions[c], refitting: chunks[c], slots: slots)
            }
            rebuilt = []
            moved = [:]
            let set = RouteTilerSet(chunks: chunks, options: options, previous: previous)
            previous = set
            return set
        }
    }

    /// How the routes are cut into tiles.
    public let options: TilingOptions
    /// The routes and their covers; only writers touch it, one at a time.
    private let state: Mutex<State>
    /// What readers see.
    private let current: Mutex<Snapshot>
    /// `State.withoutCover`, published by the writers for readers that must not wait on them.
    private let coversPending: Atomic<Int>

    /// Starts with `routes`; a route without an id gets the next free number, which is also its feature id.
    /// `lastFixes` says, by key, when a route's last position arrived (for the position layer's `fix_time`).
    public init(routes: [Route], options: TilingOptions, lastFixes: [String: Double] = [:]) {
        self.options = options
        var state = State()
        state.nextNumber = routes.reduce(0) { next, route in
            if case let .number(n)? = route.id { return max(next, n &+ 1) }
            return next
        }
        var keyed: [(key: String, route: Route)] = []
        for var route in routes {
            let key = Self.assignKey(&route, state: &state)
            keyed.append((key, route))
        }
        // The tilers are built on every core; covers wait (see `Entry.cover`).
        let tilers = Self.tilers(of: keyed.map(\.route), options: options)
        for ((key, route), tiler) in zip(keyed, tilers) {
            var entry = Entry(route: route, lastFix: lastFixes[key], tiler: tiler)
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
        let snapshot = Self.snapshot(of: &state, options: options, generation: 0)
        coversPending = Atomic(state.withoutCover)
        self.state = Mutex(state)
        current = Mutex(snapshot)
    }

    /// One tiler per route, built in parallel.
    private static func tilers(of routes: [Route], options: TilingOptions) -> [RouteTiler] {
        let built = Mutex<[Int: RouteTiler]>([:])
        // Largest first, so that one long route does not start last.
        let order = routes.indices.sorted { routes[$0].pointCount > routes[$1].pointCount }
        let next = Atomic<Int>(0)
        let workers = min(Self.cores, max(routes.count, 1))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let slot = next.add(1, ordering: .relaxed).oldValue
                guard slot < order.count else { return }
                let index = order[slot]
                let tiler = RouteTiler(routes: [routes[index]], options: options)
                built.withLock { $0[index] = tiler }
            }
        }
        let all = built.withLock { $0 }
        return routes.indices.compactMap { all[$0] }
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

    /// The number of positions of the route stored under `key`.
    package func pointCount(of key: String) -> Int? { state.withLock { $0.entries[key]?.pointCount } }

    /// The text form of a route id: the key under which it is stored and addressed (`/routes/{key}`).
    public static func key(for id: RouteID) -> String { StoredRouteCodec.key(for: id) }

    /// One edit of a batch (`apply(_:)`).
    public enum Edit: Sendable {
        /// Adds the route, or replaces the one stored under its key; a route without an id gets the next number.
        /// `lastFix` is when its last position arrived, if known.
        case put(Route, lastFix: Double? = nil)
        /// Removes the route stored under `key`, if any.
        case remove(key: String)
        /// Extends the last part of the route stored under `key`, if any; `time` is when the points arrived.
        case append(key: String, points: [Coordinate], time: Double? = nil)
    }

    /// Applies edits in order as one change: one new snapshot, and the union of the tiles they invalidate.
    /// Edits of routes that are not there (a remove or an append) do nothing.
    public func apply(_ edits: [Edit]) -> Change {
        let prepared = prepare(edits)
        return write { state in
            var keys: [String] = []
            var invalidated = TileInvalidation()
            let plan = Self.appendPlan(for: edits, in: state)
            invalidated.formUnion(plan.changed)
            for (index, edit) in edits.enumerated() {
                switch edit {
                case let .put(route, lastFix):
                    keys.append(Self.put(route, lastFix: lastFix, into: &state, invalidating: &invalidated, options: options,
                                         prepared: prepared[index]))
                case let .remove(key):
                    if Self.remove(key, from: &state, invalidating: &invalidated) { keys.append(key) }
                case let .append(key, points, time):
                    guard let run = plan.runs[index] else { continue }  // done by the route's last append
                    if Self.append(run.points ?? points, time: time, to: key, in: &state, invalidating: &invalidated,
                                   options: options, extended: run.extension) {
                        keys.append(key)
                    }
                }
            }
            return (keys, invalidated)
        }
    }

    /// A put's route made ready before the writers' lock is taken, from the route alone: its tiler, and its cover
    /// unless the put may be a trim of the route it replaces (whose own path costs the dropped segments only).
    private struct PreparedPut: Sendable {
        let tiler: RouteTiler
        let cover: RouteCover?
    }

    /// The puts of `edits` whose routes have ids, made ready (`PreparedPut`) on every core, by index in `edits`:
    /// projecting a route and finding every tile it is drawn in (a route across the world is drawn in tens of
    /// thousands) is done outside the writers' lock, which readers of the route list and metadata take too. Writes
    /// to the set come one at a time (`LiveRouteSync` applies in order), so the state read here is the state the
    /// write finds; a put finds its own tiler otherwise.
    private func prepare(_ edits: [Edit]) -> [Int: PreparedPut] {
        // A fleet's rounds are appends alone: no lock taken for them.
        guard edits.contains(where: { if case .put = $0 { true } else { false } }) else { return [:] }
        var work: [(index: Int, route: Route, trimmable: Bool)] = []
        state.withLock { state in
            for (index, edit) in edits.enumerated() {
                guard case let .put(route, _) = edit, let id = route.id else { continue }
                let trimmable = state.entries[Self.key(for: id)]?.mayBeTrimmed(to: route) ?? false
                work.append((index, route, trimmable))
            }
        }
        guard !work.isEmpty else { return [:] }
        let options = self.options
        let jobs = work
        let made = Mutex<[Int: PreparedPut]>([:])
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: min(Self.cores, jobs.count)) { _ in
            while true {
                let slot = next.add(1, ordering: .relaxed).oldValue
                guard slot < jobs.count else { return }
                let job = jobs[slot]
                let tiler = RouteTiler(routes: [job.route], options: options)
                let put = PreparedPut(tiler: tiler, cover: job.trimmable ? nil : RouteCover(of: tiler))
                made.withLock { $0[job.index] = put }
            }
        }
        return made.withLock { $0 }
    }

    /// Adds routes, or replaces those whose id is already present. Routes without an id get new numeric ids.
    public func upsert(_ routes: [Route]) -> Change {
        apply(routes.map { .put($0) })
    }

    /// Replaces the route stored under `key` (or adds it at the end), giving it that id.
    public func replace(key: String, with route: Route) -> Change {
        var route = route
        route.id = StoredRouteCodec.id(forKey: key)
        return upsert([route])
    }

    /// Removes a route; nil when there is none under `key`.
    public func remove(key: String) -> Change? {
        write { state -> ([String], TileInvalidation)? in
            var invalidated = TileInvalidation()
            guard Self.remove(key, from: &state, invalidating: &invalidated) else { return nil }
            return ([key], invalidated)
        }
    }

    /// Extends the last part of a route with `points`; nil when there is none under `key`. The cover grows by the
    /// tiles the new segments touch. The tiles invalidated are those whose bytes changed
    /// (`RouteTiler.tilesChanged(byAppendingTo:)`): near the new segments, and where the simplification of the
    /// line's last block changed; every tile of the route when its features carry `length_m`.
    /// The route's tiler is extended, not rebuilt: the work follows the new points (see `RouteTiler.appending`).
    public func append(key: String, points: [Coordinate], time: Double? = nil) -> Change? {
        write { state -> ([String], TileInvalidation)? in
            var invalidated = TileInvalidation()
            guard Self.append(points, time: time, to: key, in: &state, invalidating: &invalidated, options: options) else { return nil }
            return ([key], invalidated)
        }
    }

    private static func put(_ route: Route, lastFix: Double?, into state: inout State,
                            invalidating invalidated: inout TileInvalidation, options: TilingOptions,
                            prepared: PreparedPut? = nil) -> String {
        var route = route
        let key = assignKey(&route, state: &state)
        if trim(key, to: route, lastFix: lastFix, in: &state, invalidating: &invalidated, options: options,
                tiler: prepared?.tiler) { return key }
        var entry: Entry
        if let prepared {
            entry = Entry(route: route, lastFix: lastFix, tiler: prepared.tiler)
            entry.cover = prepared.cover ?? RouteCover(of: prepared.tiler)
        } else {
            entry = Entry(route: route, lastFix: lastFix, options: options)
        }
        entry.place(options: options)
        if let old = state.entries[key] {
            invalidated.formUnion(old.knownCover)
            (entry.chunk, entry.slot) = (old.chunk, old.slot)
            state.pointCount -= old.pointCount
            state.rebuilt.insert(old.chunk)
        } else {
            state.place(&entry, key: key, options: options)
        }
        invalidated.formUnion(entry.knownCover)
        state.pointCount += entry.pointCount
        state.store(entry, at: key)
        return key
    }

    /// Puts `route` in place of the route under `key` when it is that route without whole leading blocks
    /// (`RouteTiler.tilesChanged(byTrimming:)`: a bounded track's trim), at the cost of the dropped segments: only
    /// the tiles they were drawn in are invalidated, and the cover loses those the route no longer draws in, where
    /// a put would cut the route's whole cover at every zoom, old and new. False, changing nothing, otherwise.
    private static func trim(_ key: String, to route: Route, lastFix: Double?, in state: inout State,
                             invalidating invalidated: inout TileInvalidation, options: TilingOptions,
                             tiler prepared: RouteTiler? = nil) -> Bool {
        guard route.kind == .line, route.parts.count == 1, let index = state.entries.index(forKey: key) else { return false }
        var header = route
        header.parts = []
        let drawn = state.entries.values.withEntry(at: index) { entry -> (chunk: Int, slot: Int, tiler: RouteTiler, position: LivePosition?, dropped: Int)? in
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
            entry.lastFix = lastFix
            entry.place(options: options)
            return (entry.chunk, entry.slot, tiler, entry.position, dropped)
        }
        guard let drawn else { return false }
        state.pointCount -= drawn.dropped
        state.moved[drawn.chunk, default: []].append(drawn.slot)
        state.chunkTilers[drawn.chunk][drawn.slot] = drawn.tiler
        state.chunkPositions[drawn.chunk][drawn.slot] = drawn.position
        return true
    }

    private static func remove(_ key: String, from state: inout State, invalidating invalidated: inout TileInvalidation) -> Bool {
        guard let old = state.discard(key) else { return false }
        state.unplace(chunk: old.chunk, slot: old.slot)
        state.pointCount -= old.pointCount
        invalidated.formUnion(old.knownCover)
        return true
    }

    /// A route's tiler extended by an append, and the tiles that changed (`RouteTiler.tilesChanged`): the part of
    /// an append that reads only the route itself.
    private struct Extension: Sendable {
        let tiler: RouteTiler
        let tiles: AppendedTiles

        init?(_ old: RouteTiler, joint: Coordinate?, points: [Coordinate]) {
            guard !points.isEmpty, let joint, let tiler = old.appending(points, after: joint) else { return nil }
            self.tiler = tiler
            tiles = tiler.tilesChanged(byAppendingTo: old)
        }
    }

    /// How `apply` carries out the appends of a batch: by index in `edits`, the appends it makes; an append
    /// without a run (or an edit of another kind) is nil, done by a later one.
    private struct AppendPlan {
        struct Run {
            /// All the points that a route's appends in the batch add, in order, when there are more than this
            /// edit's own.
            var points: [Coordinate]?
            /// The route's tiler extended by them, when worked out ahead.
            var `extension`: Extension?
        }
        var runs: [Run?]
        /// The tiles the extensions worked out ahead changed, together (each worker's union, so the writer does not
        /// insert every extension's tiles one by one).
        var changed = TileInvalidation()
    }

    /// The appends of `edits`, planned. A route that only appends in the batch (no put or remove of it) is extended
    /// once, by all its points, at its last append: readers see only the snapshot after the whole batch, so the
    /// tiles that changed are those between the route before and after it, and the steps between are never cut.
    /// When there are enough such routes to share (a batch of fixes, or a round of group commit), their extensions
    /// are worked out on every core before the edits are applied one by one.
    private static func appendPlan(for edits: [Edit], in state: State) -> AppendPlan {
        var plan = AppendPlan(runs: Array(repeating: nil, count: edits.count))
        // The index of each key's last append, and the keys that another kind of edit touches too.
        var lastAppend: [String: Int] = [:]
        lastAppend.reserveCapacity(edits.count)
        var rewritten = Set<String>()
        for (index, edit) in edits.enumerated() {
            switch edit {
            case let .put(route, _): if let id = route.id { rewritten.insert(key(for: id)) }
            case let .remove(key): rewritten.insert(key)
            case let .append(key, _, _): lastAppend[key] = index
            }
        }
        // The points of a key's appends before its last, in order: only keys appended to more than once have some.
        var earlier: [String: [Coordinate]] = [:]
        var work: [(index: Int, tiler: RouteTiler, joint: Coordinate?, points: [Coordinate])] = []
        work.reserveCapacity(lastAppend.count)
        for (index, edit) in edits.enumerated() {
            guard case let .append(key, points, _) = edit else { continue }
            guard !rewritten.contains(key) else {
                plan.runs[index] = AppendPlan.Run()    // the route is put or removed too: each edit in turn
                continue
            }
            guard index == lastAppend[key] else {
                earlier[key, default: []] += points
                continue
            }
            var run = AppendPlan.Run()
            if let before = earlier.removeValue(forKey: key) { run.points = before + points }
            plan.runs[index] = run
            // The two fields, read in place: a copy of the whole entry (its cover's set and more) costs more.
            guard let slot = state.entries.index(forKey: key) else { continue }
            work.append((index, state.entries.values[slot].tiler, state.entries.values[slot].lastPosition, run.points ?? points))
        }
        let workers = Self.cores
        guard workers > 1, work.count >= 16 else { return plan }
        let jobs = work
        let found = Mutex<(extensions: [(Int, Extension)], changed: TileInvalidation)>(([], TileInvalidation()))
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: min(workers, work.count)) { _ in
            var extensions: [(Int, Extension)] = []
            var changed = TileInvalidation()
            while true {
                let slot = next.add(1, ordering: .relaxed).oldValue
                guard slot < jobs.count else { break }
                let item = jobs[slot]
                guard let extension_ = Extension(item.tiler, joint: item.joint, points: item.points) else { continue }
                changed.formUnion(extension_.tiles)
                extensions.append((item.index, extension_))
            }
            found.withLock { found in
                found.extensions += extensions
                found.changed.formUnion(changed)
            }
        }
        let (extensions, changed) = found.withLock { $0 }
        for (index, extension_) in extensions { plan.runs[index]?.extension = extension_ }
        plan.changed = changed
        return plan
    }

    private static func append(_ points: [Coordinate], time: Double?, to key: String, in state: inout State,
                               invalidating invalidated: inout TileInvalidation, options: TilingOptions,
                               extended planned: Extension? = nil) -> Bool {
        guard let index = state.entries.index(forKey: key) else { return false }
        // Changed where it is in the table (its cover's set is extended in place, not copied), and drawn anew in its
        // chunk's slot; whether it has a cover does not change.
        let drawn = state.entries.values.withEntry(at: index) { entry -> (chunk: Int, slot: Int, tiler: RouteTiler, position: LivePosition?)? in
            guard let extended = planned ?? Extension(entry.tiler, joint: entry.lastPosition, points: points),
                  let joint = entry.lastPosition else { return nil }
            // An extension worked out ahead has its tiles in the plan's union already.
            if planned == nil { invalidated.formUnion(extended.tiles) }
            // A value of the whole route in every feature (`length_m`, line metrics) changes every tile of it.
            if options.routeLength || options.lineMetrics { invalidated.formUnion(entry.knownCover) }
            entry.tiler = extended.tiler
            entry.previousPosition = points.count >= 2 ? points[points.count - 2] : joint
            entry.lastPosition = points.last
            entry.lastFix = time
            entry.place(options: options)
            entry.pointCount += points.count
            // A cover not found yet stays so: when it is found, from the extended tiler, it holds the new tiles too.
            // An append then costs its new segments, not a cut of the whole route at every zoom.
            entry.coverGrows(by: extended.tiles)
            return (entry.chunk, entry.slot, entry.tiler, entry.position)
        }
        guard let drawn else { return true }
        state.pointCount += points.count
        state.moved[drawn.chunk, default: []].append(drawn.slot)
        state.chunkTilers[drawn.chunk][drawn.slot] = drawn.tiler
        state.chunkPositions[drawn.chunk][drawn.slot] = drawn.position
        return true
    }

    private func write(_ body: (inout State) -> ([String], TileInvalidation)) -> Change {
        write { state -> ([String], TileInvalidation)? in body(&state) } ?? Change(keys: [], invalidated: [], generation: snapshot.generation)
    }

    /// Applies a change and swaps in the next snapshot while still holding the writers' lock, so that snapshots
    /// appear in the order of the changes.
    ///
    /// The snapshot replaced is let go on another thread: when no reader holds it, that frees the tilers the change
    /// replaced (a route's arrays, index and tree), work the writer need not wait for.
    private func write(_ body: (inout State) -> ([String], TileInvalidation)?) -> Change? {
        let done = state.withLock { state -> (keys: [String], invalidated: TileInvalidation, generation: UInt64, replaced: Snapshot)? in
            guard let (keys, invalidated) = body(&state) else { return nil }
            let generation = current.withLock { $0.generation } + 1
            let next = Self.snapshot(of: &state, options: options, generation: generation)
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

    /// The cores the process may use, read once (`activeProcessorCount` reads the cgroup's quota from a file on
    /// every call).
    private static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Where replaced snapshots are let go.
    private static let release = DispatchQueue(label: "RouteTiles.LiveRouteSet.release", qos: .utility)

    private static func assignKey(_ route: inout Route, state: inout State) -> String {
        if let id = route.id {
            if case let .number(n) = id { state.nextNumber = max(state.nextNumber, n &+ 1) }
            return key(for: id)
        }
        route.id = .number(state.nextNumber)
        state.nextNumber &+= 1
        return key(for: route.id ?? .number(0))
    }

    private static func snapshot(of state: inout State, options: TilingOptions, generation: UInt64) -> Snapshot {
        Snapshot(tilers: state.tilerSet(options: options), generation: generation, routeCount: state.entries.count,
                 pointCount: state.pointCount)
    }
}

extension Dictionary.Values {
    /// Runs `body` on the value at `index`, in place: a value that holds arrays or sets is changed without a copy.
    fileprivate mutating func withEntry<R>(at index: Dictionary.Index, _ body: (inout Value) -> R) -> R {
        body(&self[index])
    }
}
