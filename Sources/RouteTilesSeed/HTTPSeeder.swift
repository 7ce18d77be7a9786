import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RouteTiles
import Synchronization

/// Warms a tile server or CDN: requests each tile once over HTTP, with `concurrency` requests in flight, at most
/// `rate` per second, retrying 5xx and 429 answers, timeouts and connection errors with exponential backoff (or
/// longer, when the answer's `Retry-After` asks for it, up to `maxRetryAfterSeconds`). A tile counts as warmed on
/// 200 with a body, 204 or 304; any other answer (or a 200 with an empty body) fails it.
package struct HTTPSeeder: Sendable {
    package var template: TileURLTemplate
    package var concurrency = 8
    /// Requests per second; 0 for no limit.
    package var rate = 0.0
    package var retries = 3
    package var timeoutSeconds: Int64 = 30
    /// The first backoff; each retry doubles it.
    package var backoffSeconds = 0.25
    /// The longest wait a `Retry-After` header is obeyed for.
    package var maxRetryAfterSeconds = 60.0
    /// Extra request headers, such as `Accept-Encoding: gzip` (sent by default, as browsers do).
    package var headers: [(String, String)] = [("Accept-Encoding", "gzip")]

    package init(template: TileURLTemplate) {
        self.template = template
    }

    /// Progress of a run: tiles finished (warmed or failed) of the total.
    package struct Progress: Sendable {
        package var finished: Int
        package var total: Int
    }

    /// Requests every tile of `tiles` not already in the checkpoint, recording each warmed tile in it.
    package func run(_ tiles: [TileID], client: HTTPClient, checkpoint: SeedCheckpoint?,
                    progress: (@Sendable (Progress) -> Void)? = nil) async -> SeedReport {
        let started = Date()
        var report = SeedReport()
        let todo = checkpoint.map { c in tiles.filter { !c.done.contains($0) } } ?? tiles
        report.skipped = tiles.count - todo.count
        let pacer = RequestPacer(rate: rate)
        let finished = Atomic<Int>(0)
        await withTaskGroup(of: Outcome.self) { group in
            var next = 0
            func startOne() {
                let tile = todo[next]
                next += 1
                group.addTask { await fetch(tile, client: client, pacer: pacer) }
            }
            while next < min(max(1, concurrency), todo.count) { startOne() }
            for await outcome in group {
                report.add(outcome)
                if outcome.failure == nil, let checkpoint {
                    do { try checkpoint.record(outcome.tile) } catch {
                        report.failed.append((outcome.tile, "checkpoint: \(error)"))
                    }
                }
                let n = finished.add(1, ordering: .relaxed).newValue
                progress?(Progress(finished: n, total: todo.count))
                if next < todo.count { startOne() }
            }
        }
        do { try checkpoint?.close() } catch { report.checkpointError = "\(error)" }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    struct Outcome: Sendable {
        var tile: TileID
        var status: Int?
        var bytes = 0
        var retries = 0
        var cacheHit = false
        var failure: String?
    }

    /// One tile, with its retries.
    func fetch(_ tile: TileID, client: HTTPClient, pacer: RequestPacer) async -> Outcome {
        var outcome = Outcome(tile: tile)
        let url = template.url(for: tile)
        var attempt = 0
        while true {
            await pacer.wait()
            var retryable: String?
            var retryAfter: Double?
            do {
                var request = HTTPClientRequest(url: url)
                for (name, value) in headers { request.headers.add(name: name, value: value) }
                let response = try await client.execute(request, timeout: .seconds(timeoutSeconds))
                let body = try await response.body.collect(upTo: 64 << 20)
                let status = Int(response.status.code)
                if status >= 500 || status == 429 {
                    retryable = "HTTP \(status)"
                    retryAfter = response.headers.first(name: "Retry-After").flatMap(retryAfterSeconds)
                } else {
                    outcome.status = status
                    outcome.bytes += body.readableBytes
                    outcome.cacheHit = CacheHit.isHit(response.headers)
                    if !SeedReport.accepted.contains(status) {
                        outcome.failure = "HTTP \(status)"
                    } else if status == 200 && body.readableBytes == 0 {
                        outcome.failure = "HTTP 200 with an empty body"
                    }
                    return outcome
                }
            } catch {
                retryable = "\(error)"
            }
            guard attempt < retries, retryable != nil else {
                outcome.failure = "\(retryable ?? "failed") after \(attempt + 1) attempt(s)"
                if let last = retryable, last.hasPrefix("HTTP "), let code = Int(last.dropFirst(5)) { outcome.status = code }
                return outcome
            }
            attempt += 1
            outcome.retries += 1
            let backoff = backoffSeconds * Double(1 << min(attempt - 1, 10))
            try? await Task.sleep(nanoseconds: UInt64(max(backoff, retryAfter ?? 0) * 1e9))
        }
    }

    /// The delay of a `Retry-After` header in seconds (its delta-seconds form; an HTTP date is ignored), capped.
    func retryAfterSeconds(_ value: String) -> Double? {
        guard let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0 else { return nil }
        return min(seconds, maxRetryAfterSeconds)
    }
}
