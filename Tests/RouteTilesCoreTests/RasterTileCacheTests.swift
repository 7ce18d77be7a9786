import RouteTiles
import Testing
import RouteTilesCoreTestSupport

/// The raster cache: bounded in bytes, dropping the least recently used tiles first, and giving a PNG only for the
/// vector tile tag it was drawn from.
@Suite struct RasterTileCacheTests {
    func key(_ x: Int, scale: Int = 1) -> RasterTileCache.Key {
        RasterTileCache.Key(tile: TileID(z: 10, x: x, y: 0), scale: scale, variant: TileVariant())
    }

    @Test func aPNGIsGivenOnlyForTheTagItWasDrawnFrom() {
        let cache = RasterTileCache(capacityBytes: 10_000)
        cache.put(key(1), png: [1, 2, 3], source: "\"a\"")
        #expect(cache.get(key(1), source: "\"a\"") == [1, 2, 3])
        #expect(cache.get(key(1), source: "\"b\"") == nil)
        #expect(cache.get(key(1, scale: 2), source: "\"a\"") == nil)
        cache.put(key(1), png: [4], source: "\"b\"")
        #expect(cache.get(key(1), source: "\"b\"") == [4] && cache.usage.bytes == 1 && cache.usage.tiles == 1)
    }

    /// Random puts and gets against a reference list in order of use: the bytes never pass the capacity, a tile
    /// just used outlives every tile used before it, and what the cache gives is what was put.
    @Test func theLeastRecentlyUsedGoFirstAndTheBoundHolds() {
        var rng = SeededGenerator(seed: 41)
        let capacity = 5_000
        let cache = RasterTileCache(capacityBytes: capacity)
        var contents: [Int: [UInt8]] = [:]
        for _ in 0..<20_000 {
            let x = Int.random(in: 0..<60, using: &rng)
            if Bool.random(using: &rng) {
                let png = [UInt8](repeating: UInt8(x), count: Int.random(in: 50...400, using: &rng))
                cache.put(key(x), png: png, source: "\"t\"")
                contents[x] = png
                // The newest tile is kept.
                #expect(cache.get(key(x), source: "\"t\"") == png)
            } else if let png = cache.get(key(x), source: "\"t\"") {
                #expect(png == contents[x])
                // Used now, it survives the next put that has to drop tiles, unless it is that put's own key.
                let other = (x + 1) % 60
                let big = [UInt8](repeating: 9, count: 400)
                cache.put(key(other), png: big, source: "\"t\"")
                contents[other] = big
                #expect(cache.get(key(x), source: "\"t\"") == png, "a tile just used was dropped before older ones")
            }
            #expect(cache.usage.bytes <= capacity)
        }
        #expect(cache.usage.tiles > 10, "half the capacity at least stays after each shrink")
    }
}
