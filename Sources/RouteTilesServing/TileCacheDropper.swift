import RouteTilesLive
import RouteTilesModel

/// Drops changed tiles from a `TileService`'s cache (and every variant of them from its variant cache) and tells its
/// observer: attached to live routes
/// (`LiveRouteSync.attach(_:)`), so that the core drops them under the lock that orders applications, before the
/// write that changed them is answered.
final class TileCacheDropper<Bytes: TileBytes>: LiveTileCache {
    let cache: TileCache<Bytes>
    let variants: VariantTileCache<Bytes>
    let observer: any TileServiceObserver

    init(cache: TileCache<Bytes>, variants: VariantTileCache<Bytes>, observer: any TileServiceObserver) {
        self.cache = cache
        self.variants = variants
        self.observer = observer
    }

    func drop(_ tiles: [TileID], subtrees: [TileID]) -> Int {
        variants.remove(tiles)
        variants.remove(under: subtrees)
        let removed = cache.remove(tiles) + cache.remove(under: subtrees)
        observer.invalidated(count: tiles.count)
        observer.cacheUsage(bytes: cache.usage.bytes)
        return removed
    }
}
