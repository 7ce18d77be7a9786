import RouteTiles

/// Tiles waiting to be requested again, each once, in the order they came, with the time each may be requested
/// (that of its first change still waiting), handed to the workers that wait for them. Closed when the job's time
/// is up or it has handed out `limit` tiles: the workers then get nil.
actor PendingTiles {
    typealias Entry = (tile: TileID, ready: ContinuousClock.Instant)
    private var order: [Entry] = []
    /// The first tile of `order` not handed out yet.
    private var head = 0
    private var waiting: Set<TileID> = []
    private var workers: [CheckedContinuation<Entry?, Never>] = []
    private var handedOut = 0
    private let limit: Int?
    private(set) var closed = false

    init(limit: Int?) {
        self.limit = limit
    }

    /// How many workers wait for a tile (for tests that must add tiles only once they do).
    var workersWaiting: Int { workers.count }

    /// Adds the tiles of a change, to be requested from `ready` on.
    func add(_ tiles: [TileID], ready: ContinuousClock.Instant = .now) {
        guard !closed else { return }
        for tile in tiles where waiting.insert(tile).inserted { order.append((tile, ready)) }
        while !workers.isEmpty, let entry = takeOne() {
            workers.removeFirst().resume(returning: entry)
            closeIfDone()
        }
    }

    /// The next tile and when it may be requested, waiting for one; nil once closed.
    func next() async -> Entry? {
        if let entry = takeOne() {
            closeIfDone()
            return entry
        }
        if closed { return nil }
        return await withCheckedContinuation { workers.append($0) }
    }

    func close() {
        closed = true
        for worker in workers { worker.resume(returning: nil) }
        workers = []
    }

    private func takeOne() -> Entry? {
        guard !closed, head < order.count else { return nil }
        let entry = order[head]
        head += 1
        if head == order.count {
            order.removeAll(keepingCapacity: true)
            head = 0
        }
        waiting.remove(entry.tile)
        handedOut += 1
        return entry
    }

    private func closeIfDone() {
        if let limit, handedOut >= limit { close() }
    }
}
