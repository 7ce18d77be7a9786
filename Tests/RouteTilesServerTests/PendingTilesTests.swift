import RouteTiles
@testable import RouteTilesSeed
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The follower's tiles waiting to be requested: each once, to workers that wait, and none past the limit.
@Suite struct PendingTilesTests {
    @Test func tilesGoOnceToWaitingWorkersAndTheLimitClosesTheQueue() async {
        let pending = PendingTiles(limit: 3)
        let a = TileID(z: 2, x: 0, y: 0), b = TileID(z: 2, x: 1, y: 0), c = TileID(z: 2, x: 2, y: 0)
        async let first = pending.next()
        async let second = pending.next()
        // Both workers wait before the tiles come (bounded: 10 s).
        var tries = 0
        while await pending.workersWaiting < 2, tries < 1_000 {
            tries += 1
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(await pending.workersWaiting == 2)
        await pending.add([a, b, a, c, TileID(z: 2, x: 3, y: 0)])
        let handed = Set([await first, await second].compactMap { $0?.tile })
        #expect(handed == [a, b])
        #expect(await pending.next()?.tile == c)
        // The limit is reached: closed, and what waited is dropped.
        #expect(await pending.next() == nil)
        #expect(await pending.closed)
    }
}
