import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import RouteTiles
import Synchronization

/// The purges of one cache node: its queue, and the loop that sends what the queue holds, a batch at a time, with
/// `concurrency` requests in flight, backing off (doubling up to `maxBackoff`) while the cache fails to answer.
/// Each node has a loop of its own, so that a cache that is down holds back no other.
final class CachePurgeNode: Sendable {
    let target: PurgeTarget
    let settings: CachePurger.Settings
    private let queue: Mutex<PurgeQueue>
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let metrics: PurgeMetrics
    private let logger: Logger

    init(target: PurgeTarget, settings: CachePurger.Settings, metrics: PurgeMetrics, logger: Logger) {
        self.target = target
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        queue = Mutex(PurgeQueue(limit: settings.queueLimit))
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Tiles waiting for this cache.
    var queued: Int { queue.withLock { $0.count } }

    /// Queues the tiles of a change and wakes the loop; returns at once.
    func add(_ tiles: [TileID]) {
        let (overflowed, count) = queue.withLock { queue in (queue.add(tiles), queue.count) }
        metrics.queued.record(count)
        if overflowed { reportOverflow() }
        wake.yield()
    }

    /// Replaces the tiles waiting with one ban of every tile, and wakes the loop; returns at once.
    func ban(because reason: String) {
        queue.withLock { $0.ban() }
        metrics.queued.record(0)
        logger.notice("cache \(target.base): \(reason); every tile under \(target.banURL) is banned")
        wake.yield()
    }

    /// Sends purges until cancelled.
    func run(client: HTTPClient) async {
        var iterator = wakeUps.makeAsyncIterator()
        var backoff = settings.firstBackoff
        var failing = false
        while !Task.isCancelled {
            let work = queue.withLock { $0.take(upTo: settings.batchSize) }
            metrics.queued.record(queued)
            let failure: String?
            switch work {
            case .idle:
                guard await iterator.next() != nil else { return }
                continue
            case .ban:
                failure = await ban(client: client)
            case let .purge(tiles):
                failure = await purge(tiles, client: client)
            }
            if let failure {
                if !failing {
                    logger.warning("cache \(target.base): purges failed (\(failure)); retrying with backoff")
                }
                failing = true
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, settings.maxBackoff)
            } else {
                if failing { logger.notice("cache \(target.base): purges go through again") }
                failing = false
                backoff = settings.firstBackoff
            }
        }
    }

    /// Purges `tiles`; the reason of the first retryable failure, whose tiles went back to the queue.
    private func purge(_ tiles: [TileID], client: HTTPClient) async -> String? {
        var failed: [TileID] = []
        var firstFailure: String?
        var refused: [Int: Int] = [:]
        await withTaskGroup(of: (TileID, PurgeAnswer).self) { group in
            var next = 0
            func startOne() {
                let tile = tiles[next]
                next += 1
                group.addTask { (tile, await self.send(self.target.method, to: self.target.url(for: tile), client: client)) }
            }
            while next < min(settings.concurrency, tiles.count) { startOne() }
            for await (tile, answer) in group {
                switch answer {
                case .done: metrics.purged.increment()
                case let .refused(status): refused[status, default: 0] += 1
                case let .retry(reason):
                    failed.append(tile)
                    if firstFailure == nil { firstFailure = reason }
                }
                if next < tiles.count { startOne() }
            }
        }
        for (status, count) in refused {
            metrics.refused.increment(by: count)
            logger.error("cache \(target.base): \(count) \(target.method) request(s) refused with HTTP \(status), not retried: does the cache accept purges from this server?")
        }
        if !failed.isEmpty {
            metrics.retried.increment(by: failed.count)
            // Back in the queue in their order, before tiles of later changes.
            let order = Dictionary(uniqueKeysWithValues: tiles.enumerated().map { ($1, $0) })
            failed.sort { (order[$0] ?? 0) < (order[$1] ?? 0) }
            let overflowed = queue.withLock { $0.retry(failed) }
            if overflowed { reportOverflow() }
        }
        return firstFailure
    }

    /// Bans every tile; the reason of a retryable failure (the ban then waits again).
    private func ban(client: HTTPClient) async -> String? {
        switch await send("BAN", to: target.banURL, client: client) {
        case .done:
            metrics.bans.increment()
            logger.notice("cache \(target.base): banned every tile under \(target.banURL)")
            return nil
        case let .refused(status):
            metrics.refused.increment()
            logger.error("cache \(target.base): BAN \(target.banURL) refused with HTTP \(status): tiles it holds may be stale until their max-age")
            return nil
        case let .retry(reason):
            queue.withLock { $0.retryBan() }
            return reason
        }
    }

    private func send(_ method: String, to url: String, client: HTTPClient) async -> PurgeAnswer {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        do {
            let response = try await client.execute(request, timeout: settings.timeout)
            // The body (Varnish's synthetic page) is read and dropped, so that the connection can be reused.
            _ = try await response.body.collect(upTo: 1 << 20)
            return PurgeAnswer(status: Int(response.status.code))
        } catch {
            return .retry(reason: "\(error)")
        }
    }

    private func reportOverflow() {
        metrics.overflows.increment()
        logger.error("cache \(target.base): more than \(settings.queueLimit) tiles wait to be purged; they are dropped and every tile under \(target.banURL) is banned instead")
    }
}
