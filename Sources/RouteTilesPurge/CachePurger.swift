import AsyncHTTPClient
import Logging
import Metrics
import NIOCore
import RouteTiles
import ServiceLifecycle

/// Tells the HTTP caches in front of a server (Varnish, or any cache that takes a purge request per URL) of every
/// tile whose bytes changed, off the write path.
///
/// `purge(_:)` only queues the tiles, one queue per cache, and returns at once: a write never waits for a cache.
/// `run()` (a `Service`, beside the HTTP server) sends each cache its purges a batch at a time, `concurrency` at
/// once, over kept-alive connections. A cache that fails to answer (5xx, 429, timeout, connection refused) gets its
/// tiles again after a backoff; a cache that refuses (405, 403) is logged and counted, never asked again for those
/// tiles. When more than `queueLimit` tiles wait for one cache, they are dropped and one `BAN` of every tile under
/// the cache's `/tiles/` is sent instead (and retried like a purge), which cannot leave a stale tile behind.
package final class CachePurger: Service, Sendable {
    /// How purges are sent.
    package struct Settings: Sendable {
        /// Requests in flight per cache.
        package var concurrency = 8
        /// Tiles taken from the queue per round.
        package var batchSize = 256
        /// Tiles that may wait per cache; past it, a ban replaces them.
        package var queueLimit = 100_000
        /// The timeout of one purge request.
        package var timeout = TimeAmount.seconds(2)
        /// The first wait after a failed round; each failure in a row doubles it, up to `maxBackoff`.
        package var firstBackoff = Duration.milliseconds(100)
        package var maxBackoff = Duration.seconds(5)

        package init() {}
    }

    let nodes: [CachePurgeNode]
    private let logger: Logger

    /// - Parameter metricsFactory: where the purge counters go (a server's `metricsFactory`, for its `/metrics`).
    package init(targets: [PurgeTarget], settings: Settings = Settings(), logger: Logger,
                metricsFactory: any MetricsFactory) {
        self.logger = logger
        nodes = targets.map { target in
            CachePurgeNode(target: target, settings: settings,
                           metrics: PurgeMetrics(cache: target.base, factory: metricsFactory), logger: logger)
        }
    }

    /// Queues a purge of `tiles` for every cache. Returns at once.
    package func purge(_ tiles: [TileID]) {
        guard !tiles.isEmpty else { return }
        for node in nodes { node.add(tiles) }
    }

    /// Queues a purge of the tiles a live change invalidated for every cache. A change with subtrees (an append
    /// drawn in more tiles than it lists, `LiveRouteSet.Change.subtrees`) is sent as one ban of every tile instead,
    /// the one request that reaches every tile under them. Returns at once.
    package func purge(_ change: LiveRouteSet.Change) {
        guard change.subtrees.isEmpty else {
            let reason = "a change of \(change.keys.joined(separator: ", ")) is drawn in tiles below \(change.subtrees.count) listed subtree(s)"
            for node in nodes { node.ban(because: reason) }
            return
        }
        purge(change.invalidated)
    }

    /// Tiles waiting, summed over the caches.
    package var queuedTiles: Int { nodes.reduce(0) { $0 + $1.queued } }

    /// Sends purges until the service group shuts down (or the task is cancelled).
    package func run() async throws {
        var configuration = HTTPClient.Configuration(decompression: .disabled)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = nodes.first?.settings.concurrency ?? 8
        configuration.timeout.connect = .seconds(1)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for node in self.nodes { group.addTask { await node.run(client: client) } }
            }
        }
        for node in nodes where node.queued > 0 {
            logger.warning("cache \(node.target.base): \(node.queued) tile purge(s) not sent at shutdown")
        }
        try? await client.shutdown()
    }
}
