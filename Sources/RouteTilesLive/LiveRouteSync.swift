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

    /// Held while applying changes to `routes` (a round of this server's writes, or a catch-up), so that they are
    /// applied once each and in sequence order.
    let lock = AsyncLock()
    /// Held while a round of writes commits to the store. A round takes `lock` before it gives this one up, so
    /// rounds apply in the order they committed, while the next round's commit (the store's I/O and fsync) runs
    /// beside this round's application.
    let commitLock = AsyncLock()
    /// How far live tracks may grow; appends past it are followed by a trim (`TrackRetention`).
    public let retention: TrackRetention
    /// The keys of the routes whose trim is queued or committing, so that appends meanwhile do not ask again.
    let trimming = Mutex<Set<String>>([])
    /// Writes waiting for the next group commit.
    let queue = WriteQueue()
    let state: Mutex<SyncLedger>
    /// The caches told of each application, and the readers of `changes()`.
    let outlets = Mutex(ChangeOutlets())
    /// How often the store is read even without a wake-up.
    let tick: Duration
    /// How often positions past their time bound are trimmed (`trimOldPositions`) while following.
    let retentionTick: Duration
    /// Wakes the follower (`follow()`), while it runs: a failed write asks it to probe the store at once.
    let prober = Mutex<AsyncStream<Void>.Continuation?>(nil)

    /// Loads the store's routes; also returns the rows that make no route.
    /// - Parameters:
    ///   - tick: How often the store is read even without a wake-up.
    ///   - retentionTick: How often positions past their time bound are trimmed while following (`follow()`): 30 s,
    ///     so that it happens at least once a minute.
    public static func open(store: any RouteStore, options: TilingOptions, retention: TrackRetention = TrackRetention(),
                            tick: Duration = .seconds(2), retentionTick: Duration = .seconds(30)) async throws
        -> (sync: LiveRouteSync, badRows: [RouteRowProblem])
    {
        let snapshot = try await store.loadAll()
        return (LiveRouteSync(store: store, snapshot: snapshot, options: options, retention: retention, tick: tick,
                              retentionTick: retentionTick),
                snapshot.badRows)
    }

    /// Routes in memory only (`MemoryRouteStore`), numbered as `LiveRouteSet` numbers routes without an id: for
    /// tests, demos and programs that keep their routes elsewhere.
    public static func inMemory(routes: [Route], options: TilingOptions) -> LiveRouteSync {
        let store = MemoryRouteStore(routes: routes)
        return LiveRouteSync(store: store, snapshot: store.snapshot(), options: options, retention: TrackRetention(),
                             tick: .seconds(3600), retentionTick: .seconds(30))
    }

    private init(store: any RouteStore, snapshot: RouteStoreSnapshot, options: TilingOptions, retention: TrackRetention,
                 tick: Duration, retentionTick: Duration) {
        self.retention = retention
        var lastFixes: [String: Double] = [:]
        for stored in snapshot.routes { if let fix = stored.lastFix { lastFixes[stored.key] = fix } }
        routes = LiveRouteSet(routes: snapshot.routes.map(\.route), options: options, lastFixes: lastFixes)
        var state = SyncLedger()
        for stored in snapshot.routes { state.versions[stored.key] = stored.version }
        state.status.applied = snapshot.sequence
        state.status.newest = snapshot.sequence
        _ = state.newlyBad(snapshot.badRows)
        self.store = store
        self.state = Mutex(state)
        self.tick = tick
        self.retentionTick = retentionTick
    }

    /// How far this server is now.
    public var status: Status { state.withLock { $0.status } }

    /// How many calls of `write` have queued their writes so far (for tests that wait until every caller has).
    package var writesQueued: Int { queue.enqueuedCount }

    /// How many routes have a trim queued, committing or being applied (for tests that wait until they are done).
    package var trimsInFlight: Int { trimming.withLock { $0.count } }

    /// The version of the route stored under `key`, as this server holds it.
    public func version(of key: String) -> Int64? { state.withLock { $0.versions[key] } }

    /// Runs `body`, which applies changes to the routes and tells the caches and readers (work of any size: a route across the
    /// world is drawn in hundreds of thousands of tiles), on a queue of its own, off Swift's cooperative thread pool,
    /// and waits for it. The pool has a thread a core, and every request handler needs one: a change applied on it
    /// held up `/health`, the probes and every read for as long as it took.
    func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Self.applyQueue.async { continuation.resume(returning: body()) }
        }
    }

    /// Whether applying `changes` may take long enough to leave the cooperative pool for (`offPool`): a put or a
    /// removal draws or undraws a whole route (a route across the world is drawn in hundreds of thousands of tiles).
    /// Appends alone are applied where they are: each costs what it draws, bounded by `appendTileLimit`, and a
    /// fleet's rounds of fixes would pay the hop to another thread (measured: 7–10% fewer one-fix appends a second).
    static func mayBeLarge(_ changes: [RouteChange]) -> Bool {
        changes.contains { $0.operation != .append }
    }

    /// Where changes are applied (`offPool`); the apply lock orders them, so one queue serves every sync.
    private static let applyQueue = DispatchQueue(label: "RouteTiles.LiveRouteSync.apply", qos: .userInitiated)

    func noteSuccess() {
        let reconnected = state.withLock { state in
            let was = state.status.reachable
            if !was { state.status.reconnects += 1 }
            state.status.reachable = true
            state.status.lastError = nil
            return !was
        }
        if reconnected { publish(.reconnected) }
    }

    func noteFailure(_ error: any Error) {
        let message = "\(error)"
        state.withLock { state in
            state.status.reachable = false
            state.status.lastError = message
        }
        publish(.storeError(message: message, repeats: 0))
    }
}
