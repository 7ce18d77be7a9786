import Foundation
import RouteTilesModel
import RouteTilesTiling
import Synchronization

/// Cuts the whole pyramid top-down: each tile's spans are the input of its four children, so the work for a tile
/// is proportional to what lies in it and an empty tile is never descended into.
///
/// Workers (one per core by default) share a stack of subtrees. A worker takes a subtree and cuts it depth first;
/// while the shared stack is shorter than the number of workers it offers children there instead, which keeps
/// every core busy when one part of the world is dense, and bounds memory to a few tiles' spans per zoom.
/// A tile's bytes depend on its spans alone, so the output is the same at any thread count.
public struct PyramidBuilder: Sendable {
    /// The routes to cut, indexed, with the tiling options that decide the zoom range.
    public let tiler: RouteTiler
    /// The number of worker threads (at least 1).
    public var threads: Int
    /// What the tiles written are and how each worker encodes them: gzip vector tiles by default.
    public var encoding: TileEncoding
    /// The part of the pyramid to build, for one shard of a sharded build; nil for all of it. The tiler then needs
    /// only the routes the shard needs (`PyramidShard.needs`).
    public var shard: PyramidShard?

    /// A builder for the pyramid of `tiler`.
    /// - Parameters:
    ///   - tiler: The routes to cut and the tiling options.
    ///   - threads: Worker threads; one per active core by default.
    ///   - compressionLevel: The gzip level of the vector tiles written, when `encoding` is nil.
    ///   - encoding: What to write instead of gzip vector tiles (PNG drawings: `TileEncoding.png` in
    ///     RouteTilesRaster).
    ///   - shard: The shard to build in a sharded build, or nil for the whole pyramid.
    public init(tiler: RouteTiler, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                compressionLevel: Int32 = GzipCompressor.defaultLevel, encoding: TileEncoding? = nil,
                shard: PyramidShard? = nil) {
        self.tiler = tiler
        self.threads = max(1, threads)
        self.encoding = encoding ?? .gzip(level: compressionLevel)
        self.shard = shard
    }

    /// Builds every non-empty tile from `minZoom` to `maxZoom` into `sink`. `progress`, if given, is called about
    /// every `progressInterval` seconds from a background thread while the build runs. Throws the first error of
    /// the sink or of the encoder; the other workers stop soon after.
    public func build(into sink: some TileSink, progressInterval: Double = 0.5,
                      progress: (@Sendable (BuildProgress) -> Void)? = nil) throws -> BuildStatistics {
        let work = WorkStack(workers: threads)
        let root = TileID(z: 0, x: 0, y: 0)
        if !tiler.rootSpans.isEmpty, shard?.descends(into: root) ?? true { work.push([SubtreeTask(tile: root, spans: tiler.rootSpans)]) }

        let reporterDone = DispatchSemaphore(value: 0)
        if let progress {
            Thread.detachNewThread {
                while !work.waitForFinish(seconds: progressInterval) { progress(work.progress) }
                reporterDone.signal()
            }
        }
        let results = Mutex([BuildStatistics]())
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var statistics = BuildStatistics()
            defer { results.withLock { $0.append(statistics) } }
            var cutter = tiler.makeCutter()
            var encoder: any TileEncoder
            do {
                encoder = try encoding.makeEncoder()
            } catch {
                work.fail(error)
                return
            }
            while let task = work.take() {
                var subtree = [task]
                while let current = subtree.popLast(), !work.hasFailed {
                    do {
                        try process(current, cutter: &cutter, encoder: &encoder, sink: sink,
                                    statistics: &statistics, work: work, pending: &subtree)
                    } catch {
                        work.fail(error)
                    }
                }
                work.finishTask()
            }
        }
        work.markFinished()
        if progress != nil { reporterDone.wait() }
        if let failure = work.failure { throw failure }
        var total = BuildStatistics()
        for s in results.withLock({ $0 }) { total.merge(s) }
        return total
    }

    /// Cuts one tile, stores it, and queues its non-empty children.
    private func process(_ task: SubtreeTask, cutter: inout TileCutter, encoder: inout any TileEncoder,
                         sink: some TileSink, statistics: inout BuildStatistics, work: WorkStack,
                         pending: inout [SubtreeTask]) throws {
        let tile = task.tile
        let options = tiler.options
        statistics.tilesVisited += 1
        var written = false
        if tile.z >= options.minZoom, shard?.writes(tile) ?? true,
           let (mvt, reduction) = tiler.fittedTile(tile, spans: task.spans, cutter: &cutter) {
            let data = try encoder.encode(tile, mvt: mvt)
            if let reduction { statistics.reductionsPerZoom[tile.z, default: ZoomReductions()].add(reduction) }
            try sink.put(tile, gzipData: data)
            statistics.tilesPerZoom[tile.z, default: 0] += 1
            statistics.bytesPerZoom[tile.z, default: 0] += data.count
            statistics.largestPerZoom[tile.z] = max(statistics.largestPerZoom[tile.z] ?? 0, data.count)
            written = true
        }
        work.record(zoom: tile.z, written: written)
        guard tile.z < options.maxZoom else { return }
        let children = SpanFilter.split(task.spans, of: tile, options: options, in: tiler.projected)
        let childTiles = tile.children
        var next: [SubtreeTask] = []
        for k in (0..<4).reversed() where !children[k].isEmpty && shard?.descends(into: childTiles[k]) ?? true {
            next.append(SubtreeTask(tile: childTiles[k], spans: children[k].spans))
        }
        // Keep one child for this worker; offer the others to idle workers while the shared stack is short.
        guard let mine = next.popLast() else { return }
        pending.append(contentsOf: work.offer(next))
        pending.append(mine)
    }
}

/// The work shared by the pyramid builder's workers: a stack of subtrees, how many are being cut, the first
/// failure and the progress counters. Workers wait on it for work while others may still produce some.
final class WorkStack: Sendable {
    private struct State {
        var stack: [SubtreeTask] = []
        var busy = 0
        var finished = false
        var failure: (any Error)?
        var progress = BuildProgress(tilesWritten: 0, tilesVisited: 0, zoom: 0)
    }

    private let state = Mutex(State())
    private let condition = NSCondition()
    private let workers: Int

    init(workers: Int) { self.workers = workers }

    func push(_ tasks: [SubtreeTask]) {
        state.withLock { $0.stack.append(contentsOf: tasks) }
        signal()
    }

    /// Shares as many of `tasks` as the stack has room for (it is kept to about one task per worker) and
    /// returns the rest for the caller to cut itself.
    func offer(_ tasks: [SubtreeTask]) -> [SubtreeTask] {
        guard !tasks.isEmpty else { return tasks }
        let shared = state.withLock { s -> Int in
            let room = max(0, workers - s.stack.count)
            let n = min(room, tasks.count)
            s.stack.append(contentsOf: tasks.prefix(n))
            return n
        }
        if shared > 0 { signal() }
        return Array(tasks.dropFirst(shared))
    }

    /// The next subtree to cut, waiting while other workers may still offer some; nil when all is done or failed.
    func take() -> SubtreeTask? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let (task, over) = state.withLock { s -> (SubtreeTask?, Bool) in
                if s.failure != nil { return (nil, true) }
                if let task = s.stack.popLast() {
                    s.busy += 1
                    return (task, false)
                }
                return (nil, s.busy == 0)
            }
            if task != nil || over { return task }
            condition.wait()
        }
    }

    /// Marks the end of a subtree taken with `take()`.
    func finishTask() {
        state.withLock { $0.busy -= 1 }
        signal()
    }

    func fail(_ error: any Error) {
        state.withLock { if $0.failure == nil { $0.failure = error } }
        signal()
    }

    var hasFailed: Bool { state.withLock { $0.failure != nil } }
    var failure: (any Error)? { state.withLock { $0.failure } }

    func record(zoom: Int, written: Bool) {
        state.withLock {
            $0.progress.tilesVisited += 1
            if written { $0.progress.tilesWritten += 1 }
            if zoom > $0.progress.zoom { $0.progress.zoom = zoom }
        }
    }

    var progress: BuildProgress { state.withLock { $0.progress } }

    func markFinished() {
        state.withLock { $0.finished = true }
        signal()
    }

    /// Waits up to `seconds` for `markFinished()`; true once the build is over.
    func waitForFinish(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if state.withLock({ $0.finished }) { return true }
        _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        return state.withLock { $0.finished }
    }

    /// Wakes waiters; under the condition's lock, so that no wake-up falls between a check and a wait.
    private func signal() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}
