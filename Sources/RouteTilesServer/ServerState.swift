import Foundation
import HTTPTypes
import Logging
import NIOCore
import RouteTiles
import Synchronization

/// What every request handler shares.
final class ServerState: Sendable {
    let configuration: ServerConfiguration
    let name: String
    let tiles: TileService<ByteBuffer>
    /// The core's tile decisions, over `tiles`.
    let tileResponder: TileResponder<ByteBuffer>
    let metrics: ServerMetrics
    let logger: Logger
    let expireLog: ExpireLog?
    /// The open `GET /events` streams.
    let events = ChangeEvents()
    /// `GET /routes`, kept per generation.
    let routeListing = RouteListing()
    /// One line a request, buffered, when the log level is `info` or lower.
    let accessLog: AccessLog?
    /// `Last-Modified` of every tile answer, for a backend that does not change; nil for live routes.
    let tileLastModified: HTTPField?
    /// Told of the tiles each application invalidated (`RouteTilesServer.observeInvalidatedTiles`).
    private let invalidationObservers = Mutex<[@Sendable (LiveRouteSet.Change) -> Void]>([])
    /// Of the last applications, how many of the tiles each invalidated were cached, by generation: the answer to
    /// a write reports it.
    private let cachedInvalidations = Mutex<[(generation: UInt64, cached: Int)]>([])

    init(configuration: ServerConfiguration, name: String, backend: TileBackend, logger: Logger) throws {
        self.configuration = configuration
        self.name = name
        self.logger = logger
        accessLog = logger.logLevel <= .info ? AccessLog(label: logger.label) : nil
        metrics = ServerMetrics()
        tiles = TileService(backend: backend, cacheBytes: configuration.cacheBytes,
                            concurrency: configuration.generationConcurrency,
                            queueLimit: configuration.generationQueueLimit,
                            compressionLevel: configuration.compressionLevel, observer: metrics)
        // Routes change when writes are taken or when the store is shared (SQL, other replicas, other processes);
        // routes from files in memory, without a write token, are as finished as a tileset.
        let isLive = if case let .live(sync) = backend { configuration.writeToken != nil || sync.store.isDurable }
            else { false }
        tileResponder = TileResponder(service: tiles, cacheControl: configuration.cacheControl
            ?? (isLive ? ServerConfiguration.liveCacheControl : ServerConfiguration.staticCacheControl))
        let modified = time_t((configuration.lastModified ?? Date()).timeIntervalSince1970)
        tileLastModified = isLive ? nil : HTTPField(name: .lastModified, value: HTTPDateClock.format(modified))
        expireLog = try configuration.expireLogPath.map { try ExpireLog(path: $0) }
        recordLoad()
        if case let .live(sync) = backend {
            metrics.storeApplied.record(sync.status.applied)
            // Rows found bad when the routes were loaded at start-up count like those found later.
            metrics.storeBadRows.increment(by: sync.status.badRows)
            sync.observe(LiveRouteSync.Observer(
                applied: { [weak self] applied in self?.applied(applied) },
                storeError: { [weak self] message in
                    self?.metrics.storeErrors.increment()
                    self?.logger.warning("route store: \(message)")
                },
                reconnected: { [weak self] in
                    self?.metrics.storeReconnects.increment()
                    self?.logger.notice("route store: reachable again")
                }))
        }
    }

    /// Drops the tiles an application changed from the cache, appends them to the expire log, and counts it.
    /// Called in sequence order, whether the change came from this server's write or from the store's feed.
    private func applied(_ applied: LiveRouteSync.Applied) {
        let change = applied.change
        let cached = tiles.invalidate(change.invalidated, subtrees: change.subtrees)
        events.publish {
            ChangeEvent(sequence: applied.sequences.upperBound, generation: change.generation, ids: change.keys,
                        tiles: change.invalidated, subtrees: change.subtrees)
        }
        for observer in invalidationObservers.withLock({ $0 }) { observer(change) }
        cachedInvalidations.withLock { list in
            list.append((change.generation, cached))
            if list.count > 64 { list.removeFirst(list.count - 64) }
        }
        if let expireLog {
            do {
                try expireLog.append(change.invalidated, subtrees: change.subtrees)
            } catch {
                logger.error("\(error)")
            }
        }
        for problem in applied.badRows {
            logger.error("route store: skipped a row that makes no route: \(problem)")
        }
        metrics.storeBadRows.increment(by: applied.badRows.count)
        metrics.storeChangesApplied.increment(by: applied.changeCount)
        metrics.storeApplied.record(applied.sequences.upperBound)
        let (seconds, attoseconds) = applied.duration.components
        metrics.storeApplyTime.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        recordLoad()
    }

    /// Adds an observer of the tiles each application invalidates.
    func observeInvalidatedTiles(_ observer: @escaping @Sendable (LiveRouteSet.Change) -> Void) {
        invalidationObservers.withLock { $0.append(observer) }
    }

    /// How many cached tiles the application that made `generation` dropped, if it was among the last ones.
    func cachedInvalidations(generation: UInt64) -> Int? {
        cachedInvalidations.withLock { list in list.last { $0.generation == generation }?.cached }
    }

    /// Updates the gauges of what is loaded.
    func recordLoad() {
        if case let .live(sync) = tiles.backend {
            let snapshot = sync.routes.snapshot
            metrics.routesLoaded.record(snapshot.routeCount)
            metrics.pointsLoaded.record(snapshot.pointCount)
        }
    }
}
