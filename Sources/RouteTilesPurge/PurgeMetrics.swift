import Metrics

/// The counters of one cache's purges, labelled with the cache's URL (`cache`), recorded through the factory the
/// server's `/metrics` reads (`RouteTilesServer.metricsFactory`).
struct PurgeMetrics: Sendable {
    /// Tiles the cache confirmed purged.
    let purged: Counter
    /// Tiles whose purge failed (5xx, 429, timeout, connection error) and went back to the queue.
    let retried: Counter
    /// Purges and bans the cache refused (405, 403, other 4xx): not retried.
    let refused: Counter
    /// Times the queue overflowed, so that a ban replaced the tiles it held.
    let overflows: Counter
    /// Bans the cache accepted.
    let bans: Counter
    /// Tiles waiting.
    let queued: Gauge

    init(cache: String, factory: any MetricsFactory) {
        let dimensions = [("cache", cache)]
        purged = Counter(label: "routetiles_purged_tiles_total", dimensions: dimensions, factory: factory)
        retried = Counter(label: "routetiles_purge_retries_total", dimensions: dimensions, factory: factory)
        refused = Counter(label: "routetiles_purge_refused_total", dimensions: dimensions, factory: factory)
        overflows = Counter(label: "routetiles_purge_queue_overflows_total", dimensions: dimensions, factory: factory)
        bans = Counter(label: "routetiles_purge_bans_total", dimensions: dimensions, factory: factory)
        queued = Gauge(label: "routetiles_purge_queue_tiles", dimensions: dimensions, factory: factory)
    }
}
