import RouteTilesModel
import RouteTilesTiling

/// The routes of a `LiveRouteSet` in feature order, in chunks of at most `TilerChunk.capacity`: each chunk's keys
/// with what each route draws (its tiler and its point in the position layer), and the chunk as the snapshots use
/// it. A change marks the chunks it touched; the next snapshot builds those again and keeps the others.
struct ChunkTable: Sendable {
    /// One chunk's routes: three columns of one length, a route's slot its index in each.
    struct Chunk: Sendable {
        var keys: [String] = []
        var tilers: [RouteTiler] = []
        var positions: [LivePosition?] = []
    }

    private(set) var chunks: [Chunk] = []
    /// Each chunk built for the snapshots; those in `rebuilt` or `moved` are stale until the next snapshot. Kept
    /// apart from `chunks` so that a snapshot takes the array as it is, without a copy.
    private var built: [TilerChunk] = []
    /// Chunks whose routes came, went or were replaced: built anew for the next snapshot.
    private var rebuilt: Set<Int> = []
    /// Chunks where appends alone changed routes, with those routes' slots: their layers stay, their tree is
    /// refitted (`TilerChunk.init(_:positions:refitting:slots:)`).
    private var moved: [Int: [Int]] = [:]
    /// The set the last snapshot holds, which the next one replaces (`RouteTilerSet.init(chunks:options:previous:)`).
    private var previous: RouteTilerSet?

    /// Every key, in feature order.
    var order: [String] { chunks.flatMap(\.keys) }

    /// Puts a route at the end of the feature order; its chunk and slot.
    mutating func append(_ key: String, tiler: RouteTiler, position: LivePosition?,
                         options: TilingOptions) -> (chunk: Int, slot: Int) {
        if chunks.isEmpty || chunks[chunks.count - 1].keys.count >= TilerChunk.capacity {
            chunks.append(Chunk())
            built.append(TilerChunk([], options: options))
        }
        let chunk = chunks.count - 1
        let slot = chunks[chunk].keys.count
        chunks[chunk].keys.append(key)
        chunks[chunk].tilers.append(tiler)
        chunks[chunk].positions.append(position)
        rebuilt.insert(chunk)
        return (chunk, slot)
    }

    /// What the route in `chunk`'s `slot` draws now. `refit`: the same route extended or trimmed (the chunk's
    /// tree is refitted); otherwise the caller marks the chunk `rebuild` or has just placed it.
    mutating func draw(_ tiler: RouteTiler, position: LivePosition?, chunk: Int, slot: Int, refit: Bool = false) {
        chunks[chunk].tilers[slot] = tiler
        chunks[chunk].positions[slot] = position
        if refit { moved[chunk, default: []].append(slot) }
    }

    /// Marks `chunk` to be built anew for the next snapshot (a route in it was replaced).
    mutating func rebuild(_ chunk: Int) { rebuilt.insert(chunk) }

    /// Takes the route in `chunk`'s `slot` out of the feature order; the keys after it in the chunk, each now one
    /// slot lower.
    mutating func remove(chunk: Int, slot: Int) -> ArraySlice<String> {
        chunks[chunk].keys.remove(at: slot)
        chunks[chunk].tilers.remove(at: slot)
        chunks[chunk].positions.remove(at: slot)
        rebuilt.insert(chunk)
        return chunks[chunk].keys[slot...]
    }

    /// Whether chunks emptied by removals are most of the chunks, for `routeCount` routes: then they are packed
    /// again (a pass over every key, rare enough to cost a constant per removal).
    func isSparse(routeCount: Int) -> Bool {
        chunks.count > 8 && routeCount < chunks.count * TilerChunk.capacity / 4
    }

    /// Chunks full again, in the same feature order; `placed` learns each key's new chunk and slot.
    mutating func repack(_ placed: (String, Int, Int) -> Void) {
        let keys = order
        let tilers = chunks.flatMap(\.tilers), positions = chunks.flatMap(\.positions)
        let size = TilerChunk.capacity
        chunks = stride(from: 0, to: keys.count, by: size).map { start in
            let end = min(start + size, keys.count)
            return Chunk(keys: Array(keys[start..<end]), tilers: Array(tilers[start..<end]),
                         positions: Array(positions[start..<end]))
        }
        for (c, chunk) in chunks.enumerated() {
            for (slot, key) in chunk.keys.enumerated() { placed(key, c, slot) }
        }
        built = Array(built.prefix(chunks.count))
        rebuilt = Set(chunks.indices)
        moved = [:]
    }

    /// Builds the chunks that changed, then the set of all chunks.
    mutating func tilerSet(options: TilingOptions) -> RouteTilerSet {
        for c in rebuilt {
            built[c] = TilerChunk(chunks[c].tilers, positions: chunks[c].positions, options: options)
        }
        for (c, slots) in moved where !rebuilt.contains(c) {
            built[c] = TilerChunk(chunks[c].tilers, positions: chunks[c].positions, refitting: built[c], slots: slots)
        }
        rebuilt = []
        moved = [:]
        let set = RouteTilerSet(chunks: built, options: options, previous: previous)
        previous = set
        return set
    }
}
