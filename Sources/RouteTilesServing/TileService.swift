import Foundation
import RouteTilesModel
import RouteTilesTiling

/// What a `TileService` reports as it works, for a server's metrics. Every method is called on the request's
/// path, so it must be cheap. Each has a default that does nothing: an observer implements what it counts, and
/// `struct NoMetrics: TileServiceObserver {}` counts nothing.
public protocol TileServiceObserver: Sendable {
    /// A tile was found in the cache.
    func cacheHit()
    /// A tile was not in the cache and will be generated (or joined to a generation under way).
    func cacheMiss()
    /// One tile was cut (or read) and compressed in `nanoseconds`.
    func generated(nanoseconds: Int64)
    /// The cache now holds `bytes`.
    func cacheUsage(bytes: Int)
    /// `count` tiles were invalidated.
    func invalidated(count: Int)
}

extension TileServiceObserver {
    /// Counts nothing.
    public func cacheHit() {}
    /// Counts nothing.
    public func cacheMiss() {}
    /// Records nothing.
    public func generated(nanoseconds: Int64) {}
    /// Records nothing.
    public func cacheUsage(bytes: Int) {}
    /// Counts nothing.
    public func invalidated(count: Int) {}
}

/// Answers tile requests: from the cache, else generated once (single flight) under bounded concurrency, then
/// cached. Knows nothing of HTTP.
public final class TileService<Bytes: TileBytes>: Sendable {
    /// Where tiles come from.
    public let backend: TileBackend
    /// The compressed tiles kept in memory.
    public let cache: TileCache<Bytes>
    /// The compressed tile variants (window tiles, groups' tiles) kept in memory, dropped with the default tiles.
    public let variantCache: VariantTileCache<Bytes>
    package let limiter: GenerationLimiter
    @usableFromInline let observer: any TileServiceObserver
    private let flights = SingleFlight<FlightKey, TileCache<Bytes>.Entry>()
    private let variantFlights = SingleFlight<VariantFlightKey, TileCache<Bytes>.Entry>()
    private let compressors: CompressorPool
    private let dropper: TileCacheDropper<Bytes>

    struct FlightKey: Hashable, Sendable {
        var tile: TileID
        var generation: UInt64
    }

    struct VariantFlightKey: Hashable, Sendable {
        var tile: TileID
        var variant: TileVariant
        var generation: UInt64
    }

    /// A service over `backend` with an empty cache.
    /// - Parameters:
    ///   - backend: where tiles come from.
    ///   - cacheBytes: the most bytes of compressed tiles kept in memory.
    ///   - concurrency: tiles generated at once; `queueLimit` more may wait, and past that `tile(_:)` throws
    ///     `GenerationLimiter.Overloaded`.
    ///   - queueLimit: tiles that may wait for a generation slot.
    ///   - compressionLevel: gzip level of tiles cut on demand.
    ///   - windowCacheBytes: the most bytes of compressed tile variants (window tiles, groups' tiles) kept in memory.
    ///   - observer: told of hits, misses, generations and invalidations, for metrics.
    public init(backend: TileBackend, cacheBytes: Int, concurrency: Int, queueLimit: Int, compressionLevel: Int32 = 6,
                windowCacheBytes: Int = 64 << 20, observer: any TileServiceObserver) {
        self.backend = backend
        self.observer = observer
        compressors = CompressorPool(level: compressionLevel)
        cache = TileCache(capacityBytes: cacheBytes)
        variantCache = VariantTileCache(capacityBytes: windowCacheBytes)
        limiter = GenerationLimiter(concurrency: concurrency, queueLimit: queueLimit)
        dropper = TileCacheDropper(cache: cache, variants: variantCache, observer: observer)
        // Live routes drop what each change invalidated from the cache themselves, as they apply it.
        backend.live?.attach(dropper)
    }

    /// The tile's cache entry when it is cached (counted as a hit), else nil (and not counted: the caller goes on to
    /// `tile(_:)`, which counts the miss). Inlinable, so that a server's cached requests run code specialized for
    /// its `Bytes`.
    @inlinable
    public func cachedTile(_ id: TileID) -> TileCache<Bytes>.Entry? {
        guard let hit = cache.get(id) else { return nil }
        observer.cacheHit()
        return hit
    }

    /// The tile's cache entry (empty `gzip` for an empty tile). Throws `GenerationLimiter.Overloaded` when the
    /// generation queue is full.
    public func tile(_ id: TileID) async throws -> TileCache<Bytes>.Entry {
        if let hit = cachedTile(id) { return hit }
        observer.cacheMiss()
        let generation = backend.generation
        let (entry, _) = try await flights.run(FlightKey(tile: id, generation: generation)) { [self] in
            let entry = try await limiter.run { [self] in try generate(id) }
            let backend = self.backend
            cache.put(id, entry, isCurrent: { backend.generation == generation })
            observer.cacheUsage(bytes: cache.usage.bytes)
            return entry
        }
        return entry
    }

    /// The cache entry of a variant of the tile (a time window, some groups' routes): cached, else cut once (single
    /// flight) under the same bound as default tiles, and cached with them under its own key. Throws
    /// `GenerationLimiter.Overloaded` when the generation queue is full, and `TimeWindowUnavailable` or
    /// `GroupsUnavailable` for a finished tileset.
    public func variantTile(_ id: TileID, variant: TileVariant) async throws -> TileCache<Bytes>.Entry {
        if variant.isDefault { return try await tile(id) }
        let generation = backend.generation
        var keyed = variant
        if keyed.grid != .webMercator { keyed.generation = generation }
        let variant = keyed
        if let hit = variantCache.get(id, variant) {
            observer.cacheHit()
            return hit
        }
        observer.cacheMiss()
        let (entry, _) = try await variantFlights.run(VariantFlightKey(tile: id, variant: variant, generation: generation)) {
            [self] in
            let entry = try await limiter.run { [self] in try generate(id, variant: variant) }
            let backend = self.backend
            variantCache.put(id, variant, entry, isCurrent: { backend.generation == generation })
            return entry
        }
        return entry
    }

    /// Cuts (live routes) or reads (tileset) one tile, its `variant` when one is given, and compresses it.
    private func generate(_ id: TileID, variant: TileVariant? = nil) throws -> TileCache<Bytes>.Entry {
        let started = DispatchTime.now().uptimeNanoseconds
        defer { observer.generated(nanoseconds: Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        let produced = try variant.map { try backend.producer.tileBytes(id, variant: $0) } ?? backend.producer.tileBytes(id)
        guard let bytes = produced, !bytes.isEmpty else { return .empty }
        // An MVT starts with a field tag (0x1a, its layers), never with gzip's magic number.
        let gzip = Gzip.isCompressed(bytes) ? bytes : try compressors.compress(bytes)
        return TileCache.Entry(gzip: Bytes(tileBytes: gzip), etag: TileHasher.etag(gzip))
    }
}
