import Hummingbird
import RouteTiles
@testable import RouteTilesServer
import Testing

@Suite struct TileCacheTests {
    func entry(_ size: Int) -> TileCache.Entry { .init(gzip: ByteBuffer(bytes: [UInt8](repeating: 7, count: size)), etag: "\"e\"") }

    @Test func evictsTheLeastRecentlyUsedWithinTheByteBound() {
        let cost = 1000 + 3 + TileCache.overhead
        let cache = TileCache(capacityBytes: cost * 3)
        let a = TileID(z: 1, x: 0, y: 0), b = TileID(z: 1, x: 1, y: 0), c = TileID(z: 1, x: 0, y: 1), d = TileID(z: 1, x: 1, y: 1)
        for t in [a, b, c] { cache.put(t, entry(1000)) }
        #expect(cache.get(a) != nil)          // a becomes the newest; b is now the oldest
        cache.put(d, entry(1000))
        #expect(cache.get(b) == nil)
        #expect(cache.get(a) != nil && cache.get(c) != nil && cache.get(d) != nil)
        #expect(cache.usage.bytes == cost * 3 && cache.usage.tiles == 3)
        #expect(cache.remove([a, b]) == 1)
        #expect(cache.usage.tiles == 2)
    }

    @Test func aTileLargerThanTheCacheIsNotKept() {
        let cache = TileCache(capacityBytes: 500)
        cache.put(TileID(z: 0, x: 0, y: 0), entry(1000))
        #expect(cache.usage.tiles == 0)
    }

    @Test func randomOperationsKeepTheBoundAndMatchAModel() {
        var rng = SystemRandomNumberGenerator()
        let capacity = 20_000
        let cache = TileCache(capacityBytes: capacity)
        var model: [TileID: Int] = [:]   // tile -> size, for tiles the model says may be cached
        for step in 0..<5000 {
            let tile = TileID(z: 4, x: Int.random(in: 0..<16, using: &rng), y: Int.random(in: 0..<4, using: &rng))
            if step % 3 == 0 {
                let size = Int.random(in: 0..<3000, using: &rng)
                cache.put(tile, entry(size))
                model[tile] = size
            } else if let got = cache.get(tile) {
                #expect(model[tile] == got.gzip.readableBytes)
            }
            #expect(cache.usage.bytes <= capacity)
        }
    }
}
