import RouteTiles
@testable import RouteTilesPurge
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The purger's queue: each tile once, failed tiles first, and past its bound one ban in place of the tiles.
@Suite struct PurgeQueueTests {
    let a = TileID(z: 1, x: 0, y: 0), b = TileID(z: 1, x: 1, y: 0), c = TileID(z: 1, x: 0, y: 1)
    let d = TileID(z: 1, x: 1, y: 1)

    @Test func tilesWaitOnceInOrderAndFailedOnesGoFirst() {
        var queue = PurgeQueue(limit: 10)
        #expect(queue.add([a, b]) == false)
        #expect(queue.add([b, c]) == false)
        #expect(queue.count == 3)
        #expect(queue.take(upTo: 2) == .purge([a, b]))
        #expect(queue.add([a, d]) == false)
        #expect(queue.retry([a, b]) == false)
        #expect(queue.take(upTo: 10) == .purge([b, c, a, d]))
        #expect(queue.take(upTo: 10) == .idle)
    }

    /// A change with subtrees (tiles it does not list) is purged by a ban, which replaces the tiles waiting.
    @Test func aBanAskedForReplacesTheTilesWaiting() {
        var queue = PurgeQueue(limit: 10)
        #expect(queue.add([a, b]) == false)
        queue.ban()
        #expect(queue.count == 0 && queue.banWaits)
        #expect(queue.add([c]) == false)
        #expect(queue.take(upTo: 10) == .ban)
        #expect(queue.take(upTo: 10) == .idle)
    }

    @Test func pastTheLimitABanReplacesTheTilesAndCoversThoseAddedUntilItIsSent() {
        var queue = PurgeQueue(limit: 2)
        #expect(queue.add([a, b]) == false)
        #expect(queue.add([c]) == true)
        #expect(queue.count == 0)
        #expect(queue.add([d]) == false)
        #expect(queue.take(upTo: 10) == .ban)
        // Tiles changed after the ban went out need their own purge.
        #expect(queue.add([d]) == false)
        queue.retryBan()
        #expect(queue.take(upTo: 10) == .ban)
        #expect(queue.take(upTo: 10) == .idle)
    }

    @Test func answersAreSortedIntoDoneRefusedAndRetry() {
        #expect(PurgeAnswer(status: 200) == .done)
        #expect(PurgeAnswer(status: 404) == .done)
        #expect(PurgeAnswer(status: 405) == .refused(status: 405))
        #expect(PurgeAnswer(status: 403) == .refused(status: 403))
        #expect(PurgeAnswer(status: 503) == .retry(reason: "HTTP 503"))
        #expect(PurgeAnswer(status: 429) == .retry(reason: "HTTP 429"))
    }

    @Test func targetsAreBaseURLsAndTilesGoUnderThem() throws {
        let target = try PurgeTarget("http://cache:6081/maps/")
        #expect(target.url(for: TileID(z: 3, x: 2, y: 5)) == "http://cache:6081/maps/tiles/3/2/5.mvt")
        #expect(target.banURL == "http://cache:6081/maps/tiles/")
        #expect(throws: ValueError.self) { try PurgeTarget("cache:6081") }
        #expect(throws: ValueError.self) { try PurgeTarget("http://cache/?a=1") }
        #expect(throws: ValueError.self) { try PurgeTarget("http://cache", method: "purge me") }
    }
}
