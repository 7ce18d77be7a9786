import Foundation
import RouteTiles

/// What a seed job did: responses by status, bytes received, retries, answers that were cache hits (`CacheHit`),
/// tiles skipped as already done, and the tiles that failed with the reason.
/// A job has failed when `failed` is not empty or the checkpoint could not be synced.
package struct SeedReport: Sendable {
    package var statuses: [Int: Int] = [:]
    package var bytes = 0
    package var retries = 0
    /// Answers a cache gave without asking the origin (X-Varnish, X-Cache, CF-Cache-Status or Age).
    package var cacheHits = 0
    package var skipped = 0
    package var failed: [(tile: TileID, reason: String)] = []
    package var seconds = 0.0
    /// Why the checkpoint could not be synced at the end, if it could not.
    package var checkpointError: String?

    package init() {}

    /// Counts one tile's outcome.
    mutating func add(_ outcome: HTTPSeeder.Outcome) {
        retries += outcome.retries
        if let status = outcome.status { statuses[status, default: 0] += 1 }
        bytes += outcome.bytes
        if outcome.cacheHit { cacheHits += 1 }
        if let reason = outcome.failure { failed.append((outcome.tile, reason)) }
    }

    package var succeeded: Int { statuses.filter { SeedReport.accepted.contains($0.key) }.values.reduce(0, +) }

    /// The statuses that count as a warmed tile: content, no content (empty tile), not modified.
    package static let accepted: Set<Int> = [200, 204, 304]

    package var summary: String {
        var text = String(format: "%d tiles warmed, %d failed, %d skipped (done before) in %.1f s (%.0f tiles/s), %d bytes, %d retries\n",
                          succeeded, failed.count, skipped, seconds, seconds > 0 ? Double(succeeded) / seconds : 0, bytes, retries)
        text += "  cache hits: \(cacheHits) of \(statuses.values.reduce(0, +)) answers\n"
        for status in statuses.keys.sorted() { text += "  HTTP \(status): \(statuses[status] ?? 0)\n" }
        if let checkpointError { text += "  checkpoint: \(checkpointError)\n" }
        for f in failed.prefix(20) { text += "  failed \(f.tile): \(f.reason)\n" }
        if failed.count > 20 { text += "  … and \(failed.count - 20) more failed tiles\n" }
        return text
    }
}
