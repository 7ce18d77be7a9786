import RouteTilesLive
import RouteTilesModel

/// Drops changed tiles from a `TileService`'s cache (and every window of them from its window cache) and tells its
/// observer: attached to live routes
/// (`LiveRouteSync.attach(_:)`), so that the core drops them under the lock that orders applications, before the
/// write that changed them is answered.
final class TileCacheDropper<Bytes: TileBytes>: LiveTileCache {
    let cache: TileCache<Bytes>
    let windows: WindowTileCache<Bytes>
    let observer: any TileServiceObserver

    init(cache: TileCache<Bytes>, windows: WindowTileCache<Bytes>, observer: any TileServiceObserver) {
        self.cache = cache
        self.windows = windows
        self.observer = observer
    }

    func drop(_ tiles: [TileID], subtrees: [TileID]) -> Int {
        windows.remove(tiles)
        windows.remove(under: subtrees)
        let removed = cache.remove(tiles) + cache.remove(under: subtrees)
        observer.invalidated(count: tiles.count)
        observer.cacheUsage(bytes: cache.usage.bytes)
        return removed
    }
}
