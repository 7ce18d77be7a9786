import Foundation
import Hummingbird
import RouteTiles

/// Answers tile requests: from the cache, else generated once (single flight) under bounded concurrency, then
/// cached. Knows nothing of HTTP.
final class TileService: Sendable {
    let backend: TileBackend
    let cache: TileCache
    let metrics: ServerMetrics
    let limiter: GenerationLimiter
    private let flights = SingleFlight<FlightKey, TileCache.Entry>()
    private let compressors: CompressorPool

    struct FlightKey: Hashable, Sendable {
        var tile: TileID
        var generation: UInt64
    }

    init(backend: TileBackend, configuration: ServerConfiguration, metrics: ServerMetrics) {
        self.backend = backend
        self.metrics = metrics
        compressors = CompressorPool(level: configuration.compressionLevel)
        cache = TileCache(capacityBytes: configuration.cacheBytes)
        limiter = GenerationLimiter(concurrency: configuration.generationConcurrency,
                                    queueLimit: configuration.generationQueueLimit)
    }

    /// The tile's cache entry when it is cached (counted as a hit), else nil (and not counted: the caller goes on to
    /// `tile(_:)`, which counts the miss).
    func cachedTile(_ id: TileID) -> TileCache.Entry? {
        guard let hit = cache.get(id) else { return nil }
        metrics.cacheHits.increment()
        return hit
    }

    /// The tile's cache entry (empty `gzip` for an empty tile). Throws `GenerationLimiter.Overloaded` when the
    /// generation queue is full.
    func tile(_ id: TileID) async throws -> TileCache.Entry {
        if let hit = cache.get(id) {
            metrics.cacheHits.increment()
            return hit
        }
        metrics.cacheMisses.increment()
        let generation = backend.generation
        let (entry, _) = try await flights.run(FlightKey(tile: id, generation: generation)) { [self] in
            let entry = try await limiter.run { [self] in try generate(id) }
            let backend = self.backend
            cache.put(id, entry, isCurrent: { backend.generation == generation })
            metrics.cacheBytes.record(cache.usage.bytes)
            return entry
        }
        return entry
    }

    /// Cuts (live routes) or reads (tileset) one tile and compresses it.
    private func generate(_ id: TileID) throws -> TileCache.Entry {
        let started = DispatchTime.now().uptimeNanoseconds
        defer { metrics.generationTime.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        let gzip: [UInt8]
        switch backend {
        case let .live(sync):
            guard let mvt = try sync.routes.snapshot.tile(z: id.z, x: id.x, y: id.y) else { return .empty }
            gzip = try compressors.compress(mvt)
        case let .tileset(source):
            guard let stored = try source.gzipTile(id), !stored.isEmpty else { return .empty }
            gzip = Gzip.isCompressed(stored) ? stored : try compressors.compress(stored)
        }
        return TileCache.Entry(gzip: ByteBuffer(bytes: gzip), etag: TileHasher.etag(gzip))
    }

    /// Drops changed tiles from the cache; returns how many were cached.
    @discardableResult
    func invalidate(_ tiles: [TileID]) -> Int {
        let removed = cache.remove(tiles)
        metrics.tilesInvalidated.increment(by: tiles.count)
        metrics.cacheBytes.record(cache.usage.bytes)
        return removed
    }
}
