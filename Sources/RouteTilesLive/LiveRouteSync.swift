import Foundation
import RouteTilesModel
import RouteTilesRouteStore
import RouteTilesTiling
import Synchronization

/// Keeps a `LiveRouteSet` in step with a `RouteStore`: every write is committed to the store first, and every
/// server applies the store's changes in sequence order, its own included.
///
/// - **Writes** (`write(_:)`) commit, then apply. When the server has applied everything before the write's first
///   sequence, it applies the routes it just wrote without reading them back; otherwise it catches up from the
///   feed, which holds its write too. Either way a sequence is applied once: the applied sequence only grows.
/// - **Following** (`follow()`) waits for the store's wake-ups (PostgreSQL's NOTIFY, SQLite's data version) and a
///   periodic tick, and after each reads every change after the last it applied. A wake-up is never the data, so a
///   lost one costs at most a tick.
/// - **Applying** a change reads the route as it is now, not as it was, so a server that missed changes converges
///   all the same. Each route's version (the sequence that last wrote it) makes older changes no-ops, and an append
///   whose base is the version held is applied from its points without reading the route.
/// - **Order.** Routes keep the order of their creation, so every replica cuts the same bytes: a route read back
///   with a creation later than the change being applied was deleted and created again, and joins at its creation.
/// - **Bad rows** (a geometry that is not a line, out-of-range coordinates) are reported, counted and skipped:
///   the route is not served, on every replica alike, and the feed goes on.
public final class LiveRouteSync: Sendable {
    /// The routes this server serves, kept in step with the store.
    public let routes: LiveRouteSet
    /// The store that holds the routes and their change feed.
    public let store: any RouteStore

    /// What one application did: the change to the routes, the sequences it covered, and the rows skipped.
    public struct Applied: Sendable {
        /// What the routes did: the keys changed and the tiles invalidated.
        public var change: LiveRouteSet.Change
        /// The store sequences applied.
        public var sequences: ClosedRange<Int64>
        /// The number of changes of the feed applied.
        public var changeCount: Int
        /// Rows that did not make a route, skipped.
        public var badRows: [RouteRowProblem]
        /// From the first call to the store to the new snapshot.
        public var duration: Duration = .zero
    }

    /// The outcome of a write.
    public enum WriteOutcome: Sendable {
        /// Committed with these sequences and applied here; `change` is what this server's routes did.
        case applied(change: LiveRouteSet.Change, keys: [String], sequences: ClosedRange<Int64>?)
        /// Committed, but applying it here failed (the store went away after the commit); the feed brings it later.
        case committedNotApplied(keys: [String], sequences: ClosedRange<Int64>?, error: String)
        /// No route is stored under `key`: nothing was written.
        case notFound(key: String)
        /// An append to a route of points: nothing was written.
        case notALine(key: String)
    }

    /// How far this server is, for `/health` and the metrics.
    public struct Status: Sendable {
        /// The last sequence applied.
        public var applied: Int64
        /// The newest sequence seen in the store.
        public var newest: Int64
        /// Whether the last call to the store succeeded.
        public var reachable: Bool
        /// The last store error, if the last call failed.
        public var lastError: String?
        /// How many times the store was reached again after failing.
        public var reconnects: Int
        /// Rows skipped because they did not make a route, since the start.
        public var badRows: Int
        /// Group commits made by this server (transactions of its own writes), since the start.
        public var commits: Int = 0
        /// The writes those commits carried: `writesCommitted / commits` writes shared each commit.
        public var writesCommitted: Int = 0
    }

    private struct State {
        var versions: [String: Int64] = [:]
        var status = Status(applied: 0, newest: 0, reachable: true, lastError: nil, reconnects: 0, badRows: 0)
        /// The bad rows reported so far, by key and version, so that a reload reports only new ones.
        var badReported: Set<String> = []
        /// The tiles the last catch-ups invalidated, by the sequences they applied (the newest 64): a write that a
        /// catch-up applied before its own round could (woken by the store's notice of that very commit) answers
        /// with the tiles it invalidated there.
        var recentCatchUps: [(sequences: ClosedRange<Int64>, change: LiveRouteSet.Change)] = []

        mutating func recordCatchUp(_ sequences: ClosedRange<Int64>, change: LiveRouteSet.Change) {
            if recentCatchUps.count == 64 { recentCatchUps.removeFirst() }
            recentCatchUps.append((sequences, change))
        }

        /// Of `problems`, those not reported before; they are counted and remembered.
        mutating func newlyBad(_ problems: [RouteRowProblem]) -> [RouteRowProblem] {
            let fresh = problems.filter { badReported.insert("\($0.version) \($0.key)").inserted }
            status.badRows += fresh.count
            return fresh
        }
    }

    /// Who hears of applications and store errors.
    public struct Observer: Sendable {
        /// Every application (to drop changed tiles from caches), called under the lock that orders them.
        public var applied: @Sendable (Applied) -> Void
        /// Every failed call to the store.
        public var storeError: @Sendable (String) -> Void
        /// The first successful call to the store after failed ones.
        public var reconnected: @Sendable () -> Void

        /// An observer made of the three callbacks.
        public init(applied: @escaping @Sendable (Applied) -> Void, storeError: @escaping @Sendable (String) -> Void,
                    reconnected: @escaping @Sendable () -> Void = {}) {
            self.applied = applied
            self.storeError = storeError
            self.reconnected = reconnected
        }
    }

    /// Held while applying changes to `routes` (a round of this server's writes, or a catch-up), so that they are
    /// applied once each and in sequence order.
    private let lock = AsyncLock()
    /// Held while a round of writes commits to the store. A round takes `lock` before it gives this one up, so
    /// rounds apply in the order they committed, while the next round's commit (the store's I/O and fsync) runs
    /// beside this round's application.
    private let commitLock = AsyncLock()
    /// How far live tracks may grow; appends past it are followed by a trim (`TrackRetention`).
    public let retention: TrackRetention
    /// The keys of the routes whose trim is queued or committing, so that appends meanwhile do not ask again.
    private let trimming = Mutex<Set<String>>([])
    /// Writes waiting for the next group commit.
    private let queue = WriteQueue()
    private let state: Mutex<State>
    private let observers = Mutex<[Observer]>([])
    /// How often the store is read even without a wake-up.
    private let tick: Duration
    /// Wakes the follower (`follow()`), while it runs: a failed write asks it to probe the store at once.
    private let prober = Mutex<AsyncStream<Void>.Continuation?>(nil)

    /// Loads the store's routes; also returns the rows that make no route.
    public static func open(store: any RouteStore, options: TilingOptions, retention: TrackRetention = TrackRetention(),
                            tick: Duration = .seconds(2)) async throws
        -> (sync: LiveRouteSync, badRows: [RouteRowProblem])
    {
        let snapshot = try await store.loadAll()
        return (LiveRouteSync(store: store, snapshot: snapshot, options: options, retention: retention, tick: tick),
                snapshot.badRows)
    }

    /// Routes in memory only (`MemoryRouteStore`), numbered as `LiveRouteSet` numbers routes without an id: for
    /// tests, demos and programs that keep their routes elsewhere.
    public static func inMemory(routes: [Route], options: TilingOptions) -> LiveRouteSync {
        let store = MemoryRouteStore(routes: routes)
        return LiveRouteSync(store: store, snapshot: store.snapshot(), options: options, retention: TrackRetention(),
                             tick: .seconds(3600))
    }

    private init(store: any RouteStore, snapshot: RouteStoreSnapshot, options: TilingOptions, retention: TrackRetention,
                 tick: Duration) {
        self.retention = retention
        var lastFixes: [String: Double] = [:]
        for stored in snapshot.routes { if let fix = stored.lastFix { lastFixes[stored.key] = fix } }
        routes = LiveRouteSet(routes: snapshot.routes.map(\.route), options: options, lastFixes: lastFixes)
        var state = State()
        for stored in snapshot.routes { state.versions[stored.key] = stored.version }
        state.status.applied = snapshot.sequence
        state.status.newest = snapshot.sequence
        _ = state.newlyBad(snapshot.badRows)
        self.store = store
        self.state = Mutex(state)
        self.tick = tick
    }

    /// Adds an observer of every later application and store error.
    public func observe(_ observer: Observer) {
        observers.withLock { $0.append(observer) }
    }

    private func onApplied(_ applied: Applied) {
        for observer in observers.withLock({ $0 }) { observer.applied(applied) }
    }

    private func onStoreError(_ message: String) {
        for observer in observers.withLock({ $0 }) { observer.storeError(message) }
    }

    /// How far this server is now.
    public var status: Status { state.withLock { $0.status } }

    /// How many calls of `write` have queued their writes so far (for tests that wait until every caller has).
    package var writesQueued: Int { queue.enqueuedCount }

    /// The version of the route stored under `key`, as this server holds it.
    public func version(of key: String) -> Int64? { state.withLock { $0.versions[key] } }

    // MARK: Writing

    /// Commits `write` to the store, then applies it here. Throws when the store cannot be reached or refuses the
    /// write: then nothing was acknowledged.
    ///
    /// While the store is known to be unreachable and the follower is probing it, a write fails at once instead of
    /// waiting for its own call to time out (and for the follower's, whose lock it would wait behind): clients get
    /// their 503 now, and writes go through again as soon as a probe reaches the store.
    public func write(_ write: RouteWrite) async throws -> WriteOutcome {
        let outcomes = try await self.write(batch: [write])
        guard let outcome = outcomes.first else {
            throw RouteStoreError(store: store.displayName, message: "the write has no outcome")
        }
        return try outcome.get()
    }

    /// Commits `writes` in one transaction of the store and applies them here; each is answered only after that
    /// commit. Writes of other callers that arrive while a commit is in flight join the next one (group commit):
    /// one transaction and one fsync carry them all, and writes to one route keep their order. Returns each write's
    /// outcome in order, or the error that refused it alone; throws when the transaction failed as a whole, and
    /// then nothing of it was acknowledged.
    public func write(batch writes: [RouteWrite]) async throws -> [Result<WriteOutcome, any Error>] {
        guard !writes.isEmpty else { return [] }
        try refuseWhileUnreachable()
        let ticket = WriteTicket()
        if queue.enqueue(WriteQueue.Unit(writes: writes, ticket: ticket)) { await lead() }
        return try await ticket.value()
    }

    /// The most writes one transaction carries: a round takes whole units up to this many (one unit may exceed it).
    static let maxWritesPerCommit = 4_096

    /// Commits a round of the queue and applies it; once it is committed, hands the next round (while more waits)
    /// to a new task, which commits it while this one applies, so that this caller's answer does not wait for later
    /// writers and the store's commit and the routes' update of consecutive rounds overlap.
    private func lead() async {
        let units = queue.take(maxWrites: Self.maxWritesPerCommit)
        let writes = units.flatMap(\.writes)
        await commitLock.acquire()
        let committed: Result<[Result<RouteWriteResult, any Error>], any Error>
        do {
            committed = .success(try await commitToStore(writes))
            // Before the next round may commit, so that rounds apply in the order they committed.
            await lock.acquire()
        } catch {
            committed = .failure(error)
        }
        commitLock.release()
        if queue.continueLeading() { Task { await self.lead() } }
        let outcomes: WriteTicket.Outcomes
        switch committed {
        case let .success(results):
            let applied = await applyCommitted(results)
            lock.release()
            // Each write's answer is made after the lock is let go: the next round's application need not wait.
            outcomes = .success(Self.outcomes(of: results, applied: applied))
        case let .failure(error):
            outcomes = .failure(error)
        }
        state.withLock { state in
            state.status.commits += 1
            state.status.writesCommitted += writes.count
        }
        var offset = 0
        for unit in units {
            let count = unit.writes.count
            unit.ticket.resolve(outcomes.map { Array($0[offset..<offset + count]) })
            offset += count
        }
        trimGrownTracks(appendedBy: writes)
    }

    /// Queues a trim of each route that `writes` appended to past its bound (`TrackRetention`), as a write of its
    /// own: the appends' answers do not wait for it, and it goes through the store like any write.
    private func trimGrownTracks(appendedBy writes: [RouteWrite]) {
        var appended: [String] = []
        appended.reserveCapacity(writes.count)
        for case let .append(key, _) in writes { appended.append(key) }
        var trims: [RouteWrite] = []
        for (key, limit) in routes.routes(among: appended, grownPast: retention)
        where trimming.withLock({ $0.insert(key).inserted }) {
            trims.append(.trim(key: key, keep: limit))
        }
        guard !trims.isEmpty else { return }
        Task {
            // A trim that fails is asked for again by the next append past the bound.
            _ = try? await self.write(batch: trims)
            trimming.withLock { keys in for case let .trim(key, _) in trims { keys.remove(key) } }
        }
    }

    /// Commits one round's writes to the store, under `commitLock`.
    private func commitToStore(_ writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        try refuseWhileUnreachable()
        do {
            let results = try await store.commit(batch: writes)
            noteSuccess()
            return results
        } catch {
            noteFailure(error)
            prober.withLock { $0 }?.yield()
            throw error
        }
    }

    /// Applies what a round committed, under `lock`: from what it wrote when this server's routes are at the
    /// change before it, else by catching up with the store (a catch-up that ran between the commit and now may
    /// have applied it already).
    /// Returns what this server's routes did, or why applying failed after the commit.
    private func applyCommitted(_ results: [Result<RouteWriteResult, any Error>]) async -> Result<LiveRouteSet.Change, any Error> {
        var changes: [RouteChange] = []
        changes.reserveCapacity(results.count)
        var written: [StoredRoute] = []
        for case let .success(.committed(made, stored)) in results {
            changes += made
            written += stored
        }
        /// What this server's routes did; nil when applying failed after the commit (the error says why).
        var applied: Result<LiveRouteSet.Change, any Error> = .success(
            LiveRouteSet.Change(keys: [], invalidated: [], generation: routes.snapshot.generation))
        if let first = changes.first?.sequence, let last = changes.last?.sequence {
            let contiguous = zip(changes, changes.dropFirst()).allSatisfy { $1.sequence == $0.sequence + 1 }
            if contiguous, status.applied == first - 1 {
                let (changes, written) = (changes, written)
                applied = .success(await Self.mayBeLarge(changes) ? offPool { self.applyOwn(changes, written: written) }
                                                                  : applyOwn(changes, written: written))
            } else {
                do {
                    var merged = LiveRouteSet.Change(keys: [], invalidated: [], generation: routes.snapshot.generation)
                    // What a catch-up applied of this round already (woken by the store's notice of its commit).
                    let done = status.applied
                    if done >= first {
                        let earlier = state.withLock { state in
                            state.recentCatchUps.filter { $0.sequences.overlaps(first...min(last, done)) }.map(\.change)
                        }
                        for change in earlier { merged.formUnion(tilesOf: change) }
                    }
                    while status.applied < last {
                        guard let caughtUp = try await catchUpLocked() else { break }
                        merged.formUnion(tilesOf: caughtUp.change)
                        merged.generation = caughtUp.change.generation
                    }
                    merged.keys = changes.map(\.key).uniqued()
                    applied = .success(merged)
                } catch {
                    applied = .failure(error)
                }
            }
        }
        return applied
    }

    /// Each write's outcome, from what the store did with it and what applying the round did.
    private static func outcomes(of results: [Result<RouteWriteResult, any Error>],
                                 applied: Result<LiveRouteSet.Change, any Error>) -> [Result<WriteOutcome, any Error>] {
        results.map { result in
            result.map { result -> WriteOutcome in
                switch result {
                case let .notFound(key): return .notFound(key: key)
                case let .notALine(key): return .notALine(key: key)
                case let .committed(made, _):
                    let keys = made.map(\.key).uniqued()
                    let sequences = made.first.flatMap { first in made.last.map { first.sequence...$0.sequence } }
                    switch applied {
                    case let .success(change): return .applied(change: change, keys: keys, sequences: sequences)
                    case let .failure(error):
                        return .committedNotApplied(keys: keys, sequences: sequences, error: "\(error)")
                    }
                }
            }
        }
    }

    /// Throws when the store is unreachable and a follower is probing it.
    private func refuseWhileUnreachable() throws {
        guard prober.withLock({ $0 != nil }) else { return }
        let status = self.status
        guard !status.reachable else { return }
        throw RouteStoreError(store: store.displayName, message: "unreachable (\(status.lastError ?? "no answer")); "
                              + "writes are refused until it answers again")
    }

    /// Applies a write this server just committed, from what it wrote.
    private func applyOwn(_ changes: [RouteChange], written: [StoredRoute]) -> LiveRouteSet.Change {
        let started = ContinuousClock.now
        var byKey: [String: StoredRoute] = [:]
        for stored in written { byKey[stored.key] = stored }
        var edits: [LiveRouteSet.Edit] = []
        edits.reserveCapacity(changes.count)
        state.withLock { state in
            for change in changes {
                switch change.operation {
                case .insert, .update:
                    if let stored = byKey[change.key], stored.version == change.sequence {
                        edits.append(.put(stored.route, lastFix: stored.lastFix))
                        state.versions[change.key] = change.sequence
                    }
                case .delete:
                    edits.append(.remove(key: change.key))
                    state.versions[change.key] = nil
                case .append:
                    edits.append(.append(key: change.key, points: change.points, time: change.time))
                    state.versions[change.key] = change.sequence
                }
            }
        }
        let change = routes.apply(edits)
        let sequences = (changes.first?.sequence ?? 0)...(changes.last?.sequence ?? 0)
        state.withLock { state in
            state.status.applied = sequences.upperBound
            state.status.newest = max(state.status.newest, sequences.upperBound)
        }
        onApplied(Applied(change: change, sequences: sequences, changeCount: changes.count, badRows: [],
                          duration: ContinuousClock.now - started))
        return change
    }

    // MARK: Following

    /// Reads and applies every change after the last applied; nil when there was none.
    @discardableResult
    public func catchUp() async throws -> Applied? {
        try await lock.withLock {
            var total: Applied?
            while let applied = try await catchUpLocked() {
                total = total.map { merge($0, applied) } ?? applied
            }
            return total
        }
    }

    /// Follows the store until the task is cancelled: a catch-up after every wake-up and every `tick`, with
    /// backoff (0.1 s doubling to 5 s) while the store cannot be reached.
    public func follow() async {
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        prober.withLock { $0 = signal }
        defer { prober.withLock { $0 = nil } }
        let store = self.store
        let tick = self.tick
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in store.wakeUps() { signal.yield() }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: tick)
                    signal.yield()
                }
            }
            group.addTask { [self] in
                var backoff = Duration.milliseconds(100)
                var iterator = signals.makeAsyncIterator()
                while !Task.isCancelled {
                    do {
                        try await catchUp()
                        backoff = .milliseconds(100)
                    } catch {
                        try? await Task.sleep(for: backoff)
                        backoff = min(backoff * 2, .seconds(5))
                        continue
                    }
                    guard await iterator.next() != nil else { break }
                }
            }
            await group.next()
            group.cancelAll()
        }
        signal.finish()
    }

    /// Reads one page of changes and applies it, under the lock. Nil when there is nothing new.
    private func catchUpLocked() async throws -> Applied? {
        let started = ContinuousClock.now
        let applied = status.applied
        let page: [RouteChange]
        let rows: [String: StoredRow]
        let needed: [String]
        do {
            let newest = try await store.newestSequence()
            state.withLock { $0.status.newest = max($0.status.newest, newest) }
            guard newest > applied else {
                noteSuccess()
                return nil
            }
            do {
                page = try await store.changes(after: applied, limit: 1000)
            } catch is RouteChangesPruned {
                let result = try await reload()
                noteSuccess()
                return result
            }
            guard !page.isEmpty else {
                noteSuccess()
                return nil
            }
            needed = keysNeedingRows(page)
            rows = try await store.rows(needed)
            noteSuccess()
        } catch {
            noteFailure(error)
            throw error
        }
        let read = needed
        guard Self.mayBeLarge(page) else { return apply(page, rows: rows, read: read, started: started) }
        return await offPool { self.apply(page, rows: rows, read: read, started: started) }
    }

    /// The keys of a page whose changes cannot all be applied from the change itself (an append on the version held).
    private func keysNeedingRows(_ page: [RouteChange]) -> [String] {
        var simulated = state.withLock { state in
            Dictionary(uniqueKeysWithValues: Set(page.map(\.key)).map { ($0, state.versions[$0] ?? -1) })
        }
        var needed: [String] = []
        for change in page {
            let held = simulated[change.key] ?? -1
            if change.sequence <= held { continue }
            if change.operation == .append, held == change.baseVersion, !change.points.isEmpty {
                simulated[change.key] = change.sequence
            } else {
                needed.append(change.key)
                simulated[change.key] = .max
            }
        }
        return needed.uniqued()
    }

    /// Applies a page of changes; `rows` are the rows of the keys `read` as they are now.
    private func apply(_ page: [RouteChange], rows: [String: StoredRow], read: [String],
                       started: ContinuousClock.Instant) -> Applied? {
        guard let first = page.first?.sequence, let last = page.last?.sequence else { return nil }
        var edits: [LiveRouteSet.Edit] = []
        var badRows: [RouteRowProblem] = []
        state.withLock { state in
            for change in page {
                let key = change.key
                let held = state.versions[key] ?? -1
                if change.sequence <= held { continue }
                if change.operation == .append, held == change.baseVersion, !change.points.isEmpty {
                    edits.append(.append(key: key, points: change.points, time: change.time))
                    state.versions[key] = change.sequence
                    continue
                }
                switch rows[key] {
                case nil:
                    // Deleted since: nothing of this page's changes to it remains.
                    edits.append(.remove(key: key))
                    state.versions[key] = last
                case let .bad(problem)?:
                    edits.append(.remove(key: key))
                    state.versions[key] = max(problem.version, change.sequence)
                    if !badRows.contains(where: { $0.key == key && $0.version == problem.version }) {
                        badRows.append(problem)
                    }
                case let .route(stored)?:
                    if stored.created > change.sequence {
                        // Deleted and created again later: it joins at its creation, as in every other replica.
                        edits.append(.remove(key: key))
                        state.versions[key] = stored.created - 1
                    } else {
                        edits.append(.put(stored.route, lastFix: stored.lastFix))
                        state.versions[key] = stored.version
                    }
                }
            }
            // A route not held stays out of the table, so that it does not grow with deleted routes.
            for key in read where rows[key] == nil || Self.isBad(rows[key]) {
                state.versions[key] = nil
            }
            state.status.applied = last
            badRows = state.newlyBad(badRows)
        }
        let change = routes.apply(edits)
        state.withLock { $0.recordCatchUp(first...last, change: change) }
        let applied = Applied(change: change, sequences: first...last, changeCount: page.count, badRows: badRows,
                              duration: ContinuousClock.now - started)
        onApplied(applied)
        return applied
    }

    private static func isBad(_ row: StoredRow?) -> Bool {
        if case .bad? = row { return true }
        return false
    }

    /// Loads the whole store again, when the changes needed were pruned: every route whose version differs is put,
    /// every route no longer stored removed.
    private func reload() async throws -> Applied? {
        let started = ContinuousClock.now
        let snapshot = try await store.loadAll()
        var edits: [LiveRouteSet.Edit] = []
        let before = status.applied
        var reported: [RouteRowProblem] = []
        state.withLock { state in
            let stored = Set(snapshot.routes.map(\.key))
            let held = routes.keys
            let kept = held.filter { stored.contains($0) }
            let keptSet = Set(kept)
            let added = snapshot.routes.map(\.key).filter { !keptSet.contains($0) }
            if kept + added == snapshot.routes.map(\.key) {
                for key in held where !stored.contains(key) {
                    edits.append(.remove(key: key))
                    state.versions[key] = nil
                }
                for route in snapshot.routes where state.versions[route.key] != route.version {
                    edits.append(.put(route.route, lastFix: route.lastFix))
                    state.versions[route.key] = route.version
                }
            } else {
                // A route was deleted and created again among the changes missed: it belongs at its new creation,
                // as on a server started now. Every route is put again, in the store's order.
                edits = held.map { .remove(key: $0) } + snapshot.routes.map { .put($0.route, lastFix: $0.lastFix) }
                state.versions = Dictionary(snapshot.routes.map { ($0.key, $0.version) }, uniquingKeysWith: { _, b in b })
            }
            state.status.applied = snapshot.sequence
            reported = state.newlyBad(snapshot.badRows)
        }
        let (reloaded, problems) = (edits, reported)
        return await offPool {
            let change = self.routes.apply(reloaded)
            let applied = Applied(change: change, sequences: (before + 1)...max(before + 1, snapshot.sequence),
                                  changeCount: reloaded.count, badRows: problems, duration: ContinuousClock.now - started)
            self.onApplied(applied)
            return applied
        }
    }

    /// Runs `body`, which applies changes to the routes and tells the observers (work of any size: a route across the
    /// world is drawn in hundreds of thousands of tiles), on a queue of its own, off Swift's cooperative thread pool,
    /// and waits for it. The pool has a thread a core, and every request handler needs one: a change applied on it
    /// held up `/health`, the probes and every read for as long as it took.
    private func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Self.applyQueue.async { continuation.resume(returning: body()) }
        }
    }

    /// Whether applying `changes` may take long enough to leave the cooperative pool for (`offPool`): a put or a
    /// removal draws or undraws a whole route (a route across the world is drawn in hundreds of thousands of tiles).
    /// Appends alone are applied where they are: each costs what it draws, bounded by `appendTileLimit`, and a
    /// fleet's rounds of fixes would pay the hop to another thread (measured: 7–10% fewer one-fix appends a second).
    private static func mayBeLarge(_ changes: [RouteChange]) -> Bool {
        changes.contains { $0.operation != .append }
    }

    /// Where changes are applied (`offPool`); the apply lock orders them, so one queue serves every sync.
    private static let applyQueue = DispatchQueue(label: "RouteTiles.LiveRouteSync.apply", qos: .userInitiated)

    private func merge(_ a: Applied, _ b: Applied) -> Applied {
        var change = b.change
        change.keys = (a.change.keys + b.change.keys).uniqued()
        change.formUnion(tilesOf: a.change)
        return Applied(change: change, sequences: a.sequences.lowerBound...b.sequences.upperBound,
                       changeCount: a.changeCount + b.changeCount, badRows: a.badRows + b.badRows)
    }

    private func noteSuccess() {
        let reconnected = state.withLock { state in
            let was = state.status.reachable
            if !was { state.status.reconnects += 1 }
            state.status.reachable = true
            state.status.lastError = nil
            return !was
        }
        if reconnected {
            for observer in observers.withLock({ $0 }) { observer.reconnected() }
        }
    }

    private func noteFailure(_ error: any Error) {
        let message = "\(error)"
        state.withLock { state in
            state.status.reachable = false
            state.status.lastError = message
        }
        onStoreError(message)
    }
}
