import RouteTilesModel

/// A cache of tiles cut from live routes (`LiveRouteSync.attach(_:)`), told of every application synchronously,
/// under the lock that orders them, right after the new snapshot is published and before the write that made it is
/// answered: a tile read after a write's answer is never an older one from the cache.
public protocol LiveTileCache: AnyObject, Sendable {
    /// Drops `tiles` and every tile under `subtrees`; returns how many of them were cached.
    func drop(_ tiles: [TileID], subtrees: [TileID]) -> Int
}
