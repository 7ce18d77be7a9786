import RouteTilesModel
import RouteTilesTiling
import Synchronization

/// Compressed tile variants kept in memory: window tiles (`/tiles/{z}/{x}/{y}.mvt?from=…&to=…`) and the tiles of
/// some groups' routes (a reader whose credential reads only those groups), each under its own key so that one
/// variant is never served for another. Bounded in bytes, evicting the least recently used; dropped by tile with the
/// default tiles, so that a change drops every variant of every tile it changed. Thread-safe.
///
/// A variant holds a subset of what the default tile of the same z/x/y draws (the routes with times cut in time, or
/// the routes of some groups), so the tiles a change invalidates are at least those whose variants changed.
/// Variants of a tile are found through an index by tile; least-recent order is a queue of use stamps, of which the
/// stale ones are skipped.
public final class VariantTileCache<Bytes: TileBytes>: Sendable {
    /// A variant of a tile.
    public struct Key: Hashable, Sendable {
        public var tile: TileID
        public var variant: TileVariant
    }

    private struct Stored {
        var entry: TileCache<Bytes>.Entry
        var cost: Int
        var stamp: UInt64
    }

    private struct State {
        var entries: [Key: Stored] = [:]
        var byTile: [TileID: Set<TileVariant>] = [:]
        /// Keys in the order of their uses; an item is current when its stamp is the entry's.
        var uses: [(key: Key, stamp: UInt64)] = []
        var usesStart = 0
        var clock: UInt64 = 0
        var bytes = 0

        mutating func touch(_ key: Key) -> UInt64 {
            clock += 1
            uses.append((key, clock))
            return clock
        }

        mutating func remove(_ key: Key) -> Bool {
            guard let stored = entries.removeValue(forKey: key) else { return false }
            bytes -= stored.cost
            byTile[key.tile]?.remove(key.variant)
            if byTile[key.tile]?.isEmpty == true { byTile[key.tile] = nil }
            return true
        }

        /// Drops the stale uses at the front, and compacts the queue when most of it is stale.
        mutating func tidy() {
            while usesStart < uses.count {
                let use = uses[usesStart]
                if entries[use.key]?.stamp == use.stamp { break }
                usesStart += 1
            }
            if usesStart > 1024, usesStart * 2 > uses.count {
                uses.removeFirst(usesStart)
                usesStart = 0
            }
            if uses.count > 4 * max(entries.count, 256) {
                uses = uses[usesStart...].filter { entries[$0.key]?.stamp == $0.stamp }
                usesStart = 0
            }
        }
    }

    private let state = Mutex(State())
    /// The most bytes of tiles kept.
    public let capacityBytes: Int

    /// An empty cache that keeps at most `capacityBytes` of tiles.
    public init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
    }

    /// The cached variant of a tile, counted as a use; nil when not cached.
    public func get(_ tile: TileID, _ variant: TileVariant) -> TileCache<Bytes>.Entry? {
        let key = Key(tile: tile, variant: variant)
        return state.withLock { state in
            guard let stored = state.entries[key] else { return nil }
            let stamp = state.touch(key)
            state.entries[key]?.stamp = stamp
            state.tidy()
            return stored.entry
        }
    }

    /// Keeps a variant of a tile, evicting the least recently used past the bound; not when `isCurrent()` says, under the
    /// lock, that a change has happened since it was cut (the change may have dropped its tile already).
    public func put(_ tile: TileID, _ variant: TileVariant, _ entry: TileCache<Bytes>.Entry,
                    isCurrent: () -> Bool = { true }) {
        let key = Key(tile: tile, variant: variant)
        let cost = entry.gzip.tileByteCount + 96
        guard cost <= capacityBytes else { return }
        state.withLock { state in
            guard isCurrent() else { return }
            _ = state.remove(key)
            let stamp = state.touch(key)
            state.entries[key] = Stored(entry: entry, cost: cost, stamp: stamp)
            state.byTile[key.tile, default: []].insert(variant)
            state.bytes += cost
            while state.bytes > capacityBytes, state.usesStart < state.uses.count {
                let oldest = state.uses[state.usesStart]
                state.usesStart += 1
                if state.entries[oldest.key]?.stamp == oldest.stamp { _ = state.remove(oldest.key) }
            }
            state.tidy()
        }
    }

    /// Drops every variant of `tiles`; returns how many were dropped.
    @discardableResult
    public func remove(_ tiles: some Sequence<TileID>) -> Int {
        state.withLock { state in
            var removed = 0
            for tile in tiles {
                guard let variants = state.byTile[tile] else { continue }
                for variant in variants where state.remove(Key(tile: tile, variant: variant)) { removed += 1 }
            }
            return removed
        }
    }

    /// Drops every variant of every tile under (or at) one of `subtrees`.
    @discardableResult
    public func remove(under subtrees: [TileID]) -> Int {
        guard !subtrees.isEmpty else { return 0 }
        let under = TileSubtrees(subtrees)
        return state.withLock { state in
            let doomed = state.byTile.keys.filter(under.contain)
            var removed = 0
            for tile in doomed {
                for variant in state.byTile[tile] ?? [] where state.remove(Key(tile: tile, variant: variant)) { removed += 1 }
            }
            return removed
        }
    }

    /// How many tile variants and bytes are kept.
    public var usage: (tiles: Int, bytes: Int) {
        state.withLock { ($0.entries.count, $0.bytes) }
    }
}
