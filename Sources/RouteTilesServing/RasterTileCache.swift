import RouteTilesModel
import Synchronization

/// Raster tiles drawn lately, each with the tag of the vector tile it was drawn from: an entry is used only while
/// that tag is the vector tile's current one, so a raster tile is exactly as fresh as its vector tile and needs no
/// invalidation of its own. Bounded in bytes: when a tile does not fit, the least recently used tiles are dropped
/// until half the capacity is free (one sort per half-emptying, so a put costs a logarithm on average and a get
/// only a counter). Thread-safe.
public final class RasterTileCache: Sendable {
    /// A raster tile: its z/x/y, its scale, and the variant of the vector tile it draws.
    public struct Key: Hashable, Sendable {
        public var tile: TileID
        public var scale: Int
        public var variant: TileVariant

        public init(tile: TileID, scale: Int, variant: TileVariant) {
            self.tile = tile
            self.scale = scale
            self.variant = variant
        }
    }

    /// A drawn tile.
    public struct Entry: Sendable {
        /// The PNG.
        public var png: [UInt8]
        /// The tag of the vector tile it was drawn from.
        public var source: String
        /// When it was last used, in the cache's own count of uses.
        var lastUse: UInt64 = 0
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var uses: UInt64 = 0

        /// Drops the least recently used entries until at most `target` bytes are kept.
        mutating func shrink(to target: Int) {
            guard bytes > target else { return }
            for (key, entry) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                entries[key] = nil
                bytes -= entry.png.count
                if bytes <= target { return }
            }
        }
    }

    private let state = Mutex(State())
    /// The most bytes of PNG kept.
    public let capacityBytes: Int

    public init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
    }

    /// The PNG of `key` drawn from the vector tile tagged `source`, if it is kept.
    public func get(_ key: Key, source: String) -> [UInt8]? {
        state.withLock { state in
            guard let entry = state.entries[key], entry.source == source else { return nil }
            state.uses += 1
            state.entries[key]?.lastUse = state.uses
            return entry.png
        }
    }

    /// Keeps the PNG of `key` drawn from the vector tile tagged `source`.
    public func put(_ key: Key, png: [UInt8], source: String) {
        guard png.count <= capacityBytes else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.png.count }
            if state.bytes + png.count > capacityBytes { state.shrink(to: min(capacityBytes / 2, capacityBytes - png.count)) }
            state.uses += 1
            state.entries[key] = Entry(png: png, source: source, lastUse: state.uses)
            state.bytes += png.count
        }
    }

    /// How many raster tiles and bytes are kept.
    public var usage: (tiles: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.bytes) } }
}
