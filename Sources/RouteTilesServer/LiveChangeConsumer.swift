import Logging
import RouteTiles
import ServiceLifecycle
import Synchronization

/// Reads the live routes' changes (`LiveRouteSync.changes()`), in order and outside the core's locks, and hands each
/// application on: the expire log, the observers of invalidated tiles (a `CachePurger` queues them), the logs and
/// metrics, and last the `/events` streams, so that a client that saw event N knows the rest of N is done. A `.gap`
/// (the reader fell behind its bounds) counts as every tile changed: the expire log gets `0/0/0` and a subtree
/// comment for it, observers a change of the whole world (one ban), and the `/events` streams end, so that their
/// clients reconnect and are told to resync.
final class LiveChangeConsumer: Service, Sendable {
    private struct Progress {
        var reached: Int64
        var running = false
        var waiters: [(sequence: Int64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let changes: LiveChanges
    let sync: LiveRouteSync
    let events: ChangeEvents
    let expireLog: ExpireLog?
    let metrics: ServerMetrics
    let logger: Logger
    /// Where reads are private, the groups of the routes, which each event then carries (`ChangeEvent.frame(for:)`).
    let groups: RouteGroupTracker?
    private let observers = Mutex<[@Sendable (LiveRouteSet.Change) -> Void]>([])
    private let progress: Mutex<Progress>

    /// Subscribes at once, so that nothing applied before the service runs is missed; `eventLimit` events at most
    /// wait to be handed on (`LiveRouteSync.changes`).
    init(sync: LiveRouteSync, events: ChangeEvents, expireLog: ExpireLog?, metrics: ServerMetrics, logger: Logger,
         tracksGroups: Bool = false, eventLimit: Int = 1024) {
        self.sync = sync
        changes = sync.changes(eventLimit: eventLimit)
        groups = tracksGroups ? RouteGroupTracker(sync: sync) : nil
        self.events = events
        self.expireLog = expireLog
        self.metrics = metrics
        self.logger = logger
        progress = Mutex(Progress(reached: sync.status.applied))
        recordLoad()
    }

    /// A consumer dropped without running (a server built and never run) leaves no reader behind on the routes.
    deinit {
        changes.finish()
    }

    /// Adds an observer of the tiles each application invalidates.
    func observeInvalidatedTiles(_ observer: @escaping @Sendable (LiveRouteSet.Change) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    func run() async throws {
        progress.withLock { $0.running = true }
        // At graceful shutdown, what is buffered is still handed on, then the reading ends; so it does when the
        // service group is cancelled (a service failed), or the group would wait for this one for ever.
        await withTaskCancellationOrGracefulShutdownHandler {
            for await event in changes { handle(event) }
        } onCancelOrGracefulShutdown: {
            self.changes.finish()
        }
        let waiting = progress.withLock { progress in
            progress.running = false
            defer { progress.waiters = [] }
            return progress.waiters
        }
        for waiter in waiting { waiter.continuation.resume() }
    }

    /// Returns once the application of `sequence` is handed on (a write's tiles are in the expire log when it is
    /// answered), or at once when the consumer is not running.
    func reached(_ sequence: Int64) async {
        // Most writes find their change handed on already, or the consumer not running: no continuation then.
        if progress.withLock({ !$0.running || $0.reached >= sequence }) { return }
        await withCheckedContinuation { continuation in
            let done = progress.withLock { progress in
                guard progress.running, progress.reached < sequence else { return true }
                progress.waiters.append((sequence, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func handle(_ event: LiveEvent) {
        switch event {
        case let .applied(applied):
            handOn(applied.change, reached: applied.sequences.upperBound)
            count(badRows: applied.badRows, badRowCount: applied.badRows.count, changes: applied.changeCount,
                  duration: applied.duration)
            let change = applied.change
            // Tracked whether or not a stream is open, so that the groups of routes removed stay known.
            let groupsOfKeys = groups?.groups(of: change.keys, in: sync.routes)
            events.publish {
                ChangeEvent(sequence: applied.sequences.upperBound, generation: change.generation, ids: change.keys,
                            tiles: change.invalidated, subtrees: change.subtrees, groups: groupsOfKeys)
            }
        case let .gap(gap):
            metrics.changeFeedGaps.increment()
            logger.warning("live changes: fell behind over sequences \(gap.sequences); every tile counts as changed")
            let world = TileID(z: 0, x: 0, y: 0)
            handOn(LiveRouteSet.Change(keys: [], invalidated: [world], generation: gap.generation, subtrees: [world]),
                   reached: gap.sequences.upperBound)
            count(badRows: gap.badRows, badRowCount: gap.badRowCount, changes: gap.changeCount,
                  duration: gap.duration)
            events.endAll()
        case let .storeError(message, repeats):
            metrics.storeErrors.increment(by: 1 + repeats)
            logger.warning("route store: \(message)\(repeats > 0 ? " (and \(repeats) more failures)" : "")")
        case .reconnected:
            metrics.storeReconnects.increment()
            logger.notice("route store: reachable again")
        }
    }

    /// The expire log and the observers, then the waiters of `reached(_:)`.
    private func handOn(_ change: LiveRouteSet.Change, reached sequence: Int64) {
        if let expireLog {
            do {
                try expireLog.append(change.invalidated, subtrees: change.subtrees)
            } catch {
                logger.error("\(error)")
            }
        }
        for observer in observers.withLock({ $0 }) { observer(change) }
        let ready = progress.withLock { progress in
            progress.reached = max(progress.reached, sequence)
            var ready: [CheckedContinuation<Void, Never>] = []
            progress.waiters.removeAll { waiter in
                guard waiter.sequence <= progress.reached else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// The logs and counters of applications (the applied sequence is read from the sync at each scrape instead, so
    /// that the gauge never steps back to where this reader is).
    private func count(badRows: [RouteRowProblem], badRowCount: Int, changes: Int, duration: Duration) {
        for problem in badRows {
            logger.error("route store: skipped a row that makes no route: \(problem)")
        }
        metrics.storeBadRows.increment(by: badRowCount)
        metrics.storeChangesApplied.increment(by: changes)
        let (seconds, attoseconds) = duration.components
        metrics.storeApplyTime.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        recordLoad()
    }

    /// Updates the gauges of what is loaded.
    func recordLoad() {
        let snapshot = sync.routes.snapshot
        metrics.routesLoaded.record(snapshot.routeCount)
        metrics.pointsLoaded.record(snapshot.pointCount)
    }
}
