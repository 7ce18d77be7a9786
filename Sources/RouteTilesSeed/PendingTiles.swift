import RouteTiles

/// Tiles waiting to be requested again, each once, in the order they came, handed to the workers that wait for
/// them. Closed when the job's time is up or it has handed out `limit` tiles: the workers then get nil.
actor PendingTiles {
    private var order: [TileID] = []
    /// The first tile of `order` not handed out yet.
    private var head = 0
    private var waiting: Set<TileID> = []
    private var workers: [CheckedContinuation<TileID?, Never>] = []
    private var handedOut = 0
    private let limit: Int?
    private(set) var closed = false

    init(limit: Int?) {
        self.limit = limit
    }

    func add(_ tiles: [TileID]) {
        guard !closed else { return }
        for tile in tiles where waiting.insert(tile).inserted { order.append(tile) }
        while !workers.isEmpty, let tile = takeOne() {
            workers.removeFirst().resume(returning: tile)
            closeIfDone()
        }
    }

    /// The next tile, waiting for one; nil once closed.
    func next() async -> TileID? {
        if let tile = takeOne() {
            closeIfDone()
            return tile
        }
        if closed { return nil }
        return await withCheckedContinuation { workers.append($0) }
    }

    func close() {
        closed = true
        for worker in workers { worker.resume(returning: nil) }
        workers = []
    }

    private func takeOne() -> TileID? {
        guard !closed, head < order.count else { return nil }
        let tile = order[head]
        head += 1
        if head == order.count {
            order.removeAll(keepingCapacity: true)
            head = 0
        }
        waiting.remove(tile)
        handedOut += 1
        return tile
    }

    private func closeIfDone() {
        if let limit, handedOut >= limit { close() }
    }
}
