import AsyncHTTPClient
import Foundation
import NIOCore
import RouteTiles
import Synchronization

/// Re-warms a cache after live changes: follows a server's `GET /events` and requests every tile of each `change`
/// event again through the cache (`seeder`'s template, concurrency, rate and retries), so that the tiles a purge
/// dropped are fetched once by this job and not by the next user.
///
/// Each tile is requested `delay` after its change arrived, so that the server's purge, sent at the same moment,
/// reaches the cache first: a re-warm that overtook the purge would be removed by it, leaving the tile cold (never
/// stale). The requests carry `Cache-Control: no-cache`, which the shipped Varnish configuration honours from the
/// servers' addresses by fetching the tile again from the origin and replacing what it holds. A tile waiting to be requested is requested once, however many changes name
/// it meanwhile. The job ends after `seconds` or once it has requested `maxTiles` tiles, whichever comes first
/// (neither: until cancelled). A stream that ends is opened again with `Last-Event-ID`; a `resync` answer (changes
/// missed while away, whose tiles the server cannot list) is counted.
package struct ChangeFollower: Sendable {
    package var eventsURL: String
    package var seeder: HTTPSeeder
    package var seconds: Double?
    package var maxTiles: Int?
    /// How long after its change a tile is requested.
    package var delay = Duration.milliseconds(500)

    /// What a follow job did.
    package struct Report: Sendable {
        /// The tiles' answers, as a seed job counts them.
        package var seed = SeedReport()
        /// `change` events read.
        package var changes = 0
        /// Times the stream reconnected and the server could not list the tiles of the changes missed.
        package var resyncs = 0
        /// Why the stream could not be read, the last time it could not.
        package var streamError: String?
    }

    package init(eventsURL: String, seeder: HTTPSeeder) {
        self.eventsURL = eventsURL
        self.seeder = seeder
        self.seeder.headers.append(("Cache-Control", "no-cache"))
    }

    /// Follows until the time or tile bound is reached, or the task is cancelled.
    /// - Parameters:
    ///   - connected: called each time the event stream is open (its first event read).
    ///   - warmed: called with each tile requested and its outcome's status (nil after a failure).
    package func run(client: HTTPClient, connected: (@Sendable () -> Void)? = nil,
                    warmed: (@Sendable (TileID, Int?) -> Void)? = nil) async -> Report {
        let started = ContinuousClock.now
        let pending = PendingTiles(limit: maxTiles)
        let tally = Tally()
        let pacer = RequestPacer(rate: seeder.rate)
        await withTaskCancellationHandler {
            await follow(client: client, pending: pending, pacer: pacer, tally: tally, connected: connected,
                         warmed: warmed)
        } onCancel: {
            Task { await pending.close() }
        }
        var report = tally.stream.withLock { $0 }
        report.seed = tally.seed.withLock { $0 }
        let elapsed = (ContinuousClock.now - started).components
        report.seed.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return report
    }

    /// The event reader, the timer and the workers, until the workers are done.
    private func follow(client: HTTPClient, pending: PendingTiles, pacer: RequestPacer, tally: Tally,
                        connected: (@Sendable () -> Void)?, warmed: (@Sendable (TileID, Int?) -> Void)?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await readEvents(client: client, into: pending, tally: tally, connected: connected)
            }
            if let seconds {
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                    await pending.close()
                }
            }
            let workers = (0..<max(1, seeder.concurrency)).map { _ in
                Task {
                    while let (tile, ready) = await pending.next() {
                        try? await Task.sleep(until: ready)
                        let outcome = await seeder.fetch(tile, client: client, pacer: pacer)
                        tally.seed.withLock { $0.add(outcome) }
                        warmed?(tile, outcome.failure == nil ? outcome.status : nil)
                    }
                }
            }
            for worker in workers { await worker.value }
            group.cancelAll()
        }
    }

    /// Reads the event stream, opening it again after it ends, until cancelled or `pending` is closed.
    private func readEvents(client: HTTPClient, into pending: PendingTiles, tally: Tally,
                            connected: (@Sendable () -> Void)?) async {
        var lastID: String?
        while !Task.isCancelled, await pending.closed == false {
            var request = HTTPClientRequest(url: eventsURL)
            request.headers.add(name: "Accept", value: "text/event-stream")
            if let lastID { request.headers.add(name: "Last-Event-ID", value: lastID) }
            do {
                let response = try await client.execute(request, deadline: .distantFuture)
                guard response.status == .ok else { throw FollowError(message: "HTTP \(response.status.code)") }
                var parser = ServerSentEventParser()
                var first = true
                for try await chunk in response.body {
                    for event in parser.feed(chunk.readableBytesView) {
                        if let id = event.id { lastID = id }
                        if first {
                            first = false
                            connected?()
                        }
                        switch event.name {
                        case "change":
                            let tiles = Self.tiles(inChange: event.data)
                            tally.stream.withLock { $0.changes += 1 }
                            await pending.add(tiles, ready: .now + delay)
                        case "resync":
                            tally.stream.withLock { $0.resyncs += 1 }
                        default:
                            break
                        }
                    }
                }
            } catch {
                tally.stream.withLock { $0.streamError = "\(error)" }
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    /// The tiles of a `change` event's data: `{"tiles": ["z/x/y", …], …}`.
    static func tiles(inChange data: String) -> [TileID] {
        guard let list = JSONDocument.parse(Array(data.utf8))?["tiles"]?.array?.compactMap(\.string) else { return [] }
        return list.compactMap { text in
            let parts = text.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 3, (0...TileID.maxZoom).contains(parts[0]), parts[1] >= 0, parts[2] >= 0,
                  parts[1] < 1 << parts[0], parts[2] < 1 << parts[0]
            else { return nil }
            return TileID(z: parts[0], x: parts[1], y: parts[2])
        }
    }

    /// What the tasks of a run count, shared by them.
    private final class Tally: Sendable {
        let stream = Mutex(Report())
        let seed = Mutex(SeedReport())
    }

    struct FollowError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
