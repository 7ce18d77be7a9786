import RouteTilesModel
import Synchronization

/// Where applications go, in order and under the apply lock: the attached caches drop what changed (and the count is
/// the write's answer), then every reader of `changes()` gets the event, which it handles outside every lock.
struct ChangeOutlets: Sendable {
    var caches: [any LiveTileCache] = []
    var readers: [LiveChanges] = []
}

extension LiveRouteSync {
    /// Tells `cache` of every later application: it drops the tiles that changed before the write that changed them
    /// is answered, and the write's answer counts them (`Change.cachedTilesDropped`).
    public func attach(_ cache: any LiveTileCache) {
        outlets.withLock { $0.caches.append(cache) }
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
        let caches = outlets.withLock { $0.caches }
        for cache in caches {
            applied.change.cachedTilesDropped += cache.drop(applied.change.invalidated, subtrees: applied.change.subtrees)
        }
        publish(.applied(applied))
        return applied
    }

    /// Hands `event` to every reader, forgetting those that finished.
    func publish(_ event: LiveEvent) {
        let readers = outlets.withLock { outlets in
            outlets.readers.removeAll { $0.isFinished }
            return outlets.readers
        }
        for reader in readers { reader.publish(event) }
    }
}
