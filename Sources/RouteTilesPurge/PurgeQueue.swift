import RouteTiles

/// The tiles waiting to be purged from one cache, each once, in the order their changes were applied, with the
/// tiles of failed purges first. Bounded: when more than `limit` tiles wait, they are all dropped and the queue
/// holds one ban of every tile instead (`take` hands it out first), a single request that cannot leave a stale tile,
/// whatever the queue dropped. While a ban waits, tiles added are dropped too: the ban, sent later, covers them.
struct PurgeQueue {
    /// The work `take` hands out.
    enum Work: Equatable {
        case purge([TileID])
        case ban
        case idle
    }

    let limit: Int
    private var order: [TileID] = []
    private var head = 0
    private var waiting: Set<TileID> = []
    private(set) var banWaits = false

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Tiles waiting (a waiting ban counts none).
    var count: Int { waiting.count }

    /// Adds the tiles of a change; true when this overflowed the queue, which now holds a ban.
    mutating func add(_ tiles: [TileID]) -> Bool {
        guard !banWaits else { return false }
        for tile in tiles where waiting.insert(tile).inserted { order.append(tile) }
        return overflowIfNeeded()
    }

    /// Puts back tiles whose purge failed, before the others; true when this overflowed the queue.
    mutating func retry(_ tiles: [TileID]) -> Bool {
        guard !banWaits else { return false }
        let again = tiles.filter { waiting.insert($0).inserted }
        guard !again.isEmpty else { return false }
        order = again + order[head...]
        head = 0
        return overflowIfNeeded()
    }

    /// Drops the tiles waiting and queues one ban of every tile in their place: for a change whose tiles are not
    /// all listed (`LiveRouteSet.Change.subtrees`).
    mutating func ban() {
        dropAll()
        banWaits = true
    }

    /// Puts back a ban that failed.
    mutating func retryBan() {
        dropAll()
        banWaits = true
    }

    /// The ban, if one waits; else up to `batch` tiles, which leave the queue.
    mutating func take(upTo batch: Int) -> Work {
        if banWaits {
            banWaits = false
            return .ban
        }
        guard head < order.count else { return .idle }
        let end = min(order.count, head + max(1, batch))
        let tiles = Array(order[head..<end])
        head = end
        for tile in tiles { waiting.remove(tile) }
        if head == order.count {
            order.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096, head * 2 >= order.count {
            order.removeFirst(head)
            head = 0
        }
        return .purge(tiles)
    }

    private mutating func overflowIfNeeded() -> Bool {
        guard waiting.count > limit else { return false }
        dropAll()
        banWaits = true
        return true
    }

    private mutating func dropAll() {
        order = []
        head = 0
        waiting = []
    }
}
