import RouteTilesModel
import Synchronization

/// Where applications go, in order and under the apply lock: the attached caches drop what changed (and the count is
/// the write's answer), then every reader of `changes()` gets the event, which it handles outside every lock.
struct ChangeOutlets: Sendable {
    /// Held weakly: a cache lives as long as what serves from it (a `TileService`), not as long as the routes.
    struct AttachedCache: Sendable {
        weak let cache: (any LiveTileCache)?
    }

    var caches: [AttachedCache] = []
    var readers: [LiveChanges] = []

    /// The caches and readers still there, forgetting those that are gone or finished.
    mutating func current() -> (caches: [any LiveTileCache], readers: [LiveChanges]) {
        caches.removeAll { $0.cache == nil }
        readers.removeAll { $0.isFinished }
        return (caches.compactMap(\.cache), readers)
    }
}

extension LiveRouteSync {
    /// Tells `cache` of every later application, while it exists (it is held weakly): it drops the tiles that
    /// changed before the write that changed them is answered, and the write's answer counts them
    /// (`Change.cachedTilesDropped`).
    public func attach(_ cache: any LiveTileCache) {
        outlets.withLock { $0.caches.append(ChangeOutlets.AttachedCache(cache: cache)) }
    }

    /// Every later application, store error and reconnection, in order, for one reader (a server's expire log,
    /// events, purges and metrics). Bounded by `eventLimit` events and `tileLimit` tiles: a reader that falls behind
    /// gets a `.gap` in place of what it missed, and never holds up the writes. Call `finish()` when done.
    public func changes(eventLimit: Int = 1024, tileLimit: Int = 1 << 21) -> LiveChanges {
        let reader = LiveChanges(eventLimit: eventLimit, tileLimit: tileLimit)
        outlets.withLock { $0.readers.append(reader) }
        return reader
    }

    /// Drops `applied`'s tiles from the attached caches, then hands it to the readers; returns it with the count of
    /// cached tiles dropped. Called under the apply lock, in sequence order.
    func deliver(_ applied: Applied) -> Applied {
        var applied = applied
        let (caches, readers) = outlets.withLock { $0.current() }
        for cache in caches {
            applied.change.cachedTilesDropped += cache.drop(applied.change.invalidated, subtrees: applied.change.subtrees)
        }
        for reader in readers { reader.publish(.applied(applied)) }
        return applied
    }

    /// Hands `event` to every reader.
    func publish(_ event: LiveEvent) {
        for reader in outlets.withLock({ $0.current().readers }) { reader.publish(event) }
    }
}
