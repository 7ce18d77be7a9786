import RouteTilesModel
import Synchronization

/// Compressed tiles kept in memory, bounded in bytes, evicting the least recently used. Thread-safe.
///
/// A doubly linked list threaded through an array of slots (no per-entry allocation beyond the tile bytes), with a
/// dictionary from tile to slot.
///
/// `get` is inlinable, with the state it reads: a server that keeps its own `Bytes` (RouteTilesServer keeps NIO's
/// `ByteBuffer`) then runs a copy specialized for that type on every cached request, rather than the generic code,
/// which would reach each slot through the type's metadata.
public final class TileCache<Bytes: TileBytes>: Sendable {
    /// A cached tile: its gzip bytes (empty for a tile with no content) and its entity tag.
    public struct Entry: Sendable {
        /// The tile's gzip bytes; empty when no route touches the tile.
        public var gzip: Bytes
        /// The strong entity tag of the gzip bytes (empty for an empty tile).
        public var etag: String

        /// An entry of `gzip` bytes tagged `etag`.
        @inlinable
        public init(gzip: Bytes, etag: String) {
            self.gzip = gzip
            self.etag = etag
        }

        /// An empty tile: no route touches it.
        public static var empty: Entry { Entry(gzip: .noTileBytes, etag: "") }
        /// Whether the tile has no content (answered with 204).
        public var isEmpty: Bool { gzip.tileByteCount == 0 }
    }

    @usableFromInline
    struct Slot {
        @usableFromInline var tile: TileID
        @usableFromInline var entry: Entry
        @usableFromInline var cost: Int
        @usableFromInline var newer: Int32
        @usableFromInline var older: Int32
    }

    @usableFromInline
    struct State {
        @usableFromInline var slots: [Slot] = []
        @usableFromInline var free: [Int32] = []
        @usableFromInline var index: [TileID: Int32] = [:]
        @usableFromInline var newest: Int32 = -1
        @usableFromInline var oldest: Int32 = -1
        @usableFromInline var bytes = 0

        @inlinable
        mutating func unlink(_ i: Int32) {
            let slot = slots[Int(i)]
            if slot.newer >= 0 { slots[Int(slot.newer)].older = slot.older } else { newest = slot.older }
            if slot.older >= 0 { slots[Int(slot.older)].newer = slot.newer } else { oldest = slot.newer }
        }

        @inlinable
        mutating func pushNewest(_ i: Int32) {
            slots[Int(i)].newer = -1
            slots[Int(i)].older = newest
            if newest >= 0 { slots[Int(newest)].newer = i }
            newest = i
            if oldest < 0 { oldest = i }
        }

        mutating func remove(_ i: Int32) {
            unlink(i)
            bytes -= slots[Int(i)].cost
            index[slots[Int(i)].tile] = nil
            slots[Int(i)].entry.gzip = .noTileBytes
            free.append(i)
        }
    }

    /// The most bytes the cache holds (tile bytes plus a fixed per-entry overhead).
    public let capacity: Int
    package static var overhead: Int { 96 }
    @usableFromInline let state = Mutex(State())

    /// An empty cache holding at most `capacityBytes` (0 keeps nothing).
    public init(capacityBytes: Int) {
        capacity = max(0, capacityBytes)
    }

    /// The cached tile, marked as most recently used.
    @inlinable
    public func get(_ tile: TileID) -> Entry? {
        state.withLock { s in
            guard let i = s.index[tile] else { return nil }
            s.unlink(i)
            s.pushNewest(i)
            return s.slots[Int(i)].entry
        }
    }

    /// Stores a tile, evicting the least recently used ones until it fits. A tile larger than the whole cache is
    /// not kept. `isCurrent`, checked under the cache's lock, can veto the store: a tile cut from routes that
    /// changed meanwhile must not outlive the invalidation that removed it.
    public func put(_ tile: TileID, _ entry: Entry, isCurrent: () -> Bool = { true }) {
        let cost = entry.gzip.tileByteCount + entry.etag.utf8.count + Self.overhead
        state.withLock { s in
            guard isCurrent() else { return }
            if let old = s.index[tile] { s.remove(old) }
            guard cost <= capacity else { return }
            while s.bytes + cost > capacity, s.oldest >= 0 { s.remove(s.oldest) }
            let slot = Slot(tile: tile, entry: entry, cost: cost, newer: -1, older: -1)
            let i: Int32
            if let reused = s.free.popLast() {
                i = reused
                s.slots[Int(i)] = slot
            } else {
                i = Int32(s.slots.count)
                s.slots.append(slot)
            }
            s.index[tile] = i
            s.bytes += cost
            s.pushNewest(i)
        }
    }

    /// Drops the given tiles; returns how many were cached.
    @discardableResult
    public func remove<S: Sequence>(_ tiles: S) -> Int where S.Element == TileID {
        state.withLock { s in
            var removed = 0
            for tile in tiles {
                if let i = s.index[tile] {
                    s.remove(i)
                    removed += 1
                }
            }
            return removed
        }
    }

    /// Drops every cached tile that lies under one of `subtrees` (the tile itself or any tile deeper within it):
    /// one pass over the cached tiles, so the work is bounded by the cache's size whatever the subtrees hold.
    /// Returns how many were cached.
    @discardableResult
    public func remove(under subtrees: [TileID]) -> Int {
        guard !subtrees.isEmpty else { return 0 }
        let under = TileSubtrees(subtrees)
        return state.withLock { s in
            let doomed = s.index.compactMap { tile, i in under.contain(tile) ? i : nil }
            for i in doomed { s.remove(i) }
            return doomed.count
        }
    }

    /// Drops everything.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// Bytes held and number of tiles.
    public var usage: (bytes: Int, tiles: Int) {
        state.withLock { ($0.bytes, $0.index.count) }
    }
}
