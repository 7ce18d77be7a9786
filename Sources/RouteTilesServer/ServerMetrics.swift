import Metrics
import Prometheus
import RouteTiles
import Synchronization

/// The server's metrics, recorded through swift-metrics into its own Prometheus registry (not the global
/// `MetricsSystem`, so several servers can run in one process) and exposed at `/metrics`.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let factory: PrometheusMetricsFactory
    private let requestCounters = Mutex<[Int: Metrics.Counter]>([:])
    let cacheHits: Metrics.Counter
    let cacheMisses: Metrics.Counter
    let bytesSent: Metrics.Counter
    let overloaded: Metrics.Counter
    let fastAnswers: Metrics.Counter
    let tilesInvalidated: Metrics.Counter
    let generationTime: Metrics.Timer
    let routesLoaded: Metrics.Gauge
    let pointsLoaded: Metrics.Gauge
    let cacheBytes: Metrics.Gauge
    let storeChangesApplied: Metrics.Counter
    let storeApplyTime: Metrics.Timer
    let storeErrors: Metrics.Counter
    let storeReconnects: Metrics.Counter
    let storeBadRows: Metrics.Counter
    /// Times the reader of the live changes fell behind its bounds and counted every tile as changed.
    let changeFeedGaps: Metrics.Counter
    /// Appended fixes the glitch filters dropped, by reason (`zero`, `invalid`).
    let fixesDroppedZero: Metrics.Counter
    let fixesDroppedInvalid: Metrics.Counter
    let fixesDroppedSpeed: Metrics.Counter
    let fixesDroppedPeriod: Metrics.Counter
    let fixesDroppedRepeated: Metrics.Counter
    let storeApplied: Metrics.Gauge
    let storeNewest: Metrics.Gauge
    /// This server's group commits and the writes they carried, since the start (read from the sync at scrape).
    let storeCommits: Metrics.Gauge
    let storeCommittedWrites: Metrics.Gauge
    let accessLogDropped: Metrics.Gauge
    /// Credentials that did not verify (a 401 for a token sent), and writes refused for a route the credential does
    /// not name (403).
    let authenticationFailures: Metrics.Counter
    let writesForbidden: Metrics.Counter
    private let rateLimits = Mutex<[String: Metrics.Counter]>([:])
    private let inFlight = Atomic<Int>(0)
    private let inFlightGauge: Metrics.Gauge

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["routetiles_tile_generation_seconds"] = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .seconds(1),
        ]
        factory.durationHistogramBuckets["routetiles_store_apply_seconds"] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .seconds(1), .seconds(5),
        ]
        self.factory = factory
        cacheHits = Metrics.Counter(label: "routetiles_tile_cache_hits_total", factory: factory)
        cacheMisses = Metrics.Counter(label: "routetiles_tile_cache_misses_total", factory: factory)
        bytesSent = Metrics.Counter(label: "routetiles_response_bytes_total", factory: factory)
        overloaded = Metrics.Counter(label: "routetiles_overloaded_total", factory: factory)
        fastAnswers = Metrics.Counter(label: "routetiles_http_fast_answers_total", factory: factory)
        tilesInvalidated = Metrics.Counter(label: "routetiles_tiles_invalidated_total", factory: factory)
        generationTime = Metrics.Timer(label: "routetiles_tile_generation_seconds", factory: factory)
        routesLoaded = Metrics.Gauge(label: "routetiles_routes", factory: factory)
        pointsLoaded = Metrics.Gauge(label: "routetiles_points", factory: factory)
        cacheBytes = Metrics.Gauge(label: "routetiles_tile_cache_bytes", factory: factory)
        storeChangesApplied = Metrics.Counter(label: "routetiles_store_changes_applied_total", factory: factory)
        storeApplyTime = Metrics.Timer(label: "routetiles_store_apply_seconds", factory: factory)
        storeErrors = Metrics.Counter(label: "routetiles_store_errors_total", factory: factory)
        storeReconnects = Metrics.Counter(label: "routetiles_store_reconnects_total", factory: factory)
        changeFeedGaps = Metrics.Counter(label: "routetiles_change_feed_gaps_total", factory: factory)
        storeBadRows = Metrics.Counter(label: "routetiles_store_bad_rows_total", factory: factory)
        fixesDroppedZero = Metrics.Counter(label: "routetiles_fixes_dropped_total", dimensions: [("reason", "zero")], factory: factory)
        fixesDroppedInvalid = Metrics.Counter(label: "routetiles_fixes_dropped_total", dimensions: [("reason", "invalid")],
                                              factory: factory)
        fixesDroppedSpeed = Metrics.Counter(label: "routetiles_fixes_dropped_total", dimensions: [("reason", "speed")],
                                            factory: factory)
        fixesDroppedPeriod = Metrics.Counter(label: "routetiles_fixes_dropped_total", dimensions: [("reason", "period")],
                                             factory: factory)
        fixesDroppedRepeated = Metrics.Counter(label: "routetiles_fixes_dropped_total", dimensions: [("reason", "repeated")],
                                               factory: factory)
        storeApplied = Metrics.Gauge(label: "routetiles_store_applied_sequence", factory: factory)
        storeNewest = Metrics.Gauge(label: "routetiles_store_newest_sequence", factory: factory)
        storeCommits = Metrics.Gauge(label: "routetiles_store_group_commits", factory: factory)
        storeCommittedWrites = Metrics.Gauge(label: "routetiles_store_group_commit_writes", factory: factory)
        accessLogDropped = Metrics.Gauge(label: "routetiles_access_log_dropped_lines", factory: factory)
        inFlightGauge = Metrics.Gauge(label: "routetiles_http_requests_in_flight", factory: factory)
        authenticationFailures = Metrics.Counter(label: "routetiles_authentication_failures_total", factory: factory)
        writesForbidden = Metrics.Counter(label: "routetiles_writes_forbidden_total", factory: factory)
    }

    func authenticationFailed() { authenticationFailures.increment() }

    /// Counts a request refused by the rate limit `limit` (`routetiles_rate_limited_total{limit}`).
    func rateLimited(_ limit: String) {
        rateLimits.withLock { counters in
            if counters[limit] == nil {
                counters[limit] = Metrics.Counter(label: "routetiles_rate_limited_total", dimensions: [("limit", limit)], factory: factory)
            }
            return counters[limit]
        }?.increment()
    }
    func writeForbidden(count: Int = 1) { writesForbidden.increment(by: count) }

    /// Counts a request that has started (its head arrived; its body may still be coming).
    func requestStarted() {
        inFlightGauge.record(inFlight.add(1, ordering: .relaxed).newValue)
    }

    /// Counts a request that has its response.
    func requestEnded() {
        inFlightGauge.record(inFlight.subtract(1, ordering: .relaxed).newValue)
    }

    /// Counts a response by status code.
    func countRequest(status: Int) {
        let counter = requestCounters.withLock { counters -> Metrics.Counter in
            if let c = counters[status] { return c }
            let c = Metrics.Counter(label: "routetiles_http_requests_total", dimensions: [("status", String(status))],
                                    factory: factory)
            counters[status] = c
            return c
        }
        counter.increment()
    }

    /// The Prometheus text exposition.
    func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// What the core's `TileService` reports, counted here.
extension ServerMetrics: TileServiceObserver {
    func cacheHit() { cacheHits.increment() }
    func cacheMiss() { cacheMisses.increment() }
    func generated(nanoseconds: Int64) { generationTime.recordNanoseconds(nanoseconds) }
    func cacheUsage(bytes: Int) { cacheBytes.record(bytes) }
    func invalidated(count: Int) { tilesInvalidated.increment(by: count) }

    /// Counts the fixes the glitch filters dropped.
    func dropped(_ fixes: FixFilter.Dropped) {
        if fixes.zero > 0 { fixesDroppedZero.increment(by: fixes.zero) }
        if fixes.invalid > 0 { fixesDroppedInvalid.increment(by: fixes.invalid) }
        if fixes.speed > 0 { fixesDroppedSpeed.increment(by: fixes.speed) }
        if fixes.period > 0 { fixesDroppedPeriod.increment(by: fixes.period) }
        if fixes.repeated > 0 { fixesDroppedRepeated.increment(by: fixes.repeated) }
    }
}
